package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/examples"
	"github.com/multiverse-orchestrator/multiverse/llm"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/rerun"
	"github.com/multiverse-orchestrator/multiverse/scrub"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// swapFlags collects repeated --swap flags.
type swapFlags []replay.Swap

func (s *swapFlags) String() string { return "" }

func (s *swapFlags) Set(v string) error {
	sw, err := replay.ParseSwap(v)
	if err != nil {
		return err
	}
	*s = append(*s, sw)
	return nil
}

func cmdRerun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rerun", flag.ContinueOnError)
	dataDir := fs.String("data-dir", orchestrator.DefaultDataDir, "the data dir holding the run (read only)")
	mode := fs.String("mode", "full", "full: the recorded task, world and model answers, which must give the recorded decisions; hybrid: the task as given now and the planner as built now, against the recorded world")
	taskFile := fs.String("task", "", "the task file (default: the one the run's manifest names; its digest must be the run's)")
	out := fs.String("out", "", "the data dir the rerun records itself in (default: DATA_DIR/reruns/RUN-MODE-TIME)")
	llmMode := fs.String("llm", "", "a model planner's answers: replay (from the cassette; the default, and always in full mode) or live (hybrid only)")
	cassettes := fs.String("cassettes", "", "the cassette directory (default: the one the run recorded to)")
	workers := fs.Int("workers", 0, "in-process worker slots (default: the task's search.workers)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	var swaps swapFlags
	fs.Var(&swaps, "swap", "[BRANCH@]STEP:METHOD URL=[STATUS:]FILE: serve FILE instead of the recorded response to METHOD URL from step STEP on (repeatable; METHOD * for any)")
	var actionSwaps []string
	fs.Func("swap-action", "BRANCH@STEP=ACTION: fork ACTION (the task file's form, e.g. '{click: {text: Annual}}') in place of step STEP of the recorded branch BRANCH (repeatable)",
		func(v string) error { actionSwaps = append(actionSwaps, v); return nil })
	var bf browserFlags
	bf.register(fs, "")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orchestrator rerun RUN [flags]")
		fs.PrintDefaults()
	}
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return wrongArgs(fs, stderr, pos, "RUN, the run to re-run")
	}
	m, err := rerun.ParseMode(*mode)
	if err != nil {
		return badInput("--mode %q: want full or hybrid", *mode)
	}
	var lm llm.Mode
	if *llmMode != "" {
		if lm, err = llm.ParseMode(*llmMode); err != nil || lm == llm.ModeRecord {
			return badInput("--llm %q: want replay or live", *llmMode)
		}
		if m == rerun.ModeFull && lm != llm.ModeReplay {
			return badInput("--llm %s: a full rerun answers from the cassette only (use --mode hybrid to ask the model live)", lm)
		}
	}
	src, closeFn, err := openSource(ctx, *dataDir)
	if err != nil {
		return err
	}
	defer closeFn()
	runID, err := resolveRun(ctx, src.Events, pos[0])
	if err != nil {
		return err
	}
	key, err := scrub.ReadKey(*dataDir, runID)
	if err != nil {
		return badInput("%v", err)
	}
	var t *task.Task
	if *taskFile != "" {
		if t, err = task.Load(*taskFile); err != nil {
			return err
		}
	}
	subs, err := parseActionSwaps(ctx, src, runID, actionSwaps)
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join(*dataDir, "reruns", fmt.Sprintf("%s-%s-%s", runID, m, time.Now().UTC().Format("20060102T150405")))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return badInput("--out %s: %v", dir, err)
	}
	ro := rerun.Options{Source: src, RunID: runID, Mode: m, Task: t, Swaps: swaps, ActionSwaps: subs, OutDir: dir, SourceDir: *dataDir, LoadTask: loadRunTask, LLM: lm,
		Cassettes: *cassettes, Workers: *workers, ScrubKey: key, Browser: browser.Options{ChromiumPath: bf.chromium, DriverDir: bf.driver, Resolve: bf.resolve}}
	if !*asJSON && isTTY(stderr) {
		line := newProgressLine(stderr)
		ro.Progress = line.update
		defer fmt.Fprint(stderr, "\r\033[K")
	}
	rep, err := rerun.Run(ctx, ro)
	if rep != nil {
		if *asJSON {
			writeJSON(stdout, rep)
		} else {
			printRerun(stdout, rep)
		}
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, rerun.ErrDiffers):
		return fmt.Errorf("%w: %v", orchestrator.ErrVerify, err)
	case errors.Is(err, rerun.ErrTaskChanged), errors.Is(err, rerun.ErrNoCassette), errors.Is(err, rerun.ErrBadSwap), errors.Is(err, replay.ErrSwap), errors.Is(err, replay.ErrScrubKey):
		return badInput("%v", err)
	}
	return err
}

