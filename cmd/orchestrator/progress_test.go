package main

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// TestProgressFits: the progress line never outgrows the terminal; a
// narrow one drops the least important parts first, then cuts the line.
func TestProgressFits(t *testing.T) {
	pr := orchestrator.Progress{Phase: "explore", Elapsed: 3200 * time.Millisecond, Budget: 2 * time.Minute, Wave: 4, Frontier: 12,
		Running: 3, Workers: 4, Executed: 17, BestJ: 0.812}
	for _, tc := range []struct {
		width       int
		has, hasNot string
	}{
		{200, "frontier 12", ""},
		{60, "best J 0.812", "frontier"},
		{30, "wave 4", "best J"},
		{10, "[", "wave"},
	} {
		line := fitLine(progressParts(pr), tc.width)
		if n := utf8.RuneCountInString(line); n > tc.width {
			t.Errorf("width %d: %d runes: %q", tc.width, n, line)
		}
		if !strings.Contains(line, tc.has) || tc.hasNot != "" && strings.Contains(line, tc.hasNot) {
			t.Errorf("width %d: %q, want %q and not %q", tc.width, line, tc.has, tc.hasNot)
		}
	}
	if line := fitLine(progressParts(orchestrator.Progress{Phase: "start"}), 80); !strings.Contains(line, "starting") {
		t.Errorf("start phase: %q", line)
	}
}
