package browser_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// TestDialogAnswers: a native confirm is dismissed unless the action says
// accept; each observation reports the dialogs its step raised, how they
// were answered, and their text scrubbed of personal data; an alert does
// not count as a question refused.
func TestDialogAnswers(t *testing.T) {
	srv := httptest.NewServer(http.FileServer(http.Dir("testdata")))
	defer srv.Close()
	s := sessionWith(t, browser.SessionOptions{Env: browser.Env{ActionTimeout: 5 * time.Second},
		RunSeed: 1, Origin: srv.URL, Scrub: scrub.New(scrub.NewKey(), nil)})
	do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/dialogs.html"})
	steps := []struct {
		action  branch.Action
		state   string
		answer  string
		refused bool
	}{
		{click("export"), "kept", branch.DialogDismiss, true},
		{branch.Action{Kind: branch.KindClick, Target: &branch.Target{TestID: "export"}, Dialog: branch.DialogAccept}, "exported", branch.DialogAccept, false},
		{click("note"), "noted", branch.DialogDismiss, false},
	}
	for i, st := range steps {
		if r := do(t, s, st.action); r.Status != branch.StatusOK {
			t.Fatalf("step %d: %+v", i, r)
		}
		snap, err := s.Observe(context.Background(), browser.ObserveSpec{})
		if err != nil {
			t.Fatal(err)
		}
		v, _, _ := s.Read(context.Background(), "#state", "")
		if v != st.state {
			t.Errorf("step %d: page says %q, want %q", i, v, st.state)
		}
		ds := snap.Obs.Dialogs
		if len(ds) != 1 || ds[0].Answer != st.answer || ds[0].Refused() != st.refused {
			t.Fatalf("step %d: dialogs %+v, want one answered %s", i, ds, st.answer)
		}
		if strings.Contains(ds[0].Message, "ana@example.com") {
			t.Errorf("step %d: dialog text in clear: %q", i, ds[0].Message)
		}
	}
	snap, _ := s.Observe(context.Background(), browser.ObserveSpec{})
	if len(snap.Obs.Dialogs) != 0 {
		t.Errorf("a second observation reports the dialogs again: %+v", snap.Obs.Dialogs)
	}
}
