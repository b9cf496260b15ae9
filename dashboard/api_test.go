package dashboard_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/dashboard"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/explain"
)

func TestRunsAPI(t *testing.T) {
	d := committedRun(t)
	ts := serve(t, openStores(t, d.dir))
	tests := []struct {
		query string
		want  int
	}{
		{"", 1},
		{"?outcome=committed", 1},
		{"?outcome=no_boundary", 0},
		{"?outcome=running", 0},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			var got dashboard.RunList
			getJSON(t, ts.URL+"/api/runs"+tc.query, http.StatusOK, &got)
			if len(got.Runs) != tc.want {
				t.Fatalf("%d runs, want %d: %+v", len(got.Runs), tc.want, got.Runs)
			}
		})
	}
	var got dashboard.RunList
	getJSON(t, ts.URL+"/api/runs", http.StatusOK, &got)
	r, s := got.Runs[0], d.sum
	want := dashboard.Run{RunID: s.RunID, Task: s.Task, Outcome: "committed", Branches: s.Branches.Forked,
		Winner: s.Winner.BranchID, OrderID: s.Commit.OrderID}
	if r.RunID != want.RunID || r.Task != want.Task || r.Outcome != want.Outcome || r.Branches != want.Branches ||
		r.Winner != want.Winner || r.OrderID != want.OrderID {
		t.Errorf("run = %+v\nwant  %+v", r, want)
	}
	if r.Started.IsZero() || r.DurationMS <= 0 || r.Events < 10 {
		t.Errorf("run has no start, duration or events: %+v", r)
	}
}

func TestRunAPI(t *testing.T) {
	d := committedRun(t)
	ts := serve(t, openStores(t, d.dir))
	var got dashboard.RunDetail
	getJSON(t, ts.URL+"/api/runs/"+d.sum.RunID, http.StatusOK, &got)
	if len(got.Branches) != d.sum.Branches.Forked {
		t.Fatalf("%d branches, want %d", len(got.Branches), d.sum.Branches.Forked)
	}
	ids := map[string]bool{}
	count := map[string]int{}
	for _, b := range got.Branches {
		ids[b.ID] = true
		count[b.Status]++
		switch {
		case b.Parent != "" && !ids[b.Parent]:
			t.Errorf("branch %s: parent %s is not listed before it", b.ID, b.Parent)
		case (b.Status == dashboard.StatusPruned || b.Status == dashboard.StatusFailed) && b.Rule == "":
			t.Errorf("branch %s is %s without a rule", b.ID, b.Status)
		case b.Status == dashboard.StatusWinner && (b.ID != d.sum.Winner.BranchID || b.Rank != 1 || b.J != d.sum.Winner.Score.J):
			t.Errorf("winner %+v, want %s with J %v", b, d.sum.Winner.BranchID, d.sum.Winner.Score.J)
		case b.Depth < 1 || b.Action == "":
			t.Errorf("branch %+v has no depth or action", b)
		}
	}
	c := d.sum.Branches
	// Branches forked but never run are pruned as not selected when the
	// search ends, or still open.
	if count[dashboard.StatusWinner] != 1 || count[dashboard.StatusPruned] != c.Pruned || count[dashboard.StatusFailed] != c.Failed ||
		count[dashboard.StatusOpen] > c.Forked-c.Executed {
		t.Errorf("statuses %v, want 1 winner and the summary's counts %+v", count, c)
	}
	if got.Run.Outcome != "committed" || got.Order == "" || got.Seq < 10 {
		t.Errorf("run %+v, order %q, seq %d", got.Run, got.Order, got.Seq)
	}
	getJSON(t, ts.URL+"/api/runs/01NOSUCHRUN", http.StatusNotFound, nil)
}

