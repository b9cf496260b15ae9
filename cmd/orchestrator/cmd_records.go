package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/audit"
	"github.com/multiverse-orchestrator/multiverse/commit/evidence"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/explain"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

func cmdLedger(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if i := slices.Index(args, "compensate"); i >= 0 {
		// It writes (through the committer) and takes flags of its own.
		return ledgerCompensate(ctx, slices.Delete(slices.Clone(args), i, i+1), stdout, stderr)
	}
	fs := flag.NewFlagSet("ledger", flag.ContinueOnError)
	dataDir := fs.String("data-dir", orchestrator.DefaultDataDir, "data dir")
	asJSON := fs.Bool("json", false, "print JSON")
	format := fs.String("format", "json", "export format: json or csv")
	state := fs.String("state", "", "list only entries in this state (intent, committed, aborted, failed, compensating, compensated, compensation_failed)")
	out := fs.String("o", "", "evidence: the file to write the document to (- for stdout)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orchestrator ledger list|show ENTRY|verify|export [--format json|csv]|evidence ENTRY NAME -o FILE [flags]")
		fmt.Fprintln(stderr, "       orchestrator ledger compensate ENTRY [--task FILE] [--reason TEXT] (see ledger compensate -h)")
		fmt.Fprintln(stderr, "ENTRY: an entry id or a unique prefix of one, an idempotency key, or the run that made the entry")
		fs.PrintDefaults()
	}
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return wrongArgs(fs, stderr, pos, "a subcommand: list, show ENTRY, verify, export or evidence ENTRY NAME")
	}
	if !slices.Contains(ledgerCommands, pos[0]) {
		if near := closest(pos[0], ledgerCommands); near != "" {
			fmt.Fprintf(stderr, "orchestrator ledger: unknown subcommand %q; did you mean %q?\n", pos[0], near)
			return errUsage
		}
		return wrongArgs(fs, stderr, pos, "a subcommand: list, show ENTRY, verify, export or evidence ENTRY NAME")
	}
	l, err := openLedgerRO(ctx, *dataDir)
	if err != nil {
		return err
	}
	defer l.Close()
	switch {
	case pos[0] == "list" && len(pos) == 1:
		es, err := l.List(ctx, ledger.Filter{State: ledger.State(*state)})
		if err != nil {
			return listError(err, *state)
		}
		if *asJSON {
			return ledger.WriteJSON(stdout, es)
		}
		printLedgerList(stdout, es)
		return nil
	case pos[0] == "show" && len(pos) == 2:
		e, err := resolveEntry(ctx, l, pos[1])
		if err != nil {
			return err
		}
		hist, err := l.History(ctx, e.Key)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(stdout, map[string]any{"entry": e, "history": hist})
		}
		printEntry(stdout, e, hist)
		return nil
	case pos[0] == "verify" && len(pos) == 1:
		return verifyLedger(ctx, l, *dataDir, *asJSON, stdout)
	case pos[0] == "evidence" && len(pos) == 3:
		return readEvidence(ctx, l, *dataDir, pos[1], pos[2], *out, stdout)
	case pos[0] == "export" && len(pos) == 1:
		es, err := l.List(ctx, ledger.Filter{State: ledger.State(*state)})
		if err != nil {
			return listError(err, *state)
		}
		switch *format {
		case "json":
			return ledger.WriteJSON(stdout, es)
		case "csv":
			return ledger.WriteCSV(stdout, es)
		}
		return badInput("--format %q: use json or csv", *format)
	}
	fmt.Fprintf(stderr, "orchestrator ledger %s: takes %s, not %q\n", pos[0], ledgerArgs[pos[0]], strings.Join(pos[1:], " "))
	fs.Usage()
	return errUsage
}

// ledgerArgs says what each ledger subcommand takes.
var ledgerArgs = map[string]string{"list": "no argument", "show": "one ENTRY", "verify": "no argument", "export": "no argument",
	"evidence": "ENTRY NAME", "compensate": "one ENTRY"}

// ledgerCommands are the ledger's subcommands.
var ledgerCommands = slices.Sorted(maps.Keys(ledgerArgs))

// ledgerVerdict is what ledger verify --json prints.
type ledgerVerdict struct {
	OK       bool                `json:"ok"`
	Problems []string            `json:"problems,omitempty"`
	Report   *audit.LedgerReport `json:"report,omitempty"`
	ExitCode int                 `json:"exit_code"`
}

// listError is the error of a ledger listing: bad input naming the
// states --state takes when it names none of them.
func listError(err error, state string) error {
	if errors.Is(err, ledger.ErrInvalid) {
		return badInput("--state %q: use intent, committed, aborted, failed, compensating, compensated or compensation_failed", state)
	}
	return err
}

