package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

func TestServeBadInput(t *testing.T) {
	t.Setenv(tokenEnv, "") // a token in the environment would let a non-loopback address pass
	empty := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"serve", "--bogus"}, "unknown flag --bogus"},
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

// TestServePortTaken: an address another process listens on is bad input
// that names --addr and how to get a free port.
func TestServePortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := t.TempDir()
	writeEmptyRunLog(t, dir)
	var o, e bytes.Buffer
	code := run(context.Background(), []string{"serve", "--data-dir", dir, "--addr", ln.Addr().String()}, &o, &e)
	if code != orchestrator.ExitBadInput || !strings.Contains(e.String(), "is taken") || !strings.Contains(e.String(), "--addr 127.0.0.1:0") {
		t.Errorf("exit %d, stderr %q; want %d naming --addr", code, e.String(), orchestrator.ExitBadInput)
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

// TestServeToken: the dashboard's token comes from --token, a token file
// (bounded, trimmed, regular) or MULTIVERSE_TOKEN, in that order; both
// flags at once, and a token file that cannot be a token, are bad input
// naming the file.
func TestServeToken(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("token", "  s3cr3t-token\n")
	empty := write("empty", " \n\t\n")
	lines := write("lines", "one\ntwo\n")
	big := write("big", strings.Repeat("x", maxTokenBytes+1))
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == tokenEnv {
				return v
			}
			return ""
		}
	}
	cases := []struct {
		name, flag, file, env string
		want, err             string
	}{
		{"none", "", "", "", "", ""},
		{"flag", "flag-token", "", "env-token", "flag-token", ""},
		{"file", "", good, "env-token", "s3cr3t-token", ""},
		{"environment", "", "", " env-token\n", "env-token", ""},
		{"flag and file", "flag-token", good, "", "", "--token and --token-file"},
		{"empty file", "", empty, "", "", empty + ": empty"},
		{"two lines", "", lines, "", "", lines + ": holds more than one line"},
		{"too big", "", big, "", "", big + ": longer than 4096 bytes"},
		{"missing", "", filepath.Join(dir, "none"), "", "", "no such file"},
		{"directory", "", dir, "", "", "not a regular file (a directory)"},
		{"fifo", "", fifo, "", "", "not a regular file (a FIFO)"},
		{"device", "", "/dev/zero", "", "", "not a regular file (a character device)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan struct{})
			var got string
			var err error
			go func() { got, err = serveToken(c.flag, c.file, env(c.env)); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("reading the token from %s did not end", c.file)
			}
			if c.err == "" {
				if err != nil || got != c.want {
					t.Fatalf("token %q, %v; want %q", got, err, c.want)
				}
				return
			}
			if err == nil || orchestrator.ExitCode(err) != orchestrator.ExitBadInput || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("err = %v (exit %d), want bad input with %q", err, orchestrator.ExitCode(err), c.err)
			}
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Fatalf("the error shows the token: %v", err)
			}
		})
	}
}

// TestServeTokenFromFileAndEnv: serve started with --token-file, or with
// MULTIVERSE_TOKEN, refuses a request without the token and answers one
// with it; a non-loopback address is accepted with either.
func TestServeTokenFromFileAndEnv(t *testing.T) {
	dir := t.TempDir()
	writeEmptyRunLog(t, dir)
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("file-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, env, token string
		args             []string
	}{
		{"file", "", "file-token", []string{"--token-file", file}},
		{"environment", "env-token", "env-token", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(tokenEnv, c.env)
			addr := freeAddr(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			code := make(chan int, 1)
			var o, e bytes.Buffer
			args := append([]string{"serve", "--data-dir", dir, "--addr", addr}, c.args...)
			go func() { code <- run(ctx, args, &o, &e) }()
			status := func(token string) int {
				req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api/runs", nil)
				if token != "" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					return 0
				}
				resp.Body.Close()
				return resp.StatusCode
			}
			var with int
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && with == 0; time.Sleep(50 * time.Millisecond) {
				with = status(c.token)
			}
			if with != http.StatusOK {
				t.Fatalf("with the token: status %d (%s)", with, e.String())
			}
			if s := status(""); s != http.StatusUnauthorized {
				t.Errorf("without the token: status %d", s)
			}
			if s := status("wrong"); s != http.StatusUnauthorized {
				t.Errorf("with a wrong token: status %d", s)
			}
			cancel()
			if c := <-code; c != 0 {
				t.Errorf("serve exit %d: %s", c, e.String())
			}
		})
	}
	// A non-loopback address passes the check with a token from either.
	t.Setenv(tokenEnv, "")
	var o, e bytes.Buffer
	// (the data dir is not one: serve stops there, before it listens)
	if code := runCLI([]string{"serve", "--addr", "0.0.0.0:0", "--token-file", file, "--data-dir", t.TempDir()}, &o, &e); !strings.Contains(e.String(), "not a Multiverse data dir") {
		t.Errorf("a token file does not count for a non-loopback address: exit %d, %s", code, e.String())
	}
	t.Setenv(tokenEnv, "env-token")
	e.Reset()
	if code := runCLI([]string{"serve", "--addr", "0.0.0.0:0", "--data-dir", t.TempDir()}, &o, &e); !strings.Contains(e.String(), "not a Multiverse data dir") {
		t.Errorf("%s does not count for a non-loopback address: exit %d, %s", tokenEnv, code, e.String())
	}
}

// freeAddr returns a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return fmt.Sprint(ln.Addr())
}