func printRerun(w io.Writer, r *rerun.Report) {
	fmt.Fprintf(w, "rerun      %s of run %s\n", r.Mode, r.RunID)
	if r.RerunID != "" {
		fmt.Fprintf(w, "as run     %s (orchestrator events %s --data-dir %s)\n", r.RerunID, r.RerunID, r.OutDir)
	}
	for _, s := range r.Swaps {
		fmt.Fprintf(w, "swapped    %s\n", s)
	}
	status := r.Status
	if r.Error != "" {
		status = fmt.Sprintf("%s (exit %d): %s", rerunOutcome(r.ExitCode), r.ExitCode,
			strings.TrimPrefix(errorLine(errors.New(r.Error)), "orchestrator: "))
	}
	fmt.Fprintf(w, "outcome    %s\n", status)
	if c := r.Commit; c != nil && c.Key != "" {
		fmt.Fprintf(w, "commit     preflight held; it would commit under key %s (nothing was sent)\n", c.Key)
	}
	if c := r.Commit; c != nil {
		for _, s := range c.Skipped {
			fmt.Fprintf(w, "  skipped  %s\n", s)
		}
		if len(c.Changes) > 0 {
			fmt.Fprintf(w, "  changed  %s\n", strings.Join(c.Changes, "; "))
		}
	}
	r.Compared.Print(w, 10)
	if len(r.Misses) > 0 {
		fmt.Fprintf(w, "misses     %d requests the recording does not hold:\n", len(r.Misses))
		for i, m := range r.Misses {
			if i == 10 {
				fmt.Fprintf(w, "  … %d more\n", len(r.Misses)-10)
				break
			}
			fmt.Fprintf(w, "  %s\n", m)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note       %s\n", n)
	}
}

// loadRunTask loads the task file a run's manifest names; for the demo
// it is the example built into this binary when no such file is at hand.
func loadRunTask(path string) (*task.Task, error) {
	t, err := task.Load(path)
	if _, serr := os.Stat(path); err != nil && errors.Is(serr, fs.ErrNotExist) {
		if data, rerr := examples.FS.ReadFile(strings.TrimPrefix(path, "examples/")); rerr == nil {
			return task.Parse(path, data)
		}
		return nil, badInput("the run ran the task file %s, which is not here: give it with --task", path)
	}
	return t, err
}

// parseActionSwaps reads --swap-action BRANCH@STEP=ACTION flags, BRANCH
// being any form of a branch id of the run.
func parseActionSwaps(ctx context.Context, src replay.Source, runID string, flags []string) ([]rerun.ActionSwap, error) {
	var out []rerun.ActionSwap
	for _, f := range flags {
		lhs, act, ok := strings.Cut(f, "=")
		br, step, ok2 := strings.Cut(lhs, "@")
		n, err := strconv.Atoi(step)
		if !ok || !ok2 || err != nil || n < 1 || br == "" {
			return nil, badInput("--swap-action %q: want BRANCH@STEP=ACTION, e.g. 01K9X2@3='{click: {text: Annual}}'", f)
		}
		ref, err := resolveBranch(ctx, src.Events, runID, br)
		if err != nil {
			return nil, err
		}
		a, err := task.ParseAction("--swap-action "+lhs, act)
		if err != nil {
			return nil, err
		}
		out = append(out, rerun.ActionSwap{BranchID: ref.BranchID, Step: n, With: a})
	}
	return out, nil
}

// rerunOutcome names how a rerun's own run ended, by its exit code.
func rerunOutcome(code int) string {
	switch code {
	case orchestrator.ExitNoBoundary:
		return "no branch reached the boundary"
	case orchestrator.ExitAborted:
		return "the commit would have aborted"
	case orchestrator.ExitGoalFailed:
		return "the goal failed"
	case orchestrator.ExitModelMiss:
		return "a model question missed the cassette"
	case orchestrator.ExitModelDown:
		return "the model's endpoint did not answer"
	}
	return "failed"
}
