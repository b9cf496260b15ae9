package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// TestVerifyFailedRowWithPlacedOrder: a row finalized failed although its
// submit transcript shows the site accepted the order (what a committer
// that gave up on a slow confirmation used to write) fails ledger verify,
// naming the row and why; a failed row backed by the site's refusal is
// not flagged.
func TestVerifyFailedRowWithPlacedOrder(t *testing.T) {
	ctx := context.Background()
	post := func(status int) branch.NetRecord {
		return branch.NetRecord{Method: "POST", URL: "{origin}/orders", Status: status}
	}
	for _, tc := range []struct {
		name     string
		requests []branch.NetRecord
		evidence any
		fails    string
	}{
		{"placed, recorded failed", []branch.NetRecord{post(303)}, nil, "the site accepted POST {origin}/orders (303): it may hold the order"},
		{"placed, recorded refused", []branch.NetRecord{post(303), post(422)}, ledger.Evidence{Refused: &ledger.Refusal{Method: "POST", URL: "{origin}/orders", Status: 422}}, "the site accepted POST {origin}/orders (303)"},
		{"refusal not in the transcript", []branch.NetRecord{post(500)}, ledger.Evidence{Refused: &ledger.Refusal{Method: "POST", URL: "{origin}/orders", Status: 422}}, "holds no such answer"},
		{"refused", []branch.NetRecord{post(422)}, ledger.Evidence{Refused: &ledger.Refusal{Method: "POST", URL: "{origin}/orders", Status: 422}}, ""},
		{"not sent", nil, ledger.Evidence{NotSent: true}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			store, err := artifacts.OpenFS(filepath.Join(dir, "artifacts"))
			if err != nil {
				t.Fatal(err)
			}
			transcript, _ := json.Marshal(tc.requests)
			d, err := store.Put(ctx, transcript)
			if err != nil {
				t.Fatal(err)
			}
			elog, err := eventlog.Open(ctx, filepath.Join(dir, "events.db"))
			if err != nil {
				t.Fatal(err)
			}
			elog.Close()
			l, err := ledger.Open(ctx, filepath.Join(dir, "ledger.db"))
			if err != nil {
				t.Fatal(err)
			}
			key := "commit:nimbus-demo:team-plan:" + strings.Repeat("ab", 32)
			e, _, err := l.Intent(ctx, ledger.Intent{Key: key, RunID: "run", Site: "nimbus-demo", Flow: "team-plan", Payload: json.RawMessage(`{"plan":"Team"}`)})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Attempt(ctx, key); err != nil {
				t.Fatal(err)
			}
			out := ledger.Outcome{State: ledger.StateFailed, Error: "the commit action failed: timeout", Artifacts: map[string]string{"submit_transcript": string(d)}}
			if tc.evidence != nil {
				out.Confirmation, _ = json.Marshal(tc.evidence)
			}
			if _, err := l.Finalize(ctx, key, out); err != nil {
				t.Fatal(err)
			}
			l.Close()
			var o, se bytes.Buffer
			code := runCLI([]string{"ledger", "verify", "--data-dir", dir}, &o, &se)
			got := o.String() + se.String()
			if tc.fails == "" {
				// The row is not anchored to an event log (verify says so);
				// its outcome is backed.
				if strings.Contains(got, "outcome:") {
					t.Fatalf("verify flags a backed outcome: exit %d\n%s", code, got)
				}
				return
			}
			if code != orchestrator.ExitVerify || !strings.Contains(got, e.ID) || !strings.Contains(got, tc.fails) {
				t.Fatalf("verify: exit %d, want %d naming row %s and %q\n%s", code, orchestrator.ExitVerify, e.ID, tc.fails, got)
			}
		})
	}
}
