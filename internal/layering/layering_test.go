// Package layering holds the module's dependency rules as a test: what a
// package that only reads records must never link.
package layering_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadersLinkNoEngine: the packages that read records (the audit,
// the explanation of a branch, the ledger's own checks, the dashboard)
// link neither a browser driver nor the embedded NATS server. An offline
// audit must run where no browser is installed, and a read-only viewer
// must not carry the control plane.
func TestReadersLinkNoEngine(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool on PATH")
	}
	const (
		playwright = "github.com/playwright-community/playwright-go"
		natsServer = "github.com/nats-io/nats-server/v2"
		control    = "github.com/multiverse-orchestrator/multiverse/orchestrator"
	)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pkg     string
		forbids []string
	}{
		{"./audit", []string{playwright, natsServer, control}},
		{"./commit/ledger", []string{playwright, natsServer, control}},
		{"./explain", []string{playwright, natsServer, control}},
		{"./drift", []string{playwright, natsServer, control}},
		// The site's record is read by the search and written by the
		// control plane: it holds data, never a part of either.
		{"./learn", []string{playwright, natsServer, control, "github.com/multiverse-orchestrator/multiverse/planner"}},
		{"./eventlog/payload", []string{playwright, natsServer, control}},
		{"./dashboard", []string{natsServer, control}},
		// The action interpreter is shared by the browser and the
		// simulated web: it drives a page interface, never a browser.
		{"./act", []string{playwright, natsServer, control}},
	} {
		cmd := exec.Command("go", "list", "-deps", tc.pkg)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", tc.pkg, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 2 {
			t.Fatalf("go list -deps %s listed %d packages", tc.pkg, len(deps))
		}
		for _, f := range tc.forbids {
			for _, d := range deps {
				if d == f || strings.HasPrefix(d, f+"/") {
					t.Errorf("%s links %s", tc.pkg, d)
					break
				}
			}
		}
	}
}
