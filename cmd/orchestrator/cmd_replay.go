package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/flow"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/scrub"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// openSource opens a data dir's records for bundle assembly.
func openSource(ctx context.Context, dataDir string) (replay.Source, func(), error) {
	el, err := openEventsRO(ctx, dataDir)
	if err != nil {
		return replay.Source{}, nil, err
	}
	store, err := artifacts.OpenFS(filepath.Join(dataDir, "artifacts"))
	if err != nil {
		el.Close()
		return replay.Source{}, nil, badInput("artifact store: %v", err)
	}
	src := replay.Source{Events: el, Store: store}
	closeFn := func() { el.Close() }
	if fileExists(filepath.Join(dataDir, ledgerFile)) {
		l, err := openLedgerRO(ctx, dataDir)
		if err != nil {
			el.Close()
			return replay.Source{}, nil, err
		}
		src.Ledger = l
		closeFn = func() { el.Close(); l.Close() }
	}
	return src, closeFn, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// findBranch resolves a run and a branch as typed (full ids, unique
// prefixes, the branch's short form; see resolve.go). runID "" looks for
// the branch in every run; branchID "" names the run's winner.
func findBranch(ctx context.Context, el *eventlog.Log, runID, branchID string) (string, string, error) {
	if runID != "" {
		var err error
		if runID, err = resolveRun(ctx, el, runID); err != nil {
			return "", "", err
		}
	}
	if branchID != "" {
		ref, err := resolveBranch(ctx, el, runID, branchID)
		return ref.RunID, ref.BranchID, err
	}
	evs, err := el.Events(ctx, runID, eventlog.Query{Kinds: []string{eventlog.KindWinner}})
	if err != nil {
		return "", "", err
	}
	if len(evs) == 0 {
		return "", "", badInput("run %s has no winner: give a branch id (`orchestrator events %s` names its branches)", runID, runID)
	}
	return runID, evs[len(evs)-1].BranchID, nil
}

// buildVerified builds a bundle of a branch from the data dir, after the
// run's event log has verified (its hash chain, its summary, its agreement
// with the ledger): a bundle is evidence, and is never made from a record
// that was tampered with. A tampered log, or an artifact that is missing
// or does not hash to its name, is a failed audit (exit 7).
func buildVerified(ctx context.Context, src replay.Source, dataDir, run, br string, kind bundle.Kind) (*bundle.Bundle, error) {
	if err := auditRun(ctx, src.Events, dataDir, run); err != nil {
		return nil, err
	}
	b, err := replay.Build(ctx, src, run, br, kind)
	var corrupt *artifacts.CorruptError
	switch {
	case err == nil:
		return b, nil
	case errors.As(err, &corrupt), errors.Is(err, artifacts.ErrNotFound):
		return nil, fmt.Errorf("%w: run %s branch %s: %v", orchestrator.ErrVerify, run, br, err)
	}
	return nil, badInput("%v", err)
}

func cmdBundle(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bundle", flag.ContinueOnError)
	dataDir := fs.String("data-dir", orchestrator.DefaultDataDir, "data dir")
	out := fs.String("o", "", "output file (default DATA_DIR/bundles/RUN-BRANCH.bundle)")
	asCommit := fs.Bool("commit", false, "a commit bundle: the winner plus the committer's steps and evidence")
	har := fs.String("har", "", "also write the bundle's network as HAR 1.2 to this file")
	asJSON := fs.Bool("json", false, "print what was written as JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orchestrator bundle RUN_ID [BRANCH_ID] [flags]")
		fs.PrintDefaults()
	}
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return wrongArgs(fs, stderr, pos, "RUN_ID and optionally BRANCH_ID")
	}
	src, closeFn, err := openSource(ctx, *dataDir)
	if err != nil {
		return err
	}
	defer closeFn()
	branchID := ""
	if len(pos) == 2 {
		branchID = pos[1]
	}
	run, br, err := findBranch(ctx, src.Events, pos[0], branchID)
	if err != nil {
		return err
	}
	kind := bundle.KindBranch
	if *asCommit {
		kind = bundle.KindCommit
	}
	b, err := buildVerified(ctx, src, *dataDir, run, br, kind)
	if err != nil {
		return err
	}
	path := *out
	if path == "" {
		path = filepath.Join(*dataDir, "bundles", run+"-"+br+".bundle")
		os.MkdirAll(filepath.Dir(path), 0o755)
	}
	if err := bundle.WriteFile(path, b); err != nil {
		return err
	}
	if *har != "" {
		data, err := bundle.HAR(b)
		if err != nil {
			return err
		}
		if err := os.WriteFile(*har, data, 0o644); err != nil {
			return err
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, bundleWritten{Path: path, RunID: run, BranchID: br, Kind: string(kind), Steps: len(b.Steps),
			Requests: len(b.Network), Bytes: st.Size(), HAR: *har, ExitCode: 0})
	}
	fmt.Fprintf(stdout, "bundle %s: run %s branch %s, %d steps, %d requests, %d bytes\n", path, run, br, len(b.Steps), len(b.Network), st.Size())
	return nil
}

