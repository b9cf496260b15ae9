package commit_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/commit"
	"github.com/multiverse-orchestrator/multiverse/scrub"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// capture keeps every event the committer records, as JSON lines.
type capture struct {
	mu    sync.Mutex
	lines []string
}

func (c *capture) Record(_ context.Context, kind, branchID string, payload any, _ ...string) {
	b, _ := json.Marshal(payload)
	c.mu.Lock()
	c.lines = append(c.lines, kind+" "+string(b))
	c.mu.Unlock()
}

// TestPreflightIntentScrubbed: an intent field holding personal data (the
// billing e-mail) that changed between exploration and preflight is
// reported in snapshot_changed and the result's changes as tokens, never
// in clear.
func TestPreflightIntentScrubbed(t *testing.T) {
	f := setup(t)
	const email = "procurement@example.com"
	f.task.Commit.Intent = append(append([]task.IntentField(nil), f.task.Commit.Intent...), task.IntentField{Name: "email", Selector: "[data-field=email]"})
	c := f.committer(t, "run")
	rec := &capture{}
	c.Events = rec
	sc := scrub.New(c.Spec.ScrubKey, nil)
	cand := f.winner()
	cand.Intent = map[string]string{"total": "99.00", "email": sc.Token("old.buyer@example.com")}
	res, err := c.Commit(context.Background(), []commit.Candidate{cand})
	if err != nil {
		t.Fatalf("commit: %v", err)
	}
	all := strings.Join(append(append([]string(nil), rec.lines...), res.Changes...), "\n")
	if !strings.Contains(all, "snapshot_changed") || !strings.Contains(all, "total: 99.00 -> 178.50") {
		t.Fatalf("no snapshot_changed event with the total's change:\n%s", all)
	}
	if strings.Contains(all, email) || strings.Contains(all, "procurement") {
		t.Fatalf("the preflight e-mail is in the committer's events or changes:\n%s", all)
	}
	if !strings.Contains(all, "email: "+sc.Token("old.buyer@example.com")+" -> "+sc.Token(email)) {
		t.Fatalf("the e-mail's change is not reported as tokens:\n%s", all)
	}
}
