package commit_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/commit"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// TestProbeReachesTheSiteTheBrowserDid asks the confirm probe of a site
// served over TLS by a private certificate authority under a name only the
// run's resolver rules know: through the run's site client it finds the
// order, through the default client it cannot (and reports nothing rather
// than a wrong answer).
func TestProbeReachesTheSiteTheBrowserDid(t *testing.T) {
	const key = "commit:shop:plan:abc"
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/orders" || r.URL.Query().Get("client_reference") != key {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"orders":[{"id":"ORD-7"}]}`))
	}))
	defer srv.Close()
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	tk := &task.Task{StartURL: "https://shop.multiverse.test:" + port + "/", Commit: &task.Commit{}}
	tk.Commit.Confirm.Probe = task.Probe{URL: "/api/orders?client_reference={key}", JSON: "orders.0.id"}
	opts := browser.Options{Resolve: map[string]string{"shop.multiverse.test": "127.0.0.1"}}

	ctx := context.Background()
	if id, ok, err := commit.Probe(ctx, opts.HTTPClient(true), tk, key); !ok || id != "ORD-7" || err != nil {
		t.Fatalf("Probe through the run's site client = %q, %v, %v; want ORD-7, true", id, ok, err)
	}
	if id, ok, err := commit.Probe(ctx, nil, tk, key); ok || !errors.Is(err, commit.ErrProbeUnanswered) {
		t.Fatalf("Probe through the default client = %q, %v, %v: it cannot resolve or trust the site, so it cannot tell", id, ok, err)
	}
}
