package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// TestErrorLine: the CLI names "orchestrator" once and every package once
// however its errors were wrapped, and adds the next step for a site that
// does not answer.
func TestErrorLine(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"plain", errors.New("disk full"), "orchestrator: disk full"},
		{"orchestrator sentinel", orchestrator.ErrNoBoundary, "orchestrator: no branch reached the commit boundary within budget"},
		{"bad input wrapping an orchestrator error", badInput("%v", fmt.Errorf("orchestrator: commit: %w", errors.New("busy"))),
			"orchestrator: bad input: commit: busy"},
		{"two sentinels of one package", fmt.Errorf("%w: --nats-listen %q: %w", orchestrator.ErrBadInput, "127.0.0.1:4222",
			fmt.Errorf("%w: %w: %s: %w", bus.ErrServerStart, bus.ErrListen, "127.0.0.1:4222", errors.New("bind: address already in use"))),
			`orchestrator: bad input: --nats-listen "127.0.0.1:4222": bus: embedded server failed to start: cannot listen on the address: 127.0.0.1:4222: bind: address already in use`},
		{"more lines", errors.New("first\nsecond"), "orchestrator: first"},
		{"demo site down", &orchestrator.SiteError{URL: "http://127.0.0.1:8555/", Reason: "connection refused"},
			"orchestrator: no site answers at http://127.0.0.1:8555/ (connection refused): start it with `orchestrator site`"},
		{"local site elsewhere", &orchestrator.SiteError{URL: "http://localhost/checkout", Reason: "connection refused"},
			"orchestrator: no site answers at http://localhost/checkout (connection refused): start it with `orchestrator site --addr localhost:80`"},
		{"remote site", &orchestrator.SiteError{URL: "https://shop.example/", Reason: "no such host"},
			"orchestrator: no site answers at https://shop.example/ (no such host): check that the site is up and the address right (or pass --start-url)"},
		{"site lost during exploration", fmt.Errorf("%w; it stopped answering during exploration (all 2 branches)",
			&orchestrator.SiteError{URL: "http://127.0.0.1:8555/", Reason: "connection refused"}),
			"orchestrator: no site answers at http://127.0.0.1:8555/ (connection refused); it stopped answering during exploration (all 2 branches): start it with `orchestrator site`"},
		{"site answers 503", &orchestrator.SiteError{URL: "http://127.0.0.1:8555/", Status: "503 Service Unavailable"},
			"orchestrator: the site at http://127.0.0.1:8555/ answered 503 Service Unavailable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := errorLine(tc.err); got != tc.want {
				t.Errorf("errorLine =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestFailureStderr runs failing commands through the CLI and checks
// their exact stderr and exit code: one line, "orchestrator:" once, the
// next step where there is one.
func TestFailureStderr(t *testing.T) {
	dir := t.TempDir()
	down := refusingURL(t)
	downAddr := strings.TrimPrefix(down, "http://")
	unreachable := exampleAt(t, "procure-team-plan.yaml", down)
	site := startDemoSite(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	busy := taken.Addr().String()
	withLedger := filepath.Join(dir, "ledger-only")
	if err := os.MkdirAll(withLedger, 0o755); err != nil {
		t.Fatal(err)
	}
	led, err := ledger.Open(context.Background(), filepath.Join(withLedger, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	led.Close()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"site down", []string{"run", unreachable, "--data-dir", filepath.Join(dir, "d1"), "--workers", "1"}, orchestrator.ExitSite,
			"orchestrator: no site answers at " + down + "/ (dial tcp " + downAddr + ": connect: connection refused): start it with `orchestrator site --addr " + downAddr + "`\n"},
		{"NATS port taken", []string{"run", "../../examples/procure-team-plan.yaml", "--start-url", site.URL() + "/", "--nats-listen", busy,
			"--data-dir", filepath.Join(dir, "d2"), "--quiet"}, orchestrator.ExitBadInput,
			`orchestrator: bad input: --nats-listen "` + busy + `": bus: embedded server failed to start: cannot listen on the address: ` + busy +
				": listen tcp " + busy + ": bind: address already in use\n"},
		{"unknown run", []string{"events", "01NOPE", "--data-dir", filepath.Join(dir, "d1")}, orchestrator.ExitBadInput,
			"orchestrator: no run 01NOPE in " + filepath.Join(dir, "d1", "events.db") + ": `orchestrator runs` lists the runs\n"},
		{"no bundle file", []string{"validate", filepath.Join(dir, "none.bundle")}, orchestrator.ExitBadInput,
			"orchestrator: bad input: open " + filepath.Join(dir, "none.bundle") + ": no such file or directory\n"},
		{"unknown ledger state", []string{"ledger", "list", "--state", "done", "--data-dir", withLedger}, orchestrator.ExitBadInput,
			`orchestrator: bad input: --state "done": use intent, committed, aborted, failed, compensating, compensated or compensation_failed` + "\n"},
		{"no data dir", []string{"runs", "--data-dir", filepath.Join(dir, "none")}, orchestrator.ExitBadInput,
			"orchestrator: bad input: no events.db in data dir " + filepath.Join(dir, "none") + ": the directory does not exist (run a task first, or pass --data-dir)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, errb.String())
			}
			if errb.String() != tc.want {
				t.Errorf("stderr\n%q\nwant\n%q", errb.String(), tc.want)
			}
		})
	}
}
