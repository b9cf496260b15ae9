package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"regexp"
	"testing"
	"time"
)

// TestSiteCMS serves the admin test site with `site --cms` on a free port
// and checks it answers as the CMS (the admin behind its login).
func TestSiteCMS(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- cmdSite(ctx, []string{"--cms", "--addr", "127.0.0.1:0", "--latency", "0s"}, w, io.Discard)
		w.Close()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("read the banner: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	base := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(line)
	if base == "" {
		t.Fatalf("banner without URL: %q", line)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(base + "/admin/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound || res.Header.Get("Location") != "/login?next=%2Fadmin%2F" {
		t.Fatalf("GET /admin/: %d %q, want 302 to the login", res.StatusCode, res.Header.Get("Location"))
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("site: %v", err)
	}
}
