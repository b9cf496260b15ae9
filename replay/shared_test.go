package replay_test

import (
	"context"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/internal/sitetest"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/sites"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// explored is one explore-only run of the demo task (four workers, no
// screenshots) against a demo site with a 5 ms latency, made once per
// test binary for the tests that read it: Chromium explores the demo
// once, not once a test. Its data dir is read-only to those tests; one
// that opens it for writing works on a copy (exploredCopy). The site
// keeps its address for the binary's life, behind a handler a test may
// swap for its own time (serveAt): the explored vendor itself, or a
// tripwire standing for the site gone.
type explored struct {
	dir    string
	sum    *orchestrator.Summary
	task   *task.Task
	url    string
	knobs  sites.Knobs
	vendor *sites.Vendor
	srv    *sites.Server
	h      atomic.Pointer[http.Handler]
}

var sharedExplore struct {
	once sync.Once
	e    *explored
	err  error
}

// exploredDemo returns the package's explored demo run, making it on the
// first call; a failed run fails the first caller with its error and
// every later one.
func exploredDemo(t *testing.T) *explored {
	t.Helper()
	sharedExplore.once.Do(func() { sharedExplore.e, sharedExplore.err = exploreDemo() })
	if sharedExplore.err != nil {
		t.Fatalf("the package's shared explore-only demo run failed: %v", sharedExplore.err)
	}
	return sharedExplore.e
}

func exploreDemo() (*explored, error) {
	e := &explored{knobs: sites.DefaultKnobs()}
	e.knobs.Latency = 5 * time.Millisecond
	v, err := sites.NewVendor(sites.VendorOptions{Knobs: e.knobs})
	if err != nil {
		return nil, err
	}
	e.vendor = v
	var h http.Handler = v
	e.h.Store(&h)
	ctx := context.Background()
	if e.srv, err = sites.Serve(ctx, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*e.h.Load()).ServeHTTP(w, r) }),
		"127.0.0.1:0"); err != nil {
		return nil, err
	}
	e.url = e.srv.URL()
	if e.task, err = sitetest.LoadDemo(e.url, nil); err != nil {
		return e, err
	}
	if e.dir, err = os.MkdirTemp("", "mv-replay-explored-"); err != nil {
		return e, err
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	e.sum, err = orchestrator.Run(rctx, orchestrator.Config{Task: e.task, DataDir: e.dir, Workers: 4, NoScreenshots: true, ExploreOnly: true})
	return e, err
}

// closeExplored stops the shared run's site and removes its data dir,
// from TestMain.
func closeExplored() {
	if e := sharedExplore.e; e != nil {
		if e.srv != nil {
			e.srv.Close(context.Background())
		}
		if e.dir != "" {
			os.RemoveAll(e.dir)
		}
	}
}

// serveAt makes h answer at the site's address until the test ends; then
// the explored vendor answers again.
func (e *explored) serveAt(t *testing.T, h http.Handler) {
	t.Helper()
	e.h.Store(&h)
	t.Cleanup(func() {
		var v http.Handler = e.vendor
		e.h.Store(&v)
	})
}

// exploredCopy returns a copy of the shared run's data dir, the test's
// own.
func (e *explored) exploredCopy(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(e.dir)); err != nil {
		t.Fatalf("copying the shared run's data dir: %v", err)
	}
	return dir
}
