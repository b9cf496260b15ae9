package sites

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestServe(t *testing.T) {
	v := newVendor(t, Knobs{HangPaths: []string{"/hang"}})
	arrived := make(chan struct{}, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hang" {
			arrived <- struct{}{}
		}
		v.ServeHTTP(w, r)
	})
	ctx := context.Background()
	s, err := Serve(ctx, h, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") || strings.HasSuffix(s.URL(), "/") {
		t.Fatalf("URL = %q", s.URL())
	}
	resp, err := http.Get(s.URL() + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "Nimbus Cloud") {
		t.Fatalf("GET /: %d", resp.StatusCode)
	}

	// A hanging request must not keep Close waiting: Close cancels it.
	hung := make(chan error, 1)
	go func() {
		resp, err := http.Get(s.URL() + "/hang")
		if err == nil {
			resp.Body.Close()
		}
		hung <- err
	}()
	select {
	case <-arrived:
	case <-time.After(5 * time.Second):
		t.Fatal("hanging request never reached the server")
	}
	closeCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := s.Close(closeCtx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("Close took %s", el)
	}
	select {
	case <-hung:
	case <-time.After(5 * time.Second):
		t.Fatal("hanging client was not released by Close")
	}
	if _, err := http.Get(s.URL() + "/"); err == nil {
		t.Fatal("server still answers after Close")
	}
	if err := s.Close(closeCtx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestServeErrors(t *testing.T) {
	if _, err := Serve(context.Background(), nil, ""); err == nil {
		t.Fatal("nil handler accepted")
	}
	s, err := Serve(context.Background(), http.NotFoundHandler(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	addr := strings.TrimPrefix(s.URL(), "http://")
	if _, err := Serve(context.Background(), http.NotFoundHandler(), addr); err == nil || !strings.Contains(err.Error(), "sites: listen") {
		t.Fatalf("second listen on %s: %v", addr, err)
	}
}
