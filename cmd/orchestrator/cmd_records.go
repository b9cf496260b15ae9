package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/audit"
	"github.com/multiverse-orchestrator/multiverse/commit/evidence"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

func cmdLedger(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ledger", flag.ContinueOnError)
	dataDir := fs.String("data-dir", orchestrator.DefaultDataDir, "data dir")
	asJSON := fs.Bool("json", false, "print JSON")
	format := fs.String("format", "json", "export format: json or csv")
	state := fs.String("state", "", "list only entries in this state (intent, committed, aborted, failed)")
	out := fs.String("o", "", "evidence: the file to write the document to (- for stdout)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orchestrator ledger list|show ID|verify|export [--format json|csv]|evidence ID NAME -o FILE [flags]")
		fs.PrintDefaults()
	}
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
		return errUsage
	}
	l, err := openLedgerRO(ctx, *dataDir)
	if err != nil {
		return err
	}
	defer l.Close()
	p := l.Path()
	switch {
	case pos[0] == "list" && len(pos) == 1:
		es, err := l.List(ctx, ledger.Filter{State: ledger.State(*state)})
		if err != nil {
			return badInput("%v", err)
		}
		if *asJSON {
			return ledger.WriteJSON(stdout, es)
		}
		tw := tabwriter.NewWriter(stdout, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSTATE\tORDER\tATTEMPTS\tRUN\tUPDATED\tKEY")
		for _, e := range es {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", e.ID, e.State, e.OrderID, e.Attempts, e.RunID, e.UpdatedAt.Format("2006-01-02 15:04:05"), e.Key)
		}
		return tw.Flush()
	case pos[0] == "show" && len(pos) == 2:
		e, err := l.GetByID(ctx, pos[1])
		if errors.Is(err, ledger.ErrNotFound) {
			if e, err = l.Get(ctx, pos[1]); errors.Is(err, ledger.ErrNotFound) {
				return badInput("no ledger entry %s in %s", pos[1], p)
			}
		}
		if err != nil {
			return err
		}
		hist, err := l.History(ctx, e.Key)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(map[string]any{"entry": e, "history": hist})
		}
		printEntry(stdout, e, hist)
		return nil
	case pos[0] == "verify" && len(pos) == 1:
		return verifyLedger(ctx, l, *dataDir, stdout)
	case pos[0] == "evidence" && len(pos) == 3:
		return readEvidence(ctx, l, *dataDir, pos[1], pos[2], *out, stdout)
	case pos[0] == "export" && len(pos) == 1:
		es, err := l.List(ctx, ledger.Filter{State: ledger.State(*state)})
		if err != nil {
			return badInput("%v", err)
		}
		switch *format {
		case "json":
			return ledger.WriteJSON(stdout, es)
		case "csv":
			return ledger.WriteCSV(stdout, es)
		}
		return badInput("--format %q: use json or csv", *format)
	}
	fs.Usage()
	return errUsage
}

func printEntry(w io.Writer, e ledger.Entry, hist []ledger.Transition) {
	fmt.Fprintf(w, "entry      %s\n", e.ID)
	fmt.Fprintf(w, "state      %s (attempts %d)\n", e.State, e.Attempts)
	fmt.Fprintf(w, "key        %s\n", e.Key)
	if e.OrderID != "" {
		fmt.Fprintf(w, "order      %s\n", e.OrderID)
	}
	fmt.Fprintf(w, "run        %s  branch %s  plan %s\n", e.RunID, e.BranchID, e.PlanDigest)
	fmt.Fprintf(w, "site/flow  %s / %s\n", e.Site, e.Flow)
	fmt.Fprintf(w, "intent     %s  (sha256 %s)\n", e.Payload, e.PayloadSHA256)
	if len(e.Confirmation) > 0 {
		fmt.Fprintf(w, "confirmed  %s\n", e.Confirmation)
	}
	if e.Error != "" {
		fmt.Fprintf(w, "error      %s\n", e.Error)
	}
	names := make([]string, 0, len(e.Artifacts))
	for k := range e.Artifacts {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(w, "evidence   %-24s sha256:%s\n", k, e.Artifacts[k])
	}
	for _, t := range hist {
		from := string(t.From)
		if from == "" {
			from = "-"
		}
		fmt.Fprintf(w, "history    #%d %s %s %s -> %s  %s\n", t.Seq, t.At.Format(time.RFC3339), t.Op, from, t.To, t.Hash[:16])
	}
}

// verifyLedger audits the ledger offline (audit.VerifyLedger says what it
// checks) and prints the verdict.
func verifyLedger(ctx context.Context, l *ledger.Ledger, dataDir string, stdout io.Writer) error {
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
	e, err := l.GetByID(ctx, id)
	if errors.Is(err, ledger.ErrNotFound) {
		e, err = l.Get(ctx, id)
	}
	if errors.Is(err, ledger.ErrNotFound) {
		return badInput("no ledger entry %s in %s", id, l.Path())
	}
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
	br := fs.String("branch", "", "only this branch's events")
	fs.Usage = func() { fmt.Fprintln(stderr, "usage: orchestrator events RUN_ID [flags]"); fs.PrintDefaults() }
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return errUsage
	}
	l, err := openEventsRO(ctx, *dataDir)
	if err != nil {
		return err
	}
	defer l.Close()
	p := l.Path()
	es, err := l.Events(ctx, pos[0], eventlog.Query{BranchID: *br})
	if errors.Is(err, eventlog.ErrRunNotFound) {
		return badInput("no run %s in %s (orchestrator runs lists them)", pos[0], p)
	}
	if err != nil {
		return err
	}
	// Audit before printing: a tampered log is an error, not a listing.
	if err := auditRun(ctx, l, *dataDir, pos[0]); err != nil {
		return err
	}
	if *br != "" && len(es) == 0 {
		// Not a full id: the short form events print, or no branch.
		if *br, err = branchBySuffix(ctx, l, pos[0], *br); err != nil {
			return err
		}
		if es, err = l.Events(ctx, pos[0], eventlog.Query{BranchID: *br}); err != nil {
			return err
		}
	}
	if *asJSON {
		return eventlog.WriteJSONL(stdout, es)
	}
	for _, e := range es {
		fmt.Fprintln(stdout, eventlog.Pretty(e))
	}
	if *br != "" {
		// Why the branch ended as it did needs the run's events too (the
		// winner ranking is one).
		all, err := l.Events(ctx, pos[0], eventlog.Query{})
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout)
		for _, line := range orchestrator.Explain(all, *br) {
			fmt.Fprintln(stdout, line)
		}
	}
	return nil
}

func cmdRuns(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("runs", flag.ContinueOnError)
	dataDir := fs.String("data-dir", orchestrator.DefaultDataDir, "data dir")
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return errUsage
	}
	l, err := openEventsRO(ctx, *dataDir)
	if err != nil {
		return err
	}
	defer l.Close()
	runs, err := l.Runs(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tEVENTS\tFIRST\tLAST\tLAST KIND")
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", r.RunID, r.Events, r.First.Format("2006-01-02 15:04:05"), r.Last.Format("15:04:05"), r.LastKind)
	}
	return tw.Flush()
}
