package commit

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
)

// TestRefusedEarlier: on a real ledger, a row the site refused (by its
// page or its answer) is never reopened; a row that failed before
// anything was sent, or was aborted as a conflict, may be.
func TestRefusedEarlier(t *testing.T) {
	ctx := context.Background()
	l, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i, tc := range []struct {
		name   string
		state  ledger.State
		ev     ledger.Evidence
		refuse bool
		msg    string
	}{
		{"page refusal", ledger.StateFailed, ledger.Evidence{Refused: &ledger.Refusal{Method: "POST", URL: "/users", Status: 200, Notice: "Error: that e-mail is taken."}}, true, "Error: that e-mail is taken. (the site answered 200 to POST /users)"},
		{"4xx refusal", ledger.StateFailed, ledger.Evidence{Refused: &ledger.Refusal{Method: "POST", URL: "/orders", Status: 422}}, true, "the site answered 422 to POST /orders"},
		{"page refusal without a request", ledger.StateFailed, ledger.Evidence{Refused: &ledger.Refusal{Notice: "Refused."}}, true, "Refused."},
		{"nothing sent", ledger.StateFailed, ledger.Evidence{NotSent: true}, false, ""},
		{"conflict", ledger.StateAborted, ledger.Evidence{Refused: &ledger.Refusal{Method: "POST", URL: "/orders", Status: 409}}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := "commit:site:flow:" + strings.Repeat(string(rune('a'+i)), 64)
			if _, _, err := l.Intent(ctx, ledger.Intent{Key: key, RunID: "run", Site: "site", Flow: "flow", Payload: []byte(`{"n":` + string(rune('0'+i)) + `}`)}); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Attempt(ctx, key); err != nil {
				t.Fatal(err)
			}
			e, err := l.Finalize(ctx, key, ledger.Outcome{State: tc.state, Error: "x", Confirmation: mustJSON(tc.ev)})
			if err != nil {
				t.Fatal(err)
			}
			msg, refused := refusedEarlier(e)
			if refused != tc.refuse || msg != tc.msg {
				t.Fatalf("refusedEarlier = %q, %v; want %q, %v", msg, refused, tc.msg, tc.refuse)
			}
			if !refused {
				if _, err := l.Reopen(ctx, key, "run2"); err != nil {
					t.Errorf("a row the site did not refuse reopens: %v", err)
				}
			}
		})
	}
}