func TestBranchAPI(t *testing.T) {
	d := committedRun(t)
	st := openStores(t, d.dir)
	ts := serve(t, st)
	w := d.sum.Winner
	var got dashboard.BranchDetail
	getJSON(t, ts.URL+"/api/runs/"+d.sum.RunID+"/branches/"+w.BranchID, http.StatusOK, &got)
	if len(got.Steps) != len(w.Steps) {
		t.Fatalf("%d steps, want %d", len(got.Steps), len(w.Steps))
	}
	for i, s := range got.Steps {
		switch {
		case s.Action != w.Steps[i]:
			t.Errorf("step %d: action %q, want %q", i+1, s.Action, w.Steps[i])
		case s.Status != "ok" || s.Kind == "" || s.BranchID == "" || s.URL == "":
			t.Errorf("step %d: %+v", i+1, s)
		case (s.After == "") != (i < len(got.Steps)-1):
			// Screenshots where someone looks: the boundary's only.
			t.Errorf("step %d of %d: after screenshot %q, want one at the boundary only", i+1, len(got.Steps), s.After)
		case i > 0 && s.Before != got.Steps[i-1].After:
			t.Errorf("step %d: before %s is not step %d's after %s", i+1, s.Before, i, got.Steps[i-1].After)
		}
	}
	if last := got.Steps[len(got.Steps)-1]; last.BranchID != w.BranchID {
		t.Errorf("the last step was executed by %s, want the branch itself", last.BranchID)
	}
	// The trace of each step: its requests and its snapshots.
	if first := got.Steps[0]; len(first.Network) == 0 || first.Network[0].Method != "GET" || first.Network[0].Status != 200 || first.DOM == "" || first.AX == "" {
		t.Errorf("the first step's network %+v, dom %q, ax %q: want the start page's document and both snapshots", first.Network, first.DOM, first.AX)
	}
	flipped := slices.ContainsFunc(got.Steps, func(s dashboard.Step) bool { return len(s.Flips) > 0 && s.Credit > 0 })
	if !flipped {
		t.Errorf("no step of the winner flipped a predicate with credit: %+v", got.Steps)
	}
	// The explanation is the one `orchestrator events RUN --branch B` prints.
	all, err := st.Events.Events(context.Background(), d.sum.RunID, eventlog.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if want := explain.Branch(all, w.BranchID); !slices.Equal(got.Explain, want) || !strings.Contains(strings.Join(want, "\n"), "won") {
		t.Errorf("explain = %q\nwant %q", got.Explain, want)
	}
	if len(got.Events) == 0 || got.Branch.Status != dashboard.StatusWinner {
		t.Errorf("branch %+v with %d events", got.Branch, len(got.Events))
	}
	getJSON(t, ts.URL+"/api/runs/"+d.sum.RunID+"/branches/01NOSUCHBRANCH", http.StatusNotFound, nil)

	// Deep links take short ids, as the CLI does: the run's prefix in
	// lower case, the branch by its short form (with or without the
	// ellipsis) or in lower case.
	short := strings.ToLower(d.sum.RunID[:12])
	for _, bid := range []string{"…" + w.BranchID[18:], w.BranchID[18:], strings.ToLower(w.BranchID)} {
		var again dashboard.BranchDetail
		getJSON(t, ts.URL+"/api/runs/"+short+"/branches/"+url.PathEscape(bid), http.StatusOK, &again)
		if again.Branch.ID != w.BranchID {
			t.Errorf("branch %s of run %s: got %s, want %s", bid, short, again.Branch.ID, w.BranchID)
		}
	}
	// A prefix every branch of the run shares (their time) names several.
	getJSON(t, ts.URL+"/api/runs/"+d.sum.RunID+"/branches/"+w.BranchID[:6], http.StatusNotFound, nil)
}

func TestArtifactAPI(t *testing.T) {
	d := committedRun(t)
	ts := serve(t, openStores(t, d.dir))
	var b dashboard.BranchDetail
	getJSON(t, ts.URL+"/api/runs/"+d.sum.RunID+"/branches/"+d.sum.Winner.BranchID, http.StatusOK, &b)
	shot := b.Steps[len(b.Steps)-1].After // the boundary's: steps on the way have none
	tests := []struct {
		name, digest string
		code         int
		ctype        string
	}{
		{"screenshot", shot, http.StatusOK, "image/png"},
		{"prefixed", "sha256:" + shot, http.StatusOK, "image/png"},
		{"absent", strings.Repeat("0", 64), http.StatusNotFound, "application/json"},
		{"malformed", "xyz", http.StatusBadRequest, "application/json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Get(ts.URL + "/api/artifacts/" + tc.digest)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.code || !strings.HasPrefix(resp.Header.Get("Content-Type"), tc.ctype) {
				t.Fatalf("%d %s, want %d %s", resp.StatusCode, resp.Header.Get("Content-Type"), tc.code, tc.ctype)
			}
			if tc.code == http.StatusOK {
				if sum := sha256.Sum256(body); hex.EncodeToString(sum[:]) != shot {
					t.Errorf("the body does not hash to its digest")
				}
				if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "sandbox") {
					t.Errorf("artifact served without a sandbox CSP")
				}
			}
		})
	}
}

