package rerun_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/internal/sitetest"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/rerun"
	"github.com/multiverse-orchestrator/multiverse/scrub"
	"github.com/multiverse-orchestrator/multiverse/sites"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// recorded is a committed demo run whose site is gone: its address
// answers only a tripwire that counts the requests reaching it.
type recorded struct {
	dir   string
	sum   *orchestrator.Summary
	task  *task.Task
	src   replay.Source
	key   []byte
	trips *atomic.Int64
}

func recordDemo(t *testing.T) *recorded {
	t.Helper()
	k := sites.DefaultKnobs()
	k.Latency = 5 * time.Millisecond
	v, err := sites.NewVendor(sites.VendorOptions{Knobs: k})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	srv, err := sites.Serve(ctx, v, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tk := demoTask(t, srv.URL())
	dir := t.TempDir()
	rctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	sum, err := orchestrator.Run(rctx, orchestrator.Config{Task: tk, DataDir: dir, Workers: 4, NoScreenshots: true, NoCache: true})
	if err != nil || sum.Commit == nil || sum.Commit.OrderID == "" {
		t.Fatalf("recording run: %v (%+v)", err, sum)
	}
	srv.Close(ctx)
	trips := &atomic.Int64{}
	if ln, err := net.Listen("tcp", strings.TrimPrefix(srv.URL(), "http://")); err == nil {
		trip := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			trips.Add(1)
			http.Error(w, "a rerun reached the site", http.StatusTeapot)
		})}
		go trip.Serve(ln)
		t.Cleanup(func() { trip.Close() })
	}
	src, key := sourceOf(t, dir, sum.RunID)
	return &recorded{dir: dir, sum: sum, task: tk, src: src, key: key, trips: trips}
}

// sourceOf opens data dir dir's records read only, until the test ends,
// and reads run runID's scrubbing key.
func sourceOf(t *testing.T, dir, runID string) (replay.Source, []byte) {
	t.Helper()
	el, err := eventlog.OpenReadOnly(context.Background(), filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { el.Close() })
	store, err := artifacts.OpenFS(filepath.Join(dir, "artifacts"))
	if err != nil {
		t.Fatal(err)
	}
	key, err := scrub.ReadKey(dir, runID)
	if err != nil {
		t.Fatal(err)
	}
	return replay.Source{Events: el, Store: store}, key
}

func (r *recorded) rerun(t *testing.T, o rerun.Options) (*rerun.Report, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	o.Source, o.RunID, o.ScrubKey, o.Workers = r.src, r.sum.RunID, r.key, 4
	if o.Task == nil {
		o.Task = r.task
	}
	o.OutDir = t.TempDir()
	return rerun.Run(ctx, o)
}

func report(r *rerun.Report) string {
	var b strings.Builder
	r.Compared.Print(&b, 8)
	for _, m := range r.Misses {
		b.WriteString("miss " + m.String() + "\n")
	}
	return b.String()
}

