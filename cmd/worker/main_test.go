package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// TestSlotsBounds: --slots outside 1..256 is bad input naming the flag
// and the limit, before connecting anywhere.
func TestSlotsBounds(t *testing.T) {
	for _, slots := range []string{"0", "257"} {
		var errb bytes.Buffer
		err := run(context.Background(), []string{"--nats", "nats://127.0.0.1:9", "--slots", slots}, &errb)
		if !errors.Is(err, orchestrator.ErrBadInput) || !strings.Contains(err.Error(), "--slots "+slots+": must be 1 to 256") {
			t.Fatalf("--slots %s: err = %v", slots, err)
		}
	}
}
