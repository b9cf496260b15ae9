package replay_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// brokenPixelSite is two pages; the second shows an image from an address
// that refuses connections, so the recording holds that request as failed,
// with no response.
func brokenPixelSite(pixel string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>Home</title></head><body><main><h1>Home</h1><a href="/next">Next page</a></main></body></html>`)
	})
	mux.HandleFunc("/next", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Next</title></head><body><main><h1>Next</h1><img alt="" src="%s/pixel.png"><p data-field="done">Done</p></main></body></html>`, pixel)
	})
	return mux
}

const brokenPixelTask = `version: 1
name: broken-pixel
start_url: %s/
seed: 3
goal:
  text: Open the next page.
  success:
    - name: next_shown
      url_matches: '/next'
budgets:
  wall_clock: 1m
  steps_per_branch: 3
  total_branches: 10
search:
  strategy: beam
  beam_width: 2
  max_children: 2
  workers: 2
`

// refusingAddr is the address of a loopback port nothing listens on (one
// that was free a moment ago; Chromium refuses well-known ports itself).
func refusingAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// TestFailOnUnrecordedIsAGate: a page whose image failed at capture
// replays at RSR 1.0 (the proxy refuses the request, which fails as it
// did), with FailOnUnrecorded too, since the recording holds that request.
// With the request taken out of the recording (as if the page had gained
// it since), the plain strict replay still passes at RSR 1.0, and with
// FailOnUnrecorded it fails with ErrUnrecorded alone.
func TestFailOnUnrecordedIsAGate(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	srv := httptest.NewServer(brokenPixelSite(refusingAddr(t)))
	defer srv.Close()
	tk, err := task.Parse("broken-pixel.yaml", []byte(fmt.Sprintf(brokenPixelTask, srv.URL)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sum, err := orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: t.TempDir(), Workers: 2, NoScreenshots: true})
	if err != nil || sum.Paths.Bundle == "" {
		t.Fatalf("run: %v, winner bundle %q", err, sum.Paths.Bundle)
	}
	b, err := bundle.ReadFile(sum.Paths.Bundle, bundle.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	rep, err := replay.Replay(ctx, runtime(t), b, replay.Options{})
	if err != nil || rep.RSR != 1 || len(rep.Unrecorded) == 0 {
		t.Fatalf("plain strict replay: RSR %.2f, unrecorded %v, %v; want RSR 1.0 with the pixel unrecorded\n%s", repRSR(rep), rep.Unrecorded, err, repDiff(rep))
	}
	if rep, err = replay.Replay(ctx, runtime(t), b, replay.Options{FailOnUnrecorded: true}); err != nil {
		t.Fatalf("replay with FailOnUnrecorded of a request that failed at capture: %v (RSR %.2f)", err, repRSR(rep))
	}
	kept := b.Network[:0]
	for _, e := range b.Network {
		if !strings.HasSuffix(e.URL, "/pixel.png") {
			kept = append(kept, e)
		}
	}
	if len(kept) == len(b.Network) {
		t.Fatalf("the recording holds no pixel request: %+v", b.Network)
	}
	b.Network = kept
	if rep, err = replay.Replay(ctx, runtime(t), b, replay.Options{}); err != nil || rep.RSR != 1 {
		t.Fatalf("plain strict replay without the pixel in the recording: %v (RSR %.2f)", err, repRSR(rep))
	}
	rep, err = replay.Replay(ctx, runtime(t), b, replay.Options{FailOnUnrecorded: true})
	if !errors.Is(err, replay.ErrUnrecorded) || errors.Is(err, replay.ErrDiverged) || rep == nil || rep.RSR != 1 {
		t.Fatalf("replay with FailOnUnrecorded: %v (RSR %.2f), want ErrUnrecorded alone", err, repRSR(rep))
	}
}
