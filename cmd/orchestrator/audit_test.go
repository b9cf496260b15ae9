package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/internal/rotest"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// TestAuditCommands commits once, then audits the records through the CLI:
// ledger verify passes and names the row or artifact a flipped byte
// breaks; export loads as CSV with a header and as JSON; validate accepts
// the sealed bundle and names the file a flipped byte breaks. Subtest
// "stores" tampers with copies of the same data dir (see testAuditStores).
func TestAuditCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	dir, sum := sharedCopy(t)
	run := func(args ...string) (int, string) {
		var o, e bytes.Buffer
		c := runCLI(args, &o, &e)
		return c, o.String() + e.String()
	}
	// The same committed run, tampered with in copies, for the subtests
	// below.
	pristine := t.TempDir()
	copyDir(t, dir, pristine)
	t.Run("stores", func(t *testing.T) { testAuditStores(t, pristine, sum) })
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
	bundlePath := sum.Paths.Bundle
	if c, o := run("validate", bundlePath); c != 0 {
		t.Fatalf("validate: exit %d\n%s", c, o)
	}
	// Tamper with the (sealed) invoice artifact: verify names it.
	inv := sum.Commit.Artifacts["invoice.sealed"]
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
	editLedger(t, filepath.Join(dir, "ledger.db"), sum.Commit.OrderID)
	c, o = run("ledger", "verify", "--data-dir", dir)
	if c != orchestrator.ExitVerify || !strings.Contains(o, "order_id") || !strings.Contains(o, sum.Commit.EntryID) {
		t.Fatalf("verify after editing the ledger: exit %d\n%s", c, o)
	}
}