// TestRerunDemo: with the site gone, a full rerun of the committed demo
// run reproduces every recorded decision and its commit preflight holds
// under the recorded key; a hybrid rerun with another weight reports the
// decisions it changed, and a swap of the review page's price in it makes
// the commit's preflight refuse, as the committer would have. Not one request
// reaches the site's address.
func TestRerunDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	r := recordDemo(t)

	full, err := r.rerun(t, rerun.Options{Mode: rerun.ModeFull})
	if err != nil {
		t.Fatalf("full rerun: %v\n%s", err, report(full))
	}
	if !full.Compared.Same || full.Compared.Original < 40 || len(full.Misses) > 0 {
		t.Fatalf("full rerun did not reproduce the decisions:\n%s", report(full))
	}
	// Children continue their parents' sessions in the recorded world as
	// in the run: a rerun is not all cold.
	if full.Warm == 0 || full.Branches == 0 {
		t.Errorf("full rerun: %d of %d branches warm (the run: %d of %d)", full.Warm, full.Branches, r.sum.Warm, r.sum.Branches.Executed)
	}
	t.Logf("warm branches: rerun %d of %d, run %d of %d", full.Warm, full.Branches, r.sum.Warm, r.sum.Branches.Executed)
	if full.Status != "dry-run" || full.Commit == nil || full.Commit.Key != r.sum.Commit.Key {
		t.Fatalf("full rerun: status %q, commit %+v; the run committed under %s", full.Status, full.Commit, r.sum.Commit.Key)
	}
	if rp := reproduces(t, full); rp == nil || rp.RunID != r.sum.RunID || rp.Mode != "full" {
		t.Errorf("the full rerun's manifest says it reproduces %+v, want run %s", rp, r.sum.RunID)
	}

	// One hybrid rerun with another weight and a swapped review page: it
	// reports the decisions the weight changed, and the swapped page's
	// price makes the commit's preflight refuse. (A full rerun pins the
	// recorded weights whatever the task given says:
	// TestFullRerunPinsTheManifest tests the configuration it runs.)
	weighted := *r.task
	weighted.Weights.Progress *= 0.5
	swap := replay.Swap{Step: 1, URL: "/checkout/review", Body: pricier(t, r)}
	swapped, err := r.rerun(t, rerun.Options{Mode: rerun.ModeHybrid, Task: &weighted, Swaps: []replay.Swap{swap}})
	if err != nil {
		t.Fatalf("hybrid rerun: %v", err)
	}
	c := swapped.Compared
	if c.Same || len(c.OnlyOriginal) == 0 || len(c.OnlyRerun) == 0 || c.Want == nil || c.Got == nil {
		t.Fatalf("a halved progress weight changed no decision:\n%s", report(swapped))
	}
	if swapped.ExitCode != orchestrator.ExitAborted || !strings.Contains(swapped.Error, "total_within_budget") || swapped.Commit == nil ||
		swapped.Commit.Key != "" {
		t.Fatalf("a review page over budget: exit %d, error %q, commit %+v", swapped.ExitCode, swapped.Error, swapped.Commit)
	}
	// Swaps that name nothing the run holds are refused before any browser.
	if _, err := r.rerun(t, rerun.Options{Mode: rerun.ModeHybrid, Swaps: []replay.Swap{{Step: 1, URL: "/no-such-page", Body: []byte("x")}}}); !errors.Is(err, replay.ErrSwap) {
		t.Errorf("a swap of a page never recorded: %v", err)
	}
	bad := rerun.ActionSwap{BranchID: r.sum.Winner.BranchID, Step: 99, With: branch.Action{Kind: branch.KindClick}}
	if _, err := r.rerun(t, rerun.Options{Mode: rerun.ModeHybrid, ActionSwaps: []rerun.ActionSwap{bad}}); !errors.Is(err, rerun.ErrBadSwap) {
		t.Errorf("an action swap past the branch's steps: %v", err)
	}
	other := *r.task
	other.Goal.Text = "Buy something else."
	if _, err := r.rerun(t, rerun.Options{Mode: rerun.ModeFull, Task: &other}); !errors.Is(err, rerun.ErrTaskChanged) {
		t.Errorf("another task: %v", err)
	}
	if n := r.trips.Load(); n > 0 {
		t.Fatalf("%d requests of the reruns reached the site's address", n)
	}
}

// reproduces is what a rerun's own manifest (its run_start) says it
// reproduces.
func reproduces(t *testing.T, rep *rerun.Report) *payload.Reproduction {
	t.Helper()
	l, err := eventlog.OpenReadOnly(context.Background(), filepath.Join(rep.OutDir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	es, err := l.Events(context.Background(), rep.RerunID, eventlog.Query{Kinds: []string{eventlog.KindRunStart}})
	if err != nil || len(es) != 1 {
		t.Fatalf("the rerun's run_start: %d events, %v", len(es), err)
	}
	m, err := payload.Decode[payload.RunStart](es[0])
	if err != nil {
		t.Fatal(err)
	}
	return m.Reproduces
}

// pricier is the recorded review page with its total over the task's
// budget of 200.
func pricier(t *testing.T, r *recorded) []byte {
	t.Helper()
	evs, err := r.src.Events.Events(context.Background(), r.sum.RunID, eventlog.Query{Kinds: []string{eventlog.KindNet}})
	if err != nil {
		t.Fatal(err)
	}
	amount := regexp.MustCompile(`data-amount="[0-9.]+"`)
	for _, e := range evs {
		n, err := payload.Decode[payload.Net](e)
		if err != nil || !strings.Contains(n.URL, "/checkout/review") || n.BodyHash == "" || n.Status != 200 {
			continue
		}
		body, err := r.src.Store.Get(context.Background(), artifacts.Digest(n.BodyHash))
		if err != nil || !amount.Match(body) {
			continue
		}
		return amount.ReplaceAll(body, []byte(`data-amount="999.00"`))
	}
	t.Fatal("no recorded review page shows a total")
	return nil
}

func demoTask(t *testing.T, url string) *task.Task { return sitetest.DemoTask(t, url, nil) }
