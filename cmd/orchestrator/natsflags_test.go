package main

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// TestNATSFlags: a listen address or a replica count the embedded NATS
// server cannot use is bad input naming the flag, refused before the run
// starts (the task's site is down, so a run that started would exit 6).
func TestNATSFlags(t *testing.T) {
	task := exampleAt(t, "procure-team-plan.yaml", refusingURL(t))
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"port out of range", []string{"--nats-listen", "127.0.0.1:99999"}, orchestrator.ExitBadInput, `--nats-listen "127.0.0.1:99999": port "99999" is not a number in 0..65535`},
		{"no port", []string{"--nats-listen", "127.0.0.1"}, orchestrator.ExitBadInput, `--nats-listen "127.0.0.1" is not HOST:PORT`},
		{"listen and join", []string{"--nats-listen", ":4222", "--nats", "nats://127.0.0.1:4222"}, orchestrator.ExitBadInput, "give one of them"},
		{"replicas on the embedded server", []string{"--replicas", "3"}, orchestrator.ExitBadInput, "--replicas 3 needs a JetStream cluster of at least 3 servers"},
		{"negative replicas", []string{"--replicas", "-1"}, orchestrator.ExitBadInput, "--replicas -1 is not in 1..5"},
		{"too many replicas", []string{"--replicas", "7", "--nats", "nats://127.0.0.1:1"}, orchestrator.ExitBadInput, "--replicas 7 is not in 1..5"},
		{"one replica", []string{"--replicas", "1", "--nats-listen", "127.0.0.1:0"}, orchestrator.ExitSite, "connection refused"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			args := append([]string{"run", task, "--workers", "1", "--data-dir", filepath.Join(dir, "d")}, c.args...)
			if code := run(context.Background(), args, &out, &errb); code != c.code {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, c.code, errb.String())
			}
			if !strings.Contains(errb.String(), c.want) {
				t.Fatalf("stderr %q does not contain %q", errb.String(), c.want)
			}
		})
	}
}

// TestNATSListenPortTaken: a --nats-listen address another process holds
// is bad input naming the flag and the address, not an internal error.
func TestNATSListenPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	site := startDemoSite(t)
	var out, errb bytes.Buffer
	args := []string{"run", smallTask(t), "--workers", "1", "--data-dir", t.TempDir(),
		"--start-url", site.URL() + "/checkout?plan=team&billing=monthly", "--nats-listen", ln.Addr().String()}
	if code := run(context.Background(), args, &out, &errb); code != orchestrator.ExitBadInput {
		t.Fatalf("exit code %d, want %d; stderr: %s", code, orchestrator.ExitBadInput, errb.String())
	}
	want := `--nats-listen "` + ln.Addr().String() + `"`
	if !strings.Contains(errb.String(), want) || !strings.Contains(errb.String(), "address already in use") {
		t.Fatalf("stderr %q does not name %s and why", errb.String(), want)
	}
	if n := len(site.Vendor.Orders()); n != 0 {
		t.Fatalf("the site holds %d orders", n)
	}
}
