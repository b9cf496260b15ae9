// Package sitetest starts the demo vendor site for a test, on a free
// loopback port (never the examples' fixed address), and loads the
// example demo task pointed at it: the fixture the packages that run
// tasks share.
package sitetest

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/examples"
	"github.com/multiverse-orchestrator/multiverse/sites"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// Site is a served demo vendor.
type Site struct {
	Vendor *sites.Vendor
	Server *sites.Server
}

// URL is the site's base URL (http://127.0.0.1:PORT).
func (s *Site) URL() string { return s.Server.URL() }

// Serve serves a vendor with knobs k on a free port until Close; for
// fixtures that outlive one test (a test binary's shared site).
func Serve(k sites.Knobs) (*Site, error) {
	v, err := sites.NewVendor(sites.VendorOptions{Knobs: k})
	if err != nil {
		return nil, err
	}
	srv, err := sites.Serve(context.Background(), v, "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return &Site{Vendor: v, Server: srv}, nil
}

// Start serves a vendor with knobs k until the test ends.
func Start(t testing.TB, k sites.Knobs) *Site {
	t.Helper()
	s, err := Serve(k)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Server.Close(context.Background()) })
	return s
}

// HTTPTest serves a vendor with knobs k on an httptest server until the
// test ends: for tests that need a handler's URL, not a Site.
func HTTPTest(t testing.TB, k sites.Knobs) *httptest.Server {
	t.Helper()
	v, err := sites.NewVendor(sites.VendorOptions{Knobs: k})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(v)
	t.Cleanup(srv.Close)
	return srv
}

// DemoTask is the example demo task started at url, its source first
// edited by edit when not nil.
func DemoTask(t testing.TB, url string, edit func(string) string) *task.Task {
	t.Helper()
	tk, err := LoadDemo(url, edit)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// LoadDemo is DemoTask for code that reports errors instead of failing a
// test.
func LoadDemo(url string, edit func(string) string) (*task.Task, error) {
	data, err := examples.FS.ReadFile(examples.DemoTask)
	if err != nil {
		return nil, err
	}
	src := string(data)
	if edit != nil {
		src = edit(src)
	}
	tk, err := task.Parse(examples.DemoTask, []byte(src))
	if err != nil {
		return nil, err
	}
	return tk.WithStartURL(url + "/")
}
