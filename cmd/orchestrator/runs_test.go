package main

import (
	"bytes"
	"context"
	"testing"
)

// TestRunsGolden: runs lists each run's task, outcome, start, duration,
// branch count and winner; --json the same as objects; a prefix keeps the
// runs it names.
func TestRunsGolden(t *testing.T) {
	dir, runID := eventsFixture(t)
	tests := []struct {
		name string
		args []string
	}{
		{"runs/list.golden", []string{"runs"}},
		{"runs/list.json.golden", []string{"runs", "--json"}},
		{"runs/prefix.golden", []string{"runs", runID[:8] + "…"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(context.Background(), append(tc.args, "--data-dir", dir), &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			golden(t, tc.name, out.String())
		})
	}
}
