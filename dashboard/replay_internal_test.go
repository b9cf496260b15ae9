package dashboard

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
)

// TestReplayOneAtATime: while a replay runs, another of a branch that
// has a bundle is refused with 409 before Chromium is launched.
func TestReplayOneAtATime(t *testing.T) {
	s, err := New(Stores{Bundle: &bundle.Bundle{Manifest: bundle.Manifest{RunID: "r", BranchID: "b"}, Events: []eventlog.Event{
		{RunID: "r", Seq: 1, Kind: eventlog.KindRunStart},
		{RunID: "r", Seq: 2, Kind: eventlog.KindBranchFork, BranchID: "b"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	s.replays <- struct{}{} // a replay in progress
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodPost, "http://127.0.0.1/api/runs/r/branches/b/replay", nil))
	if w.Code != http.StatusConflict {
		t.Errorf("a second replay: %d %s, want 409", w.Code, w.Body)
	}
}
