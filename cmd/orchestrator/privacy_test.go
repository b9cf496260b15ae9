package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// TestStartURLCredentialsScrubbed: credentials in the start URL
// (http://user:pass@host/) reach neither stderr nor the summary nor the
// event log (its error and run_end events) when the site is unreachable.
func TestStartURLCredentialsScrubbed(t *testing.T) {
	dir := t.TempDir()
	down := strings.TrimPrefix(refusingURL(t), "http://")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"run", exampleAt(t, "team-checkout.yaml", noRequestURL(t)),
		"--start-url", "http://planted-user:planted-pass@" + down + "/checkout?plan=team",
		"--data-dir", dir, "--workers", "1", "--json"}, &out, &errb)
	if code != orchestrator.ExitSite {
		t.Fatalf("exit %d, want %d; stderr: %s", code, orchestrator.ExitSite, errb.String())
	}
	if !strings.Contains(errb.String(), down) {
		t.Fatalf("stderr no longer names the site: %s", errb.String())
	}
	var events bytes.Buffer
	el, err := eventlog.Open(context.Background(), filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := el.Runs(context.Background())
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs: %v %d", err, len(runs))
	}
	evs, err := el.Events(context.Background(), runs[0].RunID, eventlog.Query{})
	el.Close()
	if err != nil {
		t.Fatal(err)
	}
	eventlog.WriteJSONL(&events, evs)
	for _, f := range []string{"events.db", "events.db-wal"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
			events.Write(b)
		}
	}
	if !bytes.Contains(events.Bytes(), []byte("run_end")) {
		t.Fatal("the event log holds no run_end event: nothing was checked")
	}
	for name, hay := range map[string][]byte{"stderr": errb.Bytes(), "stdout": out.Bytes(), "event log": events.Bytes()} {
		for _, needle := range []string{"planted-user", "planted-pass"} {
			if bytes.Contains(hay, []byte(needle)) {
				t.Errorf("%q is in the %s", needle, name)
			}
		}
	}
}
