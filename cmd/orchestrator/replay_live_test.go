package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/internal/sitetest"
	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/sites"
)

// countingSite serves the demo site and counts the non-GET requests that
// reach it, by method and path.
type countingSite struct {
	sitetest.Site

	mu   sync.Mutex
	seen map[string]int
}

func startCountingSite(t *testing.T) *countingSite {
	t.Helper()
	v, err := sites.NewVendor(sites.VendorOptions{Knobs: sites.Knobs{}})
	if err != nil {
		t.Fatal(err)
	}
	s := &countingSite{Site: sitetest.Site{Vendor: v}, seen: map[string]int{}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			s.mu.Lock()
			s.seen[r.Method+" "+r.URL.Path]++
			s.mu.Unlock()
		}
		v.ServeHTTP(w, r)
	})
	if s.Server, err = sites.Serve(context.Background(), h, "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Server.Close(context.Background()) })
	return s
}

func (s *countingSite) reset() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.seen
	s.seen = map[string]int{}
	return old
}

// TestLiveReplayOfCommitSendsNothing commits once against the demo site,
// then replays the sealed commit bundle --live against the same running
// site: no guarded request (POST /orders) reaches the site, the site still
// holds exactly one order, the replay stops at the commit boundary and says
// so, and exits 0. The strict replay of the same bundle still reproduces
// the purchase against the recording at RSR 1.0.
func TestLiveReplayOfCommitSendsNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	site := startCountingSite(t)
	dir := t.TempDir()
	sum := commitSmallTask(t, site.URL(), dir)
	if n := len(site.Vendor.Orders()); n != 1 || sum.Paths.Bundle == "" {
		t.Fatalf("the run placed %d orders, sealed bundle %q", n, sum.Paths.Bundle)
	}
	site.reset()

	var o, e bytes.Buffer
	code := runCLI([]string{"replay", sum.Paths.Bundle, "--live", "--start-url", site.URL() + "/", "--json"}, &o, &e)
	sent := site.reset()
	if sent["POST /orders"] != 0 {
		t.Errorf("the live replay sent POST /orders to the site %d times", sent["POST /orders"])
	}
	if n := len(site.Vendor.Orders()); n != 1 {
		t.Errorf("the site holds %d orders after the live replay, want 1", n)
	}
	var rep replay.Report
	if err := json.Unmarshal(o.Bytes(), &rep); err != nil {
		t.Fatalf("replay --json: %v\n%s%s", err, o.String(), e.String())
	}
	if code != 0 {
		t.Errorf("live replay exit %d, want 0\n%s%s", code, o.String(), e.String())
	}
	if rep.Stop == nil || rep.Stop.Step == 0 || rep.Stop.Step > len(rep.Steps)+1 || !strings.Contains(rep.Stop.Reason, "commit") {
		t.Errorf("the report does not say the replay stopped at the commit boundary: %+v", rep.Stop)
	}
	for _, s := range rep.Steps {
		if strings.Contains(s.Action, "Place order") || strings.Contains(s.Action, "idempotency key") {
			t.Errorf("the live replay ran the committer's step %d (%s)", s.Index, s.Action)
		}
	}
	o.Reset()
	e.Reset()
	code = runCLI([]string{"replay", sum.Paths.Bundle}, &o, &e)
	if code != 0 || !strings.Contains(o.String(), "RSR 1.00") || !strings.Contains(o.String(), "Place order") {
		t.Errorf("strict replay of the commit bundle: exit %d\n%s%s", code, o.String(), e.String())
	}
	if sent := site.reset(); len(sent) != 0 {
		t.Errorf("the strict replay reached the site: %v", sent)
	}
}
