package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// TestReadCommands reads the package's committed run (sharedCommit)
// through the CLI the way people type ids: prefixes in lower case, cut
// ids as tables print them, the short branch form. Nothing it runs
// changes the data dir.
func TestReadCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	dir, sum := sharedCommit(t)
	runID, winner, entry := sum.RunID, sum.Winner.BranchID, sum.Commit.EntryID
	cli := func(t *testing.T, args ...string) (code int, stdout, stderr string) {
		t.Helper()
		var o, e bytes.Buffer
		code = run(context.Background(), append(args, "--data-dir", dir), &o, &e)
		return code, o.String(), e.String()
	}
	ok := func(t *testing.T, args ...string) string {
		t.Helper()
		code, out, errs := cli(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		return out
	}
	runPrefix := strings.ToLower(runID[:12])

	t.Run("runs", func(t *testing.T) {
		out := ok(t, "runs")
		for _, want := range []string{runID, "team-checkout", "committed", eventlog.ShortID(winner)} {
			if !strings.Contains(out, want) {
				t.Errorf("runs does not show %q:\n%s", want, out)
			}
		}
		var rows []runRow
		if err := json.Unmarshal([]byte(ok(t, "runs", runPrefix, "--json")), &rows); err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || rows[0].Outcome != "committed" || rows[0].Winner != winner || rows[0].Branches == 0 ||
			rows[0].ExitCode == nil || *rows[0].ExitCode != 0 || rows[0].DurationMS <= 0 {
			t.Errorf("runs --json = %+v", rows)
		}
	})
	t.Run("events", func(t *testing.T) {
		out := ok(t, "events", runPrefix)
		var last int64
		scores := 0
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			seq, err := strconv.ParseInt(strings.TrimPrefix(strings.Fields(line)[1], "#"), 10, 64)
			if err != nil || seq != last+1 {
				t.Fatalf("line out of sequence after #%d: %s", last, line)
			}
			last = seq
			if strings.Contains(line, " metric_update ") {
				scores++
				if !strings.Contains(line, " J=") || !strings.Contains(line, " progress=") || strings.Contains(line, "score=") {
					t.Errorf("score not shown as J=… progress=…: %s", line)
				}
			}
		}
		if scores == 0 {
			t.Errorf("no metric_update line:\n%s", out)
		}
		for _, br := range []string{strings.ToLower(winner), eventlog.ShortID(winner)} {
			if out := ok(t, "events", runID[:12]+"…", "--branch", br); !strings.Contains(out, "why "+eventlog.ShortID(winner)) {
				t.Errorf("events --branch %s does not explain the winner:\n%s", br, out)
			}
		}
	})
	t.Run("ambiguous branch", func(t *testing.T) {
		code, _, errs := cli(t, "events", runID, "--branch", winner[:2])
		want := "orchestrator: branch " + winner[:2] + " is ambiguous in run " + runID + ": it names " + winner[:2]
		if code != orchestrator.ExitBadInput || !strings.HasPrefix(errs, want) || !strings.HasSuffix(errs, " (give more of the id)\n") ||
			strings.Count(errs, "\n") != 1 {
			t.Errorf("exit %d, stderr %q; want exit 2 and one line starting %q", code, errs, want)
		}
	})
	t.Run("bundle", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "w.bundle")
		out := ok(t, "bundle", runPrefix, eventlog.ShortID(winner), "-o", path)
		if !strings.Contains(out, "run "+runID+" branch "+winner) {
			t.Errorf("bundle does not name the full ids: %s", out)
		}
		code, _, errs := cli(t, "bundle", runPrefix, "NOPE")
		if want := "orchestrator: no branch NOPE in run " + runID + ": `orchestrator events " + runID + "` lists its branches\n"; code != 2 || errs != want {
			t.Errorf("unknown branch: exit %d, stderr %q, want %q", code, errs, want)
		}
	})
	t.Run("replay", func(t *testing.T) {
		if out := ok(t, "replay", strings.ToLower(winner), "--run", runPrefix, "--analytical"); !strings.Contains(out, "recorded winner "+winner) {
			t.Errorf("replay --analytical by prefix: %s", out)
		}
	})
	t.Run("ledger", func(t *testing.T) {
		list := ok(t, "ledger", "list")
		for i, line := range strings.Split(strings.TrimSuffix(list, "\n"), "\n") {
			if n := utf8.RuneCountInString(line); n > listWidth {
				t.Errorf("ledger list line %d is %d runes: %s", i+1, n, line)
			}
		}
		cut := clipTo(entry, listIDWidth)
		if !strings.Contains(list, cut) {
			t.Fatalf("ledger list does not show %s:\n%s", cut, list)
		}
		for _, id := range []string{cut, strings.ToLower(entry[:14]), runPrefix} {
			out := ok(t, "ledger", "show", id)
			if !strings.Contains(out, "entry         "+entry+"\n") || !strings.Contains(out, "state         committed\n") ||
				!strings.Contains(out, "\ntransitions\n") {
				t.Errorf("ledger show %s:\n%s", id, out)
			}
		}
		code, _, errs := cli(t, "ledger", "show", "NOPE")
		if want := "orchestrator: no ledger entry NOPE in " + filepath.Join(dir, "ledger.db") + ": `orchestrator ledger list` lists the entries\n"; code != 2 || errs != want {
			t.Errorf("unknown entry: exit %d, stderr %q, want %q", code, errs, want)
		}
		if out := ok(t, "ledger", "evidence", cut, "invoice", "-o", "-"); len(out) == 0 {
			t.Errorf("ledger evidence %s invoice wrote nothing", cut)
		}
	})
}
