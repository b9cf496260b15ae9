package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// TestBadInput checks that every kind of bad input gets one clear line
// naming the problem and where it is, and its own exit code.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Every task points at a site of its own: none to reach (bad input
	// stops first), or one that refuses.
	good, err := os.ReadFile(exampleAt(t, "procure-team-plan.yaml", noRequestURL(t)))
	if err != nil {
		t.Fatal(err)
	}
	down, err := os.ReadFile(exampleAt(t, "procure-team-plan.yaml", refusingURL(t)))
	if err != nil {
		t.Fatal(err)
	}
	malformed := write("malformed.yaml", "start_url: "+noRequestURL(t)+"/\ngoal:\n  success:\n    - {name: x, url_matches: /x\n")
	unknown := write("unknown.yaml", strings.Replace(string(good), "url_matches: '/pricing'", "looks_like: '/pricing'", 1))
	unreachable := write("unreachable.yaml", string(down))
	model := write("model.yaml", strings.Replace(string(good), "\nplanner:\n", "\nplanner:\n  proposer: llm\n  model: m\n  base_url: "+noRequestURL(t)+"/v1\n", 1))
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no command", nil, orchestrator.ExitBadInput, ""},
		{"unknown command", []string{"fly"}, orchestrator.ExitBadInput, "unknown command"},
		{"missing file", []string{"run", filepath.Join(dir, "none.yaml")}, orchestrator.ExitBadInput, "none.yaml"},
		{"malformed yaml", []string{"run", malformed}, orchestrator.ExitBadInput, "malformed.yaml:4: malformed YAML"},
		{"unknown predicate", []string{"run", unknown}, orchestrator.ExitBadInput, "unknown.yaml:19: goal.milestones[0].looks_like: unknown predicate kind"},
		{"bad seed", []string{"run", unknown, "--seed", "x"}, orchestrator.ExitBadInput, ""},
		{"bad flag", []string{"run", "--no-such-flag"}, orchestrator.ExitBadInput, "unknown flag --no-such-flag (orchestrator run -h lists its flags)"},
		{"mistyped flag", []string{"run", "--wokers", "2"}, orchestrator.ExitBadInput, "unknown flag --wokers; did you mean --workers?"},
		{"mistyped command", []string{"rn"}, orchestrator.ExitBadInput, `unknown command "rn"; did you mean "run"?`},
		{"mistyped subcommand", []string{"ledger", "verfy"}, orchestrator.ExitBadInput, `unknown subcommand "verfy"; did you mean "verify"?`},
		{"missing argument", []string{"run"}, orchestrator.ExitBadInput, "orchestrator run: missing TASK.yaml, the task file to run"},
		{"bad value", []string{"run", "--workers", "many"}, orchestrator.ExitBadInput, `invalid value "many" for flag --workers`},
		{"unreachable site", []string{"run", unreachable, "--data-dir", filepath.Join(dir, "d1"), "--workers", "1"}, orchestrator.ExitSite, "connection refused"},
		{"events of unknown run", []string{"events", "01NOPE", "--data-dir", filepath.Join(dir, "d1")}, orchestrator.ExitBadInput, "no run 01NOPE"},
		{"ledger without data", []string{"ledger", "list", "--data-dir", filepath.Join(dir, "empty")}, orchestrator.ExitBadInput, "no ledger.db"},
		{"llm mode", []string{"run", unknown, "--llm", "cached"}, orchestrator.ExitBadInput, ""},
		{"screenshot policy", []string{"run", unreachable, "--screenshots", "some"}, orchestrator.ExitBadInput, `--screenshots "some": want looked, all or none`},
		{"llm without a model", []string{"run", unreachable, "--llm", "replay", "--data-dir", filepath.Join(dir, "d2")}, orchestrator.ExitBadInput, "the task's planner asks no model"},
		{"replay without a cassette", []string{"run", model, "--llm", "replay", "--cassettes", filepath.Join(dir, "none"), "--data-dir", filepath.Join(dir, "d3"), "--workers", "1"},
			orchestrator.ExitBadInput, "does not exist (record one with --llm record)"},
		{"rerun mode", []string{"rerun", "01NOPE", "--mode", "partial"}, orchestrator.ExitBadInput, "want full or hybrid"},
		{"rerun of unknown run", []string{"rerun", "01NOPE", "--data-dir", filepath.Join(dir, "d1")}, orchestrator.ExitBadInput, "no run 01NOPE"},
		{"rerun swap", []string{"rerun", "01NOPE", "--swap", "3:GET /x"}, orchestrator.ExitBadInput, "no =FILE"},
		{"rerun live model in full", []string{"rerun", "01NOPE", "--llm", "live"}, orchestrator.ExitBadInput, "a full rerun answers from the cassette only"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), c.args, &out, &errb)
			if code != c.code {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, c.code, errb.String())
			}
			if c.want != "" && !strings.Contains(errb.String(), c.want) {
				t.Fatalf("stderr %q does not contain %q", errb.String(), c.want)
			}
		})
	}
}

// TestMissingBrowserParts: no Chromium, or no driver, is exit code 5 with
// the install hint.
func TestMissingBrowserParts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the demo site")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"chromium", []string{"--chromium", "/no/such/chromium"}, "Chromium not found"},
		{"driver", []string{"--driver", dir}, "make deps"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			args := append([]string{"demo", "--latency", "0", "--data-dir", filepath.Join(dir, c.name), "--quiet"}, c.args...)
			code := run(context.Background(), args, &out, &errb)
			if code != orchestrator.ExitEnvironment {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, orchestrator.ExitEnvironment, errb.String())
			}
			if !strings.Contains(errb.String(), c.want) || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 {
				t.Fatalf("stderr = %q, want one line with %q", errb.String(), c.want)
			}
		})
	}
}
