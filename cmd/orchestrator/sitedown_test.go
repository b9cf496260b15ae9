package main

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/sites"
)

// TestSiteDiesMidRun: the demo site answers the start page, then stops for
// good as soon as exploration reaches its pricing page. Every branch after
// that fails to connect, and the run says the site is unreachable (exit
// 6), not that no branch reached the boundary (exit 3).
func TestSiteDiesMidRun(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	k := sites.DefaultKnobs()
	k.Latency = 0
	v, err := sites.NewVendor(sites.VendorOptions{Knobs: k})
	if err != nil {
		t.Fatal(err)
	}
	var srv *sites.Server
	var once sync.Once
	stopped := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v.ServeHTTP(w, r)
		if strings.HasPrefix(r.URL.Path, "/pricing") {
			once.Do(func() {
				go func() {
					defer close(stopped)
					srv.Close(context.Background())
				}()
			})
		}
	})
	if srv, err = sites.Serve(context.Background(), h, "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(context.Background()) })
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	start := time.Now()
	code := run(ctx, []string{"run", "../../examples/procure-team-plan.yaml", "--start-url", srv.URL() + "/",
		"--data-dir", filepath.Join(t.TempDir(), "data"), "--workers", "2", "--quiet", "--no-screenshots"}, &out, &errb)
	select {
	case <-stopped:
	default:
		t.Fatalf("the site never served its pricing page; exit %d, stderr: %s", code, errb.String())
	}
	t.Logf("exit %d after %s: %s", code, time.Since(start).Round(time.Millisecond), strings.TrimSpace(errb.String()))
	if code != orchestrator.ExitSite {
		t.Fatalf("exit code %d, want %d (site unreachable); stderr: %s", code, orchestrator.ExitSite, errb.String())
	}
	if !strings.Contains(errb.String(), "no site answers at") || !strings.Contains(errb.String(), "during exploration") {
		t.Fatalf("stderr = %q, want it to say the site became unreachable during exploration", errb.String())
	}
}