// verifyLedger audits the ledger offline (audit.VerifyLedger says what it
// checks) and prints the verdict.
func verifyLedger(ctx context.Context, l *ledger.Ledger, dataDir string, asJSON bool, stdout io.Writer) error {
	store, err := artifacts.OpenFS(filepath.Join(dataDir, "artifacts"))
	if err != nil {
		return badInput("artifact store: %v", err)
	}
	key, kerr := evidence.LoadKey(dataDir)
	if kerr != nil && !errors.Is(kerr, evidence.ErrNoKey) {
		return badInput("%v", kerr)
	}
	elog, err := openEventsRO(ctx, dataDir)
	if err != nil {
		return err
	}
	defer elog.Close()
	rep, problems, err := audit.VerifyLedger(ctx, l, elog, store, key)
	if err != nil {
		return err
	}
	if asJSON {
		v := ledgerVerdict{OK: problems == nil, Report: &rep}
		var err error
		if problems != nil {
			v.Problems = strings.Split(problems.Error(), "\n")
			err = fmt.Errorf("%w: %s", orchestrator.ErrVerify, v.Problems[0])
			v.ExitCode = orchestrator.ExitCode(err)
		}
		if werr := writeJSON(stdout, v); werr != nil {
			return werr
		}
		return err
	}
	if problems != nil {
		fmt.Fprintln(stdout, "ledger verify: FAILED")
		for _, line := range strings.Split(problems.Error(), "\n") {
			fmt.Fprintln(stdout, "  "+line)
		}
		return fmt.Errorf("%w: %s", orchestrator.ErrVerify, strings.SplitN(problems.Error(), "\n", 2)[0])
	}
	ev := rep.Evidence
	fmt.Fprintf(stdout, "ledger verify: OK: %d entries, %d transitions, head %s, %d artifacts present with their digests\n", rep.Entries, rep.HeadSeq, rep.HeadHash, ev.Artifacts)
	if ev.Sealed > 0 {
		if key != nil {
			fmt.Fprintf(stdout, "  sealed evidence: %d of %d decrypt with %s to the plaintext digests the ledger records\n", ev.Decrypted, ev.Sealed, evidence.KeyPath(dataDir))
		} else {
			fmt.Fprintf(stdout, "  sealed evidence: %d checked by their own digests only: no evidence key at %s\n", ev.Sealed, evidence.KeyPath(dataDir))
		}
	}
	return nil
}

// readEvidence writes one evidence document of a ledger entry (by id or
// key), decrypted when it is sealed and checked against the plaintext
// digest the ledger records, to a new file readable only by its owner.
func readEvidence(ctx context.Context, l *ledger.Ledger, dataDir, id, name, out string, stdout io.Writer) error {
	if out == "" {
		return badInput("ledger evidence %s %s: give the output file with -o FILE (- for stdout)", id, name)
	}
	e, err := resolveEntry(ctx, l, id)
	if err != nil {
		return err
	}
	store, err := artifacts.OpenFS(filepath.Join(dataDir, "artifacts"))
	if err != nil {
		return badInput("artifact store: %v", err)
	}
	key, err := evidence.LoadKey(dataDir)
	if err != nil && !errors.Is(err, evidence.ErrNoKey) {
		return badInput("%v", err)
	}
	data, err := evidence.Read(ctx, store, key, e.Artifacts, name)
	switch {
	case errors.Is(err, evidence.ErrNoEvidence), errors.Is(err, evidence.ErrNoKey):
		return badInput("entry %s: %v", e.ID, err)
	case err != nil:
		return fmt.Errorf("%w: entry %s: %v", orchestrator.ErrVerify, e.ID, err)
	}
	if out == "-" {
		_, err = stdout.Write(data)
		return err
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return badInput("%v", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "evidence %s of entry %s: %d bytes, %s as the ledger records, written to %s\n", name, e.ID, len(data), artifacts.Sum(data), out)
	return nil
}

func cmdEvents(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("events", flag.ContinueOnError)
	dataDir := fs.String("data-dir", orchestrator.DefaultDataDir, "data dir")
	asJSON := fs.Bool("json", false, "print JSON lines")
	br := fs.String("branch", "", "only this branch's events, then why it ended")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orchestrator events RUN [--branch BRANCH] [flags]")
		fmt.Fprintln(stderr, "RUN, BRANCH: an id or a unique prefix of one; BRANCH also the short form events print (…9NGHT4DK)")
		fs.PrintDefaults()
	}
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return wrongArgs(fs, stderr, pos, "RUN, the run whose events to show")
	}
	l, err := openEventsRO(ctx, *dataDir)
	if err != nil {
		return err
	}
	defer l.Close()
	run, err := resolveRun(ctx, l, pos[0])
	if err != nil {
		return err
	}
	// Audit before printing: a tampered log is an error, not a listing.
	if err := auditRun(ctx, l, *dataDir, run); err != nil {
		return err
	}
	if *br != "" {
		ref, err := resolveBranch(ctx, l, run, *br)
		if err != nil {
			return err
		}
		*br = ref.BranchID
	}
	es, err := l.Events(ctx, run, eventlog.Query{BranchID: *br})
	if err != nil {
		return err
	}
	if *asJSON {
		return eventlog.WriteJSONL(stdout, es)
	}
	printEvents(stdout, es)
	if *br != "" {
		// Why the branch ended as it did needs the run's events too (the
		// winner ranking is one).
		all, err := l.Events(ctx, run, eventlog.Query{})
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout)
		for _, line := range explain.Branch(all, *br) {
			fmt.Fprintln(stdout, line)
		}
	}
	return nil
}
