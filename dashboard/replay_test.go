package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/dashboard"
	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
)

// postReplay posts a replay and returns the status code and, for a
// stream, its events in order.
func postReplay(t *testing.T, url string) (int, []sseEvent) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		return resp.StatusCode, nil
	}
	var evs []sseEvent
	for ev := range readSSE(t, resp) {
		evs = append(evs, ev)
	}
	return resp.StatusCode, evs
}

// TestReplayAPI replays the demo's winner from the data dir in a fresh
// Chromium: each step streams as it is compared, the report says RSR 1,
// and the site received nothing (its one order is still the only one).
func TestReplayAPI(t *testing.T) {
	d := committedRun(t)
	orders := len(demoSite.v.Orders())
	ts := serve(t, openStores(t, d.dir))
	base := ts.URL + "/api/runs/" + d.sum.RunID + "/branches/"
	code, evs := postReplay(t, base+d.sum.Winner.BranchID+"/replay")
	if code != http.StatusOK || len(evs) == 0 {
		t.Fatalf("POST replay: %d, %d events", code, len(evs))
	}
	var steps int
	var res dashboard.ReplayResult
	for _, ev := range evs {
		switch ev.kind {
		case "step":
			var sr replay.StepReport
			if err := json.Unmarshal([]byte(ev.data), &sr); err != nil || !sr.Match {
				t.Errorf("step %s: %v", ev.data, err)
			}
			steps++
		case "report":
			if err := json.Unmarshal([]byte(ev.data), &res); err != nil {
				t.Fatal(err)
			}
		}
	}
	if res.Error != "" || res.Report == nil || res.Report.RSR != 1 || res.Report.TTD != 0 || steps != len(d.sum.Winner.Steps) || len(res.Report.Steps) != steps {
		t.Fatalf("replay: %d steps streamed, result %+v", steps, res)
	}
	if n := len(demoSite.v.Orders()); n != orders {
		t.Errorf("the site holds %d orders after the replay, %d before", n, orders)
	}

	getJSON(t, base+d.sum.Winner.BranchID+"/replay", http.StatusMethodNotAllowed, nil)
}

// TestReplayRefusals: what cannot be replayed is refused before any
// browser starts.
func TestReplayRefusals(t *testing.T) {
	s := newSynthLog(t)
	r := s.start(t, "synthetic")
	r.forks(t, 2)
	r.end(t, "no_boundary")
	st := openStores(t, s.dir)
	ts := serve(t, st)
	base := ts.URL + "/api/runs/" + r.id + "/branches/"
	tests := []struct {
		name, url string
		want      int
	}{
		{"unknown run", ts.URL + "/api/runs/01NOSUCHRUN/branches/" + r.ids[0] + "/replay", http.StatusNotFound},
		{"unknown branch", base + "01NOSUCHBRANCH/replay", http.StatusNotFound},
		{"never executed", base + r.ids[1] + "/replay", http.StatusConflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if code, _ := postReplay(t, tc.url); code != tc.want {
				t.Errorf("POST replay: %d, want %d", code, tc.want)
			}
		})
	}
}

// TestBundleViewer browses one bundle file without a data dir: its run,
// the chain of branches it holds, the winner's steps with screenshots
// served from the bundle's own files, and an empty ledger.
func TestBundleViewer(t *testing.T) {
	d := committedRun(t)
	st := openStores(t, d.dir)
	w := d.sum.Winner
	b, err := replay.Build(context.Background(), replay.Source{Events: st.Events, Store: st.Artifacts, Ledger: st.Ledger}, d.sum.RunID, w.BranchID, bundle.KindBranch)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "winner.bundle")
	if err := bundle.WriteFile(path, b); err != nil {
		t.Fatal(err)
	}
	rb, err := bundle.ReadFile(path, bundle.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	ts := serve(t, dashboard.Stores{Bundle: rb})

	var info dashboard.Info
	getJSON(t, ts.URL+"/api/info", http.StatusOK, &info)
	var runs dashboard.RunList
	getJSON(t, ts.URL+"/api/runs", http.StatusOK, &runs)
	if info.Mode != "bundle" || len(runs.Runs) != 1 || runs.Runs[0].RunID != d.sum.RunID || runs.Runs[0].Task != d.sum.Task ||
		runs.Runs[0].Outcome != dashboard.OutcomeRecorded {
		t.Fatalf("info %+v, runs %+v", info, runs.Runs)
	}
	// A bundle does not change: its stream ends after the snapshot.
	resp, err := http.Get(ts.URL + "/api/runs/" + d.sum.RunID + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for ev := range readSSE(t, resp) {
		kinds = append(kinds, ev.kind)
	}
	resp.Body.Close()
	if strings.Join(kinds, " ") != "snapshot end" {
		t.Errorf("a bundle's stream sent %v, want snapshot and end", kinds)
	}
	var tree dashboard.RunDetail
	getJSON(t, ts.URL+"/api/runs/"+d.sum.RunID, http.StatusOK, &tree)
	if len(tree.Branches) != len(w.Steps) || tree.Branches[len(tree.Branches)-1].ID != w.BranchID {
		t.Fatalf("the bundle's tree has %d branches, want the %d of the winner's chain", len(tree.Branches), len(w.Steps))
	}
	var br dashboard.BranchDetail
	getJSON(t, ts.URL+"/api/runs/"+d.sum.RunID+"/branches/"+w.BranchID, http.StatusOK, &br)
	if len(br.Steps) != len(w.Steps) {
		t.Fatalf("%d steps, want %d", len(br.Steps), len(w.Steps))
	}
	// The run screenshots only the pages a person looks at (here the
	// boundary); any other step's page is rendered by a strict replay.
	rendered := 0
	for _, s := range br.Steps {
		url := ts.URL + "/api/artifacts/" + s.After
		if s.After == "" {
			url = fmt.Sprintf("%s/api/runs/%s/branches/%s/steps/%d/screenshot", ts.URL, d.sum.RunID, w.BranchID, s.Index)
			rendered++
		}
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		// Read to the end: the render's handler has then returned and
		// let go of the one replay at a time.
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" {
			t.Errorf("step %d screenshot: %d %s", s.Index, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	if last := br.Steps[len(br.Steps)-1]; last.After == "" || rendered != len(br.Steps)-1 {
		t.Errorf("recorded screenshots: the boundary's %q, %d of %d steps rendered; want the boundary's only", last.After, rendered, len(br.Steps))
	}
	resp, err = http.Get(fmt.Sprintf("%s/api/runs/%s/branches/%s/steps/%d/screenshot", ts.URL, d.sum.RunID, w.BranchID, len(br.Steps)+1))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a step past the branch's last: %d, want 404", resp.StatusCode)
	}
	var led dashboard.Ledger
	getJSON(t, ts.URL+"/api/ledger", http.StatusOK, &led)
	if len(led.Entries) != 0 || !led.Verify.OK {
		t.Errorf("a bundle's ledger view: %+v", led)
	}
	if code, _ := postReplay(t, ts.URL+"/api/runs/"+d.sum.RunID+"/branches/01OTHERBRANCH/replay"); code != http.StatusNotFound {
		t.Errorf("replay of a branch the bundle does not hold: %d, want 404", code)
	}
}