// bundleWritten is what bundle --json prints.
type bundleWritten struct {
	Path     string `json:"path"`
	RunID    string `json:"run_id"`
	BranchID string `json:"branch_id"`
	Kind     string `json:"kind"`
	Steps    int    `json:"steps"`
	Requests int    `json:"requests"`
	Bytes    int64  `json:"bytes"`
	HAR      string `json:"har,omitempty"`
	ExitCode int    `json:"exit_code"`
}

func cmdValidate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON (a bundle's report)")
	schema := fs.Bool("schema", false, "print the task file's JSON Schema (for editors) and exit")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orchestrator validate FILE... [--json]\n       orchestrator validate --schema > task.schema.json\n\n"+
			"Checks without running: a task file (parsed and validated, with file, line and field on error),\n"+
			"a flow file, or a replay bundle (its integrity, offline). --schema prints the JSON Schema of\n"+
			"task files, which editors read for completion and underlining.\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if *schema {
		if len(pos) > 0 {
			return wrongArgs(fs, stderr, pos, "no file with --schema")
		}
		_, err := stdout.Write(task.JSONSchemaBytes())
		return err
	}
	if len(pos) == 0 {
		return wrongArgs(fs, stderr, pos, "a task file, a flow file or a bundle to check")
	}
	var first error
	for _, path := range pos {
		var err error
		st, serr := os.Stat(path)
		switch {
		case strings.EqualFold(filepath.Ext(path), ".bundle") || serr == nil && !st.Mode().IsRegular():
			// What is no regular file is refused unread, as a bundle is.
			err = validateBundle(path, *asJSON, stdout)
		case isFlowFile(path):
			err = validateFlow(ctx, path, stdout)
		default:
			err = validateTask(path, stdout)
		}
		if err != nil {
			if len(pos) > 1 {
				fmt.Fprintf(stdout, "%s\n", errorLine(err))
			}
			if first == nil {
				first = err
			}
		}
	}
	return first
}

