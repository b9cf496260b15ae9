package main

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// TestHelp: -h and --help print the command's usage, flags with two
// dashes, and exit 0; an unknown flag still exits 2.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"run", "--help"}, {"replay", "-h"}, {"ledger", "list", "--help"}} {
		var out, errb bytes.Buffer
		code := run(context.Background(), args, &out, &errb)
		if code != 0 || !strings.Contains(errb.String(), "  --data-dir") || strings.Contains(errb.String(), "\n  -data-dir") {
			t.Errorf("%v: exit %d, usage %q", args, code, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"run", "--no-such-flag"}, &out, &errb); code != orchestrator.ExitBadInput {
		t.Errorf("an unknown flag: exit %d, want %d", code, orchestrator.ExitBadInput)
	}
}

// TestVersion: `version` and `--version` name the build, Go, the pinned
// Playwright driver and the browser parts (JSON with --json); an argument
// is a usage error.
func TestVersion(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"version", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("version --json: exit %d: %s", code, errb.String())
	}
	var v versionInfo
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("version --json: %v\n%s", err, out.String())
	}
	if v.Go != runtime.Version() || v.Driver != browser.DriverVersion || v.Version == "" || len(v.Parts) == 0 {
		t.Errorf("version --json = %+v", v)
	}
	out.Reset()
	if code := run(context.Background(), []string{"--version"}, &out, &errb); code != 0 ||
		!strings.HasPrefix(out.String(), "orchestrator ") || !strings.Contains(out.String(), "Playwright driver "+browser.DriverVersion) {
		t.Errorf("--version: exit %d: %q", code, out.String())
	}
	if code := run(context.Background(), []string{"version", "extra"}, &out, &errb); code != orchestrator.ExitBadInput {
		t.Errorf("version with an argument: exit %d, want %d", code, orchestrator.ExitBadInput)
	}
}
