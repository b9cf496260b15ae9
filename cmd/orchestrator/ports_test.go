package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/task"
)

// The examples' start_url is the default address of `orchestrator site`,
// where a user's own site may listen: a test never runs an example
// unchanged. It starts its own site (startDemoSite) and passes
// --start-url, or points the task at one of these (porttrap fails the
// package's tests when one reaches the examples' address).

// refusingURL returns the URL of a loopback port nothing listens on: one
// the kernel handed out a moment ago and that was closed again. A run
// against it finds the site down (connection refused).
func refusingURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String()
	ln.Close()
	return u
}

// noRequestURL returns the URL of a site no request may reach, for a
// test whose command must stop before it speaks to the site (bad input):
// a request fails the test.
func noRequestURL(t *testing.T) string {
	t.Helper()
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.CompareAndSwap(nil, r.Method+" "+r.URL.String())
		http.Error(w, "no request may reach this site", http.StatusServiceUnavailable)
	}))
	t.Cleanup(func() {
		srv.Close()
		if r := got.Load(); r != nil {
			t.Errorf("the command sent %s to the site, though it should have stopped before", r)
		}
	})
	return srv.URL
}

// exampleAt writes a copy of the example task file name (in examples/)
// into a temporary directory with its start URL's origin replaced by
// origin, and returns the copy's path. Lines stay where they were.
func exampleAt(t *testing.T, name, origin string) string {
	t.Helper()
	src := filepath.Join("..", "..", "examples", name)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := task.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	old := tk.Origin()
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not spell its origin %s", src, old)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(data), old, strings.TrimSuffix(origin, "/"))), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