// isFlowFile reports whether a YAML or JSON file reads as a flow: a
// schema_version and actions at the top, where a task has a start_url.
func isFlowFile(path string) bool {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() > task.MaxFileSize*4 {
		return false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var top map[string]any
	if yaml.Unmarshal(data, &top) != nil {
		return false
	}
	_, actions := top["actions"]
	_, start := top["start_url"]
	return actions && !start
}

// validateTask loads a task file as run does and says what it is; a
// secret input whose environment variable is not set here is a note.
func validateTask(path string, stdout io.Writer) error {
	t, err := task.Load(path)
	if err != nil {
		return err
	}
	ends := "its goal (no commit)"
	if t.HasCommit() {
		ends = "the commit boundary, then one commit"
	}
	fmt.Fprintf(stdout, "task %s: OK: %q from %s to %s; %d input(s), search %s width %d, %d worker(s)\n", path, t.Name, t.StartURL, ends,
		len(t.Inputs), t.Search.Strategy, t.Search.BeamWidth, t.Search.Workers)
	if err := t.CheckSecrets(); err != nil {
		fmt.Fprintf(stdout, "  note: %s (a run needs it)\n", strings.TrimPrefix(errorLine(err), "orchestrator: "))
	}
	return nil
}

// validateFlow loads a flow file as play does and says what it holds.
func validateFlow(ctx context.Context, path string, stdout io.Writer) error {
	f, err := flow.Load(ctx, path)
	if err != nil {
		return badInput("%v", err)
	}
	unsupported, redacted := 0, 0
	for _, a := range f.Actions {
		if !a.Supported() {
			unsupported++
		}
		if a.Redacted {
			redacted++
		}
	}
	fmt.Fprintf(stdout, "flow %s: OK: %d action(s)", path, len(f.Actions))
	if unsupported > 0 {
		fmt.Fprintf(stdout, ", %d of a kind playback skips (unsupported_action_type)", unsupported)
	}
	if redacted > 0 {
		fmt.Fprintf(stdout, ", %d redacted (play --set supplies them)", redacted)
	}
	fmt.Fprintln(stdout)
	return nil
}

// validateBundle checks a bundle's integrity offline.
func validateBundle(path string, asJSON bool, stdout io.Writer) error {
	f, err := bundle.OpenFile(path)
	if err != nil {
		return badInput("%v", err)
	}
	defer f.Close()
	rep, err := bundle.Validate(f, bundle.Limits{})
	if rep == nil && err != nil {
		return fmt.Errorf("%w: %s: %v", orchestrator.ErrVerify, path, err)
	}
	if asJSON {
		writeJSON(stdout, rep)
	} else if rep.OK() && err == nil {
		fmt.Fprintf(stdout, "validate %s: OK: %d files, %d steps, %d events, merkle root %s\n", path, rep.Files, rep.Steps, rep.Events, rep.MerkleRoot)
	} else {
		fmt.Fprintf(stdout, "validate %s: FAILED (%d problems)\n", path, len(rep.Problems))
		for _, p := range rep.Problems {
			fmt.Fprintf(stdout, "  %s\n", p.String())
		}
	}
	if err != nil || !rep.OK() {
		first := "invalid"
		if len(rep.Problems) > 0 {
			first = rep.Problems[0].String()
		} else if err != nil {
			first = err.Error()
		}
		return fmt.Errorf("%w: %s: %s", orchestrator.ErrVerify, path, first)
	}
	return nil
}

func cmdReplay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	dataDir := fs.String("data-dir", orchestrator.DefaultDataDir, "data dir (when replaying a branch id)")
	runID := fs.String("run", "", "the run of the branch (default: search every run)")
	live := fs.Bool("live", false, "replay against the live site (same manifest, live network); guarded requests are never sent and a commit bundle stops at the commit boundary")
	startURL := fs.String("start-url", "", "with --live: the same site at another address")
	analytical := fs.Bool("analytical", false, "no browser: recompute scores from the recorded observations and check the same branch wins")
	noControls := fs.Bool("no-controls", false, "switch the determinism controls off (to see what they buy)")
	heal := fs.Bool("heal", false, "resolve targets through the full healing cascade (a fallback match confirmed by its neighbourhood or box, the recorded box last) and report healed steps")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	var bf browserFlags
	bf.register(fs, "with --live: ")
	failUnrecorded := fs.Bool("fail-on-unrecorded", false, "strict replay: any request the recording does not hold fails the replay (exit 7), as a regression gate")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orchestrator replay BUNDLE|BRANCH_ID [flags]")
		fs.PrintDefaults()
	}
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return wrongArgs(fs, stderr, pos, "BUNDLE or BRANCH_ID to replay")
	}
	if *failUnrecorded && (*live || *analytical) {
		return badInput("--fail-on-unrecorded applies to a strict replay, not --live or --analytical")
	}
	var b *bundle.Bundle
	if fileExists(pos[0]) || strings.ContainsAny(pos[0], "/.") {
		if b, err = bundle.ReadFile(pos[0], bundle.Limits{}); err != nil {
			return fmt.Errorf("%w: %s: %v", orchestrator.ErrVerify, pos[0], err)
		}
	} else {
		src, closeFn, err := openSource(ctx, *dataDir)
		if err != nil {
			return err
		}
		defer closeFn()
		run, br, err := findBranch(ctx, src.Events, *runID, pos[0])
		if err != nil {
			return err
		}
		if *analytical {
			rep, err := replay.Analyze(ctx, src.Events, run)
			printAnalysis(stdout, rep, *asJSON)
			if err != nil {
				return fmt.Errorf("%w: %v", orchestrator.ErrVerify, err)
			}
			return nil
		}
		if b, err = buildVerified(ctx, src, *dataDir, run, br, bundle.KindBranch); err != nil {
			return err
		}
	}
	if *analytical {
		rep, err := replay.AnalyzeBundle(b)
		printAnalysis(stdout, rep, *asJSON)
		if err != nil {
			return fmt.Errorf("%w: %v", orchestrator.ErrVerify, err)
		}
		return nil
	}
	rt, err := bf.launch(ctx)
	if err != nil {
		return err
	}
	defer rt.Close()
	opts := replay.Options{Live: *live, StartURL: *startURL, NoControls: *noControls, Heal: *heal, IgnoreHTTPSErrors: bf.insecure, FailOnUnrecorded: *failUnrecorded}
	if key, err := scrub.ReadKey(*dataDir, b.Manifest.RunID); err == nil {
		// The run's own data dir: its key gives page-made personal
		// values the tokens they got at capture.
		opts.ScrubKey = key
	}
	if !*asJSON && isTTY(stderr) {
		// One line, redrawn: the step being compared and the tally.
		matched := 0
		opts.OnStep = func(sr replay.StepReport) {
			if sr.Match {
				matched++
			}
			fmt.Fprint(stderr, "\r\033[K"+fitLine([]string{fmt.Sprintf("[step %d/%d]", sr.Index, len(b.Steps)),
				fmt.Sprintf("%d matched", matched), sr.Action}, termWidth(stderr)-1))
		}
		defer fmt.Fprint(stderr, "\r\033[K")
	}
	rep, rerr := replay.Replay(ctx, rt, b, opts)
	if rep == nil {
		return rerr
	}
	if *asJSON {
		writeJSON(stdout, rep)
	} else {
		printReplay(stdout, rep)
	}
	if errors.Is(rerr, replay.ErrNothingToReplay) {
		return badInput("%s: %v", pos[0], rerr)
	}
	if rerr != nil {
		return fmt.Errorf("%w: %v", orchestrator.ErrVerify, rerr)
	}
	return nil
}