// testAuditStores tampers with copies of a committed run's data dir and
// checks that every read and audit command refuses what does not hold,
// with exit 7 naming the file, row, run or event, and works on a read-only
// copy without changing it.
func testAuditStores(t *testing.T, pristine string, sum orchestrator.Summary) {
	runID, entry := sum.RunID, sum.Commit.EntryID
	branch := sum.Winner.BranchID
	// fresh returns a copy of the committed data dir.
	fresh := func(t *testing.T) string {
		d := t.TempDir()
		copyDir(t, pristine, d)
		return d
	}
	type call struct {
		args []string // --data-dir is appended
		code int
		want []string // in stdout+stderr
	}
	check := func(t *testing.T, dir string, calls ...call) {
		t.Helper()
		for _, c := range calls {
			var o, e bytes.Buffer
			code := runCLI(append(c.args, "--data-dir", dir), &o, &e)
			out := o.String() + e.String()
			if code != c.code {
				t.Fatalf("%v: exit %d, want %d\n%s", c.args, code, c.code, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Fatalf("%v: output does not name %q:\n%s", c.args, w, out)
				}
			}
		}
	}
	ok := orchestrator.ExitOK
	bad := orchestrator.ExitVerify
	for _, tc := range []struct {
		name   string
		tamper func(t *testing.T, dir string)
		calls  []call
		after  func(t *testing.T, dir string)
	}{
		{"untouched", func(*testing.T, string) {}, []call{
			{[]string{"ledger", "verify"}, ok, []string{"OK"}},
			{[]string{"events", runID}, ok, []string{"commit_end"}},
		}, nil},
		// A reader creates no schema: an emptied store is a failed audit
		// naming the file, and stays empty.
		{"ledger.db emptied", func(t *testing.T, dir string) {
			requireNoErr(t, os.WriteFile(filepath.Join(dir, "ledger.db"), nil, 0o644))
		}, []call{
			{[]string{"ledger", "verify"}, bad, []string{"ledger.db", "0 bytes"}},
			{[]string{"ledger", "list"}, bad, []string{"ledger.db"}},
			{[]string{"events", runID}, bad, []string{"ledger.db"}},
		}, func(t *testing.T, dir string) { requireSize(t, filepath.Join(dir, "ledger.db"), 0) }},
		{"events.db emptied", func(t *testing.T, dir string) {
			requireNoErr(t, os.WriteFile(filepath.Join(dir, "events.db"), nil, 0o644))
		}, []call{
			{[]string{"runs"}, bad, []string{"events.db", "0 bytes"}},
			{[]string{"events", runID}, bad, []string{"events.db"}},
			{[]string{"ledger", "verify"}, bad, []string{"events.db"}},
			{[]string{"bundle", runID, "-o", filepath.Join(t.TempDir(), "b.bundle")}, bad, []string{"events.db"}},
		}, func(t *testing.T, dir string) { requireSize(t, filepath.Join(dir, "events.db"), 0) }},
		{"ledger.db removed", func(t *testing.T, dir string) {
			requireNoErr(t, os.Remove(filepath.Join(dir, "ledger.db")))
		}, []call{
			{[]string{"ledger", "list"}, bad, []string{"ledger.db is missing"}},
			{[]string{"events", runID}, bad, []string{"ledger row missing", entry}},
		}, func(t *testing.T, dir string) {
			if _, err := os.Stat(filepath.Join(dir, "ledger.db")); err == nil {
				t.Fatal("a read command created ledger.db")
			}
		}},
		// The commit phase of the run's events cut off and the run summary
		// rewritten to match: the ledger row's anchor names what is gone.
		{"commit phase of the events cut, summary rewritten", func(t *testing.T, dir string) {
			execSQL(t, filepath.Join(dir, "events.db"),
				`DELETE FROM events WHERE run_id = ?1 AND seq >= (SELECT min(seq) FROM events WHERE run_id = ?1 AND kind = 'commit_start')`, runID)
			execSQL(t, filepath.Join(dir, "events.db"), `UPDATE runs SET (head_seq, head_hash, last_time, last_kind) =
				(SELECT seq, hash, time, kind FROM events WHERE run_id = ?1 ORDER BY seq DESC LIMIT 1) WHERE run_id = ?1`, runID)
		}, []call{
			{[]string{"events", runID}, bad, []string{"anchored event missing", entry, runID}},
			{[]string{"ledger", "verify"}, bad, []string{"anchored event missing", entry, runID}},
		}, nil},
		// The ledger replaced by a valid one without the row: the run's
		// commit_end names the missing row.
		{"ledger replaced by an empty ledger", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "ledger.db")
			requireNoErr(t, os.Remove(p))
			l, err := ledger.Open(context.Background(), p)
			requireNoErr(t, err)
			requireNoErr(t, l.Close())
		}, []call{
			{[]string{"ledger", "verify"}, bad, []string{"ledger row missing", entry, runID}},
			{[]string{"events", runID}, bad, []string{"ledger row missing", entry}},
		}, nil},
		// An edited event is a failed audit (exit 7), and nothing of the
		// tampered log is listed.
		{"event edited", func(t *testing.T, dir string) {
			execSQL(t, filepath.Join(dir, "events.db"), `UPDATE events SET payload = '{"edited":true}' WHERE run_id = ? AND seq = 3`, runID)
		}, []call{
			{[]string{"events", runID}, bad, []string{"run " + runID, "event 3", "hash mismatch"}},
			{[]string{"events", runID, "--json"}, bad, []string{"event 3"}},
			// A bundle is evidence: it is never built from a tampered log.
			{[]string{"bundle", runID, "-o", filepath.Join(t.TempDir(), "b.bundle")}, bad, []string{"run " + runID, "event 3"}},
			{[]string{"replay", branch}, bad, []string{"run " + runID, "event 3"}},
		}, nil},
		// A stored artifact the winner's bundle needs, damaged: building
		// the bundle is a failed audit naming the artifact.
		{"artifact of the winner damaged", func(t *testing.T, dir string) {
			corruptStepArtifact(t, dir, runID, branch)
		}, []call{
			{[]string{"bundle", runID, branch, "-o", filepath.Join(t.TempDir(), "b.bundle")}, bad, []string{"corrupt artifact"}},
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fresh(t)
			tc.tamper(t, dir)
			check(t, dir, tc.calls...)
			if tc.after != nil {
				tc.after(t, dir)
			}
			if tc.name == "event edited" {
				var o, e bytes.Buffer
				runCLI([]string{"events", runID, "--data-dir", dir}, &o, &e)
				if o.Len() != 0 {
					t.Fatalf("a tampered log was listed:\n%s", o.String())
				}
			}
		})
	}
	// A read-only copy of the data dir: every read and audit command
	// works, and none changes a file.
	t.Run("read-only copy", func(t *testing.T) {
		dir := fresh(t)
		rotest.Freeze(t, dir)
		if rotest.Writable(dir) {
			t.Fatalf("%s is still writable", dir)
		}
		before := treeDigest(t, dir)
		out := filepath.Join(t.TempDir(), "copy.bundle")
		check(t, dir,
			call{[]string{"ledger", "verify"}, ok, []string{"OK"}},
			call{[]string{"ledger", "list"}, ok, []string{clipTo(entry, listIDWidth)}},
			call{[]string{"ledger", "show", entry}, ok, []string{entry}},
			call{[]string{"ledger", "export", "--format", "csv"}, ok, []string{entry}},
			call{[]string{"runs"}, ok, []string{runID}},
			call{[]string{"events", runID}, ok, []string{"commit_end"}},
			call{[]string{"events", runID, "--branch", branch}, ok, []string{"why", "won"}},
			call{[]string{"bundle", runID, branch, "-o", out}, ok, []string{out}},
			call{[]string{"replay", branch, "--analytical"}, ok, []string{runID}},
		)
		if after := treeDigest(t, dir); after != before {
			t.Fatalf("read commands changed the read-only data dir:\n%s\nbecame\n%s", before, after)
		}
	})
	// A flipped byte in a compressed bundle is a damaged compressed
	// stream, not a checksum mismatch of some member.
	t.Run("corrupt compressed bundle", func(t *testing.T) {
		b, err := os.ReadFile(sum.Paths.Bundle)
		requireNoErr(t, err)
		p := filepath.Join(t.TempDir(), "flipped.bundle")
		b[len(b)/2] ^= 0x20
		requireNoErr(t, os.WriteFile(p, b, 0o644))
		var o, e bytes.Buffer
		code := runCLI([]string{"validate", p}, &o, &e)
		if code != bad || !strings.Contains(e.String(), "zstd stream does not decompress") || strings.Contains(e.String(), `entry "`) {
			t.Fatalf("validate of a flipped compressed byte: exit %d\n%s%s", code, o.String(), e.String())
		}
	})
}

