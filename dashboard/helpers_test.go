package dashboard_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/dashboard"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/internal/sitetest"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/sites"
)

// demoRun is the run every API test reads: the demo task, committed once
// against the demo site in real Chromium, with screenshots.
type demoRun struct {
	dir string
	sum *orchestrator.Summary
	err error
}

var (
	demoOnce sync.Once
	demo     demoRun
)

// committedRun returns the package's shared demo run, running it the
// first time (about half a minute on two cores).
func committedRun(t *testing.T) demoRun {
	t.Helper()
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	demoOnce.Do(func() {
		demo.dir = demoDir
		url, err := siteURL()
		if err != nil {
			demo.err = err
			return
		}
		demo.sum, demo.err = runDemo(context.Background(), url, demo.dir)
	})
	if demo.err != nil {
		t.Fatalf("demo run: %v", demo.err)
	}
	return demo
}

// demoDir is the shared run's data dir, removed by TestMain.
var demoDir string

// demoSite serves the vendor demo site for the life of the test binary.
var demoSite struct {
	once sync.Once
	v    *sites.Vendor
	url  string
	err  error
}

func siteURL() (string, error) {
	demoSite.once.Do(func() { demoSite.v, demoSite.url, demoSite.err = startSite(sites.Knobs{}) })
	return demoSite.url, demoSite.err
}

// startSite serves a vendor demo site until the test binary exits.
func startSite(k sites.Knobs) (*sites.Vendor, string, error) {
	s, err := sitetest.Serve(k)
	if err != nil {
		return nil, "", err
	}
	return s.Vendor, s.URL(), nil
}

// runDemo runs the demo task against the site at url into dir.
func runDemo(ctx context.Context, url, dir string) (*orchestrator.Summary, error) {
	tk, err := sitetest.LoadDemo(url, nil)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	return orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: dir, Workers: 2})
}

// openStores opens a data dir's stores read-only, as the CLI does.
func openStores(t testing.TB, dir string) dashboard.Stores {
	t.Helper()
	ctx := context.Background()
	el, err := eventlog.OpenReadOnly(ctx, filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { el.Close() })
	st := dashboard.Stores{Events: el, DataDir: dir}
	if l, err := ledger.OpenReadOnly(ctx, filepath.Join(dir, "ledger.db")); err == nil {
		st.Ledger = l
		t.Cleanup(func() { l.Close() })
	}
	// A synthetic data dir gets an empty artifact store.
	if fs, err := artifacts.OpenFS(filepath.Join(dir, "artifacts")); err == nil {
		st.Artifacts = fs
	}
	return st
}

// serve starts the dashboard over st on a test server.
func serve(t testing.TB, st dashboard.Stores, opts ...dashboard.Option) *httptest.Server {
	t.Helper()
	s, err := dashboard.New(st, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts
}

// getJSON gets url, requires status want, and decodes the body into v
// (when not nil).
func getJSON(t testing.TB, url string, want int, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("GET %s: %d, want %d: %s", url, resp.StatusCode, want, body)
	}
	if v != nil {
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("GET %s: %v: %s", url, err, body)
		}
	}
}
