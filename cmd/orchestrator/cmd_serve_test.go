package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

func TestServeBadInput(t *testing.T) {
	empty := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"serve", "--bogus"}, "flag provided but not defined"},
		{"positional", []string{"serve", "extra"}, "usage: orchestrator serve"},
		{"non-loopback", []string{"serve", "--addr", "0.0.0.0:0", "--data-dir", empty}, "non-loopback"},
		{"no port", []string{"serve", "--addr", "127.0.0.1"}, "--addr"},
		{"no data dir", []string{"serve", "--data-dir", empty + "/nope"}, "does not exist"},
		{"not a data dir", []string{"serve", "--data-dir", empty}, "not a Multiverse data dir"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var o, e bytes.Buffer
			if code := runCLI(tc.args, &o, &e); code != orchestrator.ExitBadInput || !strings.Contains(e.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, e.String(), orchestrator.ExitBadInput, tc.want)
			}
		})
	}
}

// TestServeStopsOnCancel serves a data dir on a free loopback port,
// answers the API, and returns 0 when its context is cancelled.
func TestServeStopsOnCancel(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	writeEmptyRunLog(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int, 1)
	var o, e bytes.Buffer
	go func() { code <- run(ctx, []string{"serve", "--data-dir", dir, "--addr", addr}, &o, &e) }()
	var body string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/api/runs")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body = string(b)
		break
	}
	if !strings.Contains(body, `"runs":[]`) {
		t.Errorf("GET /api/runs = %q", body)
	}
	cancel()
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("serve exit %d: %s", c, e.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop after its context was cancelled")
	}
}

// writeEmptyRunLog creates a data dir's event log holding no run.
func writeEmptyRunLog(t *testing.T, dir string) {
	t.Helper()
	l, err := eventlog.Open(context.Background(), filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
}
