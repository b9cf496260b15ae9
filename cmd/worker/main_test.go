package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// TestSlotsBounds: --slots outside 1..256 is bad input naming the flag
// and the limit, before connecting anywhere.
func TestSlotsBounds(t *testing.T) {
	for _, slots := range []string{"0", "257"} {
		var errb bytes.Buffer
		err := run(context.Background(), []string{"--nats", "nats://127.0.0.1:9", "--slots", slots}, &errb)
		if !errors.Is(err, errBadInput) || !strings.Contains(err.Error(), "--slots "+slots+": must be 1 to 256") {
			t.Fatalf("--slots %s: err = %v", slots, err)
		}
	}
}

// TestExitCodes: the worker's exit codes are the orchestrator's for the
// same faults.
func TestExitCodes(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want int
	}{
		{"ok", nil, orchestrator.ExitOK},
		{"bad flag", fmt.Errorf("%w: --slots 0", errBadInput), orchestrator.ExitBadInput},
		{"disk full", fmt.Errorf("publishing: %w", bus.ErrStorageFull), orchestrator.ExitCode(bus.ErrStorageFull)},
		{"no chromium", fmt.Errorf("launching: %w", browser.ErrChromiumNotFound), orchestrator.ExitCode(browser.ErrChromiumNotFound)},
		{"no driver", browser.ErrDriverNotFound, orchestrator.ExitCode(browser.ErrDriverNotFound)},
		{"other", errors.New("connection refused"), orchestrator.ExitInternal},
	} {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("%s: exit code %d, want %d", c.name, got, c.want)
		}
	}
}