// copyDir copies the tree src into the existing directory dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if out, err := exec.Command("cp", "-a", src+"/.", dst).CombinedOutput(); err != nil {
		t.Fatalf("cp -a %s %s: %v: %s", src, dst, err, out)
	}
}

// treeDigest lists every file under dir with its size and content hash.
func treeDigest(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %x\n", strings.TrimPrefix(p, dir), len(data), sha256.Sum256(data))
		return nil
	})
	requireNoErr(t, err)
	return b.String()
}

func requireSize(t *testing.T, path string, n int64) {
	t.Helper()
	st, err := os.Stat(path)
	requireNoErr(t, err)
	if st.Size() != n {
		t.Fatalf("%s has %d bytes, want %d", path, st.Size(), n)
	}
}

func requireNoErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
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

// corruptStepArtifact flips a byte of a DOM snapshot the branch's steps
// recorded.
func corruptStepArtifact(t *testing.T, dir, runID, branch string) {
	t.Helper()
	l, err := eventlog.OpenReadOnly(context.Background(), filepath.Join(dir, "events.db"))
	requireNoErr(t, err)
	defer l.Close()
	evs, err := l.Events(context.Background(), runID, eventlog.Query{})
	requireNoErr(t, err)
	for _, e := range evs {
		var p struct {
			DOM string `json:"dom_artifact"`
		}
		if e.Kind != "dom_snapshot" || json.Unmarshal(e.Payload, &p) != nil || p.DOM == "" {
			continue
		}
		path := filepath.Join(dir, "artifacts", "sha256", p.DOM[:2], p.DOM)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		flip(t, path, 10)
		return
	}
	t.Fatal("no stored DOM snapshot to damage")
}