func TestLedgerAPI(t *testing.T) {
	d := committedRun(t)
	var got dashboard.Ledger
	getJSON(t, serve(t, openStores(t, d.dir)).URL+"/api/ledger", http.StatusOK, &got)
	if len(got.Entries) != 1 || got.Entries[0].OrderID != d.sum.Commit.OrderID || got.Entries[0].State != "committed" {
		t.Fatalf("entries %+v, want the run's committed order %s", got.Entries, d.sum.Commit.OrderID)
	}
	if !got.Verify.OK || got.Verify.Entries != 1 || got.Verify.HeadSeq == 0 || got.Verify.Artifacts == 0 || len(got.Entries[0].Artifacts) == 0 {
		t.Fatalf("verify = %+v", got.Verify)
	}

	// Sealed evidence is served decrypted, as the ledger's digest says.
	e := got.Entries[0]
	if _, sealed := e.Artifacts["invoice.sealed"]; !sealed {
		t.Fatalf("the entry has no sealed invoice: %v", e.Artifacts)
	}
	ts := serve(t, openStores(t, d.dir))
	resp, err := http.Get(ts.URL + "/api/ledger/" + e.ID + "/evidence/invoice")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(artifacts.Sum(body)) != e.Artifacts["invoice"] ||
		!strings.Contains(resp.Header.Get("Content-Security-Policy"), "sandbox") {
		t.Errorf("invoice: %d, %d bytes hashing to %s, want %s under a sandbox", resp.StatusCode, len(body), artifacts.Sum(body), e.Artifacts["invoice"])
	}
	getJSON(t, ts.URL+"/api/ledger/"+e.ID+"/evidence/no_such_document", http.StatusNotFound, nil)

	// A copy missing an evidence artifact fails verification, naming it.
	cp := copyDir(t, d.dir)
	store := openStores(t, cp).Artifacts
	victim := ""
	for _, dg := range got.Entries[0].Artifacts {
		// Sealed evidence is stored under another digest than the one
		// the ledger names; remove one stored as named.
		if os.Remove(store.Path(artifacts.Digest(dg))) == nil {
			victim = dg
			break
		}
	}
	if victim == "" {
		t.Fatalf("no evidence artifact of %v is stored under its digest", got.Entries[0].Artifacts)
	}
	var bad dashboard.Ledger
	getJSON(t, serve(t, openStores(t, cp)).URL+"/api/ledger", http.StatusOK, &bad)
	if bad.Verify.OK || !strings.Contains(strings.Join(bad.Verify.Problems, "\n"), victim[:12]) {
		t.Errorf("verify of a copy missing %s = %+v", victim, bad.Verify)
	}
}

// copyDir copies a data dir (files only, no -shm/-wal needed after the
// run closed its stores).
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, fi.Mode())
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestTimelineAPI: a run's timeline has one span per executed branch, on
// the workers that ran them, in order of time within the run.
func TestTimelineAPI(t *testing.T) {
	d := committedRun(t)
	ts := serve(t, openStores(t, d.dir))
	var tl dashboard.Timeline
	getJSON(t, ts.URL+"/api/runs/"+d.sum.RunID[:12]+"/timeline", http.StatusOK, &tl)
	if len(tl.Spans) != d.sum.Branches.Executed || len(tl.Workers) == 0 || len(tl.Workers) > d.sum.Workers {
		t.Fatalf("%d spans on workers %v; want %d executed branches on at most %d workers", len(tl.Spans), tl.Workers, d.sum.Branches.Executed, d.sum.Workers)
	}
	winner := false
	for _, sp := range tl.Spans {
		if sp.StartMS > sp.EndMS || sp.EndMS > tl.EndMS || sp.Actions == 0 || !slices.Contains(tl.Workers, sp.Worker) {
			t.Errorf("span %+v (timeline ends at %d ms)", sp, tl.EndMS)
		}
		winner = winner || sp.BranchID == d.sum.Winner.BranchID && sp.Status == dashboard.StatusWinner
	}
	if !winner {
		t.Errorf("the winner %s has no span", d.sum.Winner.BranchID)
	}
}