func printReplay(w io.Writer, r *replay.Report) {
	fmt.Fprintf(w, "replay (%s) of branch %s, run %s: RSR %.2f, DVR %.2f", r.Mode, r.BranchID, r.RunID, r.RSR, r.DVR)
	if r.TTD > 0 {
		fmt.Fprintf(w, ", TTD step %d", r.TTD)
	}
	fmt.Fprintf(w, " (%s, %d responses served)\n", r.Duration.Round(time.Millisecond), r.Served)
	for _, s := range r.Steps {
		mark := "ok  "
		switch {
		case !s.Match:
			mark = "DIFF"
		case s.Advisory:
			mark = "ok~ " // its hashes, an ancestor's, differ: see the note
		}
		screen := ""
		if s.ScreenDiff != nil {
			screen = fmt.Sprintf("  screen %.3f", *s.ScreenDiff) // advisory
		}
		fmt.Fprintf(w, "  %s %2d. %-48s dom %s ax %s net %s  %s%s\n", mark, s.Index, clipTo(s.Action, 48), yes(s.DOM), yes(s.AX), yes(s.Net), s.Status, screen)
		if s.HealedSelector != "" {
			fmt.Fprintf(w, "           healed by %s: %s\n", s.Strategy, s.HealedSelector)
		}
	}
	if r.Healed > 0 {
		fmt.Fprintf(w, "  %d step(s) healed: their targets were found by a fallback strategy\n", r.Healed)
	}
	for _, u := range r.Unrecorded {
		fmt.Fprintf(w, "  unrecorded request at step %d: %s %s (blocked)\n", u.Step, u.Method, u.URL)
	}
	for _, b := range r.Blocked {
		fmt.Fprintf(w, "  guarded request not sent: %s\n", b)
	}
	if s := r.Stop; s != nil {
		fmt.Fprintf(w, "  stopped before step %d of %d: %s\n", s.Step, s.Of, s.Reason)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	if r.Diff != "" {
		fmt.Fprint(w, r.Diff)
	}
}

func printAnalysis(w io.Writer, r *replay.Analysis, asJSON bool) {
	if r == nil {
		return
	}
	if asJSON {
		writeJSON(w, r)
		return
	}
	fmt.Fprintf(w, "analytical replay of run %s: %d branches rescored, %d scores differ; recorded winner %s, recomputed winner %s\n",
		r.RunID, r.Branches, len(r.Mismatches), r.RecordedWinner, r.RecomputedWinner)
	for _, m := range r.Mismatches {
		fmt.Fprintf(w, "  %s\n", m)
	}
}

func yes(b bool) string {
	if b {
		return "="
	}
	return "≠"
}

func clipTo(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
