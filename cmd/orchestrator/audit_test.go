package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// TestAuditCommands commits once, then audits the records through the CLI:
// ledger verify passes and names the row or artifact a flipped byte
// breaks; export loads as CSV with a header and as JSON; validate accepts
// the sealed bundle and names the file a flipped byte breaks.
func TestAuditCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	site := startDemoSite(t)
	dir := t.TempDir()
	code, out := cli(t, nil, "run", smallTask(t), "--start-url", site.srv.URL()+"/checkout?plan=team&billing=monthly",
		"--data-dir", dir, "--no-screenshots", "--quiet", "--json")
	if code != 0 {
		t.Fatalf("run exit %d:\n%s", code, out)
	}
	var res struct {
		Summary orchestrator.Summary `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &res); err != nil {
		t.Fatalf("run --json: %v\n%s", err, out)
	}
	run := func(args ...string) (int, string) {
		var o, e bytes.Buffer
		c := runCLI(args, &o, &e)
		return c, o.String() + e.String()
	}
	if c, o := run("ledger", "verify", "--data-dir", dir); c != 0 || !strings.Contains(o, "OK") {
		t.Fatalf("verify of a good ledger: exit %d\n%s", c, o)
	}
	// Export loads as CSV with a header, and as JSON.
	_, csvOut := run("ledger", "export", "--format", "csv", "--data-dir", dir)
	rows, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
	if err != nil || len(rows) != 2 || rows[0][0] != "id" || rows[1][2] != "committed" {
		t.Fatalf("CSV export: %v %v", err, rows)
	}
	_, jsonOut := run("ledger", "export", "--format", "json", "--data-dir", dir)
	var entries []map[string]any
	if err := json.Unmarshal([]byte(jsonOut), &entries); err != nil || len(entries) != 1 {
		t.Fatalf("JSON export: %v\n%s", err, jsonOut)
	}
	// The sealed commit bundle validates; a flipped byte names the file.
	bundlePath := res.Summary.Paths.Bundle
	if c, o := run("validate", bundlePath); c != 0 {
		t.Fatalf("validate: exit %d\n%s", c, o)
	}
	// Tamper with the (sealed) invoice artifact: verify names it.
	inv := res.Summary.Commit.Artifacts["invoice.sealed"]
	p := filepath.Join(dir, "artifacts", "sha256", inv[:2], inv)
	flip(t, p, 200)
	c, o := run("ledger", "verify", "--data-dir", dir)
	if c != orchestrator.ExitVerify || !strings.Contains(o, "artifact invoice.sealed") || !strings.Contains(o, inv) {
		t.Fatalf("verify after flipping the invoice: exit %d\n%s", c, o)
	}
	flip(t, p, 200) // restore
	// Tamper with the ledger database: verify names the row and field.
	if c, o := run("ledger", "verify", "--data-dir", dir); c != 0 {
		t.Fatalf("verify after restoring: exit %d\n%s", c, o)
	}
	editLedger(t, filepath.Join(dir, "ledger.db"), res.Summary.Commit.OrderID)
	c, o = run("ledger", "verify", "--data-dir", dir)
	if c != orchestrator.ExitVerify || !strings.Contains(o, "order_id") || !strings.Contains(o, res.Summary.Commit.EntryID) {
		t.Fatalf("verify after editing the ledger: exit %d\n%s", c, o)
	}
}

func runCLI(args []string, stdout, stderr *bytes.Buffer) int {
	return run(context.Background(), args, stdout, stderr)
}

func flip(t *testing.T, path string, at int) {
	t.Helper()
	os.Chmod(path, 0o644)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[at%len(b)] ^= 0x01
	if err := os.WriteFile(path, b, 0o444); err != nil {
		t.Fatal(err)
	}
}
