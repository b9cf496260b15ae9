package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/flow"
	"github.com/multiverse-orchestrator/multiverse/internal/atomicfile"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/playback"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// setFlag collects repeated --set KEY=VALUE flags.
type setFlag []string

func (s *setFlag) String() string     { return strings.Join(*s, ",") }
func (s *setFlag) Set(v string) error { *s = append(*s, v); return nil }

func cmdPlay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("play", flag.ContinueOnError)
	dataDir := fs.String("data-dir", orchestrator.DefaultDataDir, "data dir (when FLOW is RUN_ID/BRANCH_ID); screenshots go under DATA_DIR/playback")
	startURL := fs.String("start-url", "", "play against the same site at another address (its origin replaces the flow's)")
	onError := fs.String("on-error", string(playback.Continue), "after a failed action: continue, skip_dependent (skip type/select/check until a click or navigate succeeds) or stop")
	timing := fs.String("timing", string(playback.Fast), "fast, or recorded (wait the recorded delays, at most 30s each)")
	viewport := fs.String("viewport", "", "play at WIDTHxHEIGHT instead of the flow's viewport (recorded boxes are scaled)")
	shots := fs.String("shots", "", "directory for screenshots of failed and healed actions (default DATA_DIR/playback/PLAYBACK_ID)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	authTask := fs.String("auth", "", "log in as TASK.yaml's auth says before the first action: its storage_state, then its scripted login (run with writes allowed, as a run's login is)")
	var bf browserFlags
	bf.register(fs, "")
	engineAddr := fs.String("engine", "", "play on the warm engine at HOST:PORT (orchestrator engine): its Chromium, its data dir for screenshots; env: values are read from the engine's environment")
	var sets setFlag
	fs.Var(&sets, "set", "INDEX=VALUE or INPUT=VALUE: a value the flow does not hold; VALUE env:NAME reads it from the environment, the only form a secret accepts (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orchestrator play FLOW.yaml|BUNDLE|RUN_ID/BRANCH_ID [flags]")
		fs.PrintDefaults()
	}
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return wrongArgs(fs, stderr, pos, "FLOW.yaml, a bundle or RUN_ID/BRANCH_ID to play")
	}
	opts, err := playOptions(*onError, *timing, *viewport, *startURL)
	if err != nil {
		return err
	}
	f, err := loadFlow(ctx, pos[0], *dataDir)
	if err != nil {
		return err
	}
	if *engineAddr != "" {
		if err := refuseFlags(fs, playEngineOnly, "the engine plays with its own browser and keeps the screenshots in its data dir; play here for --auth"); err != nil {
			return err
		}
		return playOnEngine(ctx, *engineAddr, f, sets, opts, bf.insecure, *asJSON, stdout, stderr)
	}
	return playHere(ctx, f, opts, localPlay{what: pos[0], dataDir: *dataDir, shots: *shots, authTask: *authTask, sets: sets, bf: &bf, asJSON: *asJSON},
		stdout, stderr)
}

// localPlay is what a playback in this process takes besides the flow
// and the options its mode flags gave.
type localPlay struct {
	what                     string // the flow's argument, for errors
	dataDir, shots, authTask string
	sets                     setFlag
	bf                       *browserFlags
	asJSON                   bool
}

// playHere plays f in a session of a Chromium of its own (logged in as
// --auth says), prints the report and fails with ErrVerify when an
// action failed.
func playHere(ctx context.Context, f *flow.Flow, opts playback.Options, lp localPlay, stdout, stderr io.Writer) error {
	var err error
	if opts.Values, err = playValues(lp.sets, f, true); err != nil {
		return err
	}
	id := ulid.Make().String()
	dir := lp.shots
	if dir == "" {
		dir = filepath.Join(lp.dataDir, "playback", id)
	}
	opts.Shots = playback.DirShots(dir)
	if !lp.asJSON {
		opts.Progress = func(r playback.Result) { fmt.Fprintln(stderr, resultLine(r)) }
	}
	var auth *task.Task
	if lp.authTask != "" {
		if auth, err = task.Load(lp.authTask); err != nil {
			return err
		}
		opts.Secrets = auth.SecretValues()
	}
	so, err := playback.SessionOptions(f, opts)
	if err != nil {
		return badInput("%s: %v", lp.what, err)
	}
	so.Env.IgnoreHTTPSErrors = lp.bf.insecure
	rt, err := lp.bf.launch(ctx)
	if err != nil {
		return err
	}
	defer rt.Close()
	if auth != nil {
		if so.State, err = playLogin(ctx, rt, auth, so, stderr); err != nil {
			return err
		}
	}
	sess, err := rt.NewSession(ctx, so)
	if err != nil {
		return err
	}
	defer sess.Close()
	rep, perr := playback.Play(ctx, sess, f, opts)
	if lp.asJSON {
		writeJSON(stdout, struct {
			ID string `json:"playback_id"`
			*playback.Report
		}{id, rep})
	} else {
		printPlayback(stdout, id, rep)
	}
	if perr != nil {
		return perr
	}
	if !rep.OK() {
		return fmt.Errorf("%w: playback %s: %d of %d actions failed, %d skipped", orchestrator.ErrVerify, id, rep.Failed, rep.Total, rep.Skipped+rep.NotRun)
	}
	return nil
}

// playOptions checks the mode flags.
func playOptions(onError, timing, viewport, startURL string) (playback.Options, error) {
	o := playback.Options{OnError: playback.OnError(onError), Timing: playback.Timing(timing), StartURL: startURL}
	if viewport != "" {
		w, h, ok := strings.Cut(viewport, "x")
		o.Width, _ = strconv.Atoi(w)
		o.Height, _ = strconv.Atoi(h)
		if !ok || o.Width == 0 || o.Height == 0 {
			return o, badInput("--viewport %q: want WIDTHxHEIGHT, e.g. 1280x800", viewport)
		}
	}
	if err := o.Check(); err != nil {
		return o, badInput("%v", err)
	}
	return o, nil
}

// loadFlow reads FLOW: a flow file, a bundle, or RUN_ID/BRANCH_ID in the
// data dir (its branch exported as a flow).
func loadFlow(ctx context.Context, arg, dataDir string) (*flow.Flow, error) {
	if fileExists(arg) {
		switch strings.ToLower(filepath.Ext(arg)) {
		case ".yaml", ".yml", ".json":
			f, err := flow.Load(ctx, arg)
			if err != nil {
				return nil, badInput("%v", err)
			}
			return f, nil
		}
		b, err := bundle.ReadFile(arg, bundle.Limits{})
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", orchestrator.ErrVerify, arg, err)
		}
		return flowOf(b, arg)
	}
	switch strings.ToLower(filepath.Ext(arg)) {
	case ".yaml", ".yml", ".json", ".bundle":
		return nil, badInput("%s: no such file", arg)
	}
	run, br, ok := strings.Cut(arg, "/")
	if !ok || run == "" {
		return nil, badInput("%s is neither a file nor RUN_ID/BRANCH_ID", arg)
	}
	src, closeFn, err := openSource(ctx, dataDir)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	winner := br == ""
	if run, br, err = findBranch(ctx, src.Events, run, br); err != nil {
		return nil, err
	}
	b, err := buildVerified(ctx, src, dataDir, run, br, bundle.KindBranch)
	if err != nil {
		return nil, err
	}
	f, err := flowOf(b, arg)
	if err != nil || !winner {
		return f, err
	}
	return minimalFlow(ctx, src.Events, run, br, f)
}

// minimalFlow leaves out of a winner's flow the steps the run's minimal
// plan found not needed (RUN/ names the minimal plan when the run found
// one), and says so in the flow's notes.
func minimalFlow(ctx context.Context, el *eventlog.Log, run, winner string, f *flow.Flow) (*flow.Flow, error) {
	evs, err := el.Events(ctx, run, eventlog.Query{Kinds: []string{eventlog.KindMinimalPlan}})
	if err != nil {
		return nil, err
	}
	for _, e := range evs {
		m, err := payload.Decode[payload.MinimalPlan](e)
		if err != nil {
			return nil, fmt.Errorf("%w: run %s: minimal_plan event %d: %v", orchestrator.ErrVerify, run, e.Seq, err)
		}
		if m.Winner != winner || len(m.Removed) == 0 {
			continue
		}
		kept := f.Actions[:0:0]
		for i, a := range f.Actions {
			if !slices.Contains(m.Removed, i+1) {
				kept = append(kept, a)
			}
		}
		f.Actions = kept
		f.Notes = append(f.Notes, fmt.Sprintf("the minimal plan: the winner's %d steps without %s, which branch %s showed were not needed",
			m.WinnerSteps, strings.Join(m.Actions, ", "), e.BranchID))
	}
	return f, nil
}

func flowOf(b *bundle.Bundle, from string) (*flow.Flow, error) {
	f, err := flow.FromBundle(b)
	if err != nil {
		return nil, badInput("%s: %v", from, err)
	}
	return f, nil
}

// playValues reads --set KEY=VALUE: KEY a 1-based action index or an
// input name the flow uses, VALUE literal or env:NAME (read here when
// readEnv, else kept for an engine to read in its own environment). A
// secret action takes only env:NAME: a secret never stands on a command
// line.
func playValues(sets []string, f *flow.Flow, readEnv bool) (map[string]string, error) {
	out := map[string]string{}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return nil, badInput("--set %q: want INDEX=VALUE or INPUT=VALUE", s)
		}
		known, secret := playback.Names(f, k)
		if !known {
			return nil, badInput("--set %s: the flow has no action %s and no input %s", k, k, k)
		}
		if name, isEnv := strings.CutPrefix(v, "env:"); isEnv && !readEnv {
			// kept as the reference: the engine reads it from its own environment
		} else if isEnv {
			val, found := os.LookupEnv(name)
			if !found {
				return nil, badInput("--set %s=env:%s: the environment has no %s", k, name, name)
			}
			v = val
		} else if secret {
			return nil, badInput("--set %s: a secret is supplied by environment reference only (--set %s=env:NAME)", k, k)
		}
		out[k] = v
	}
	return out, nil
}

func resultLine(r playback.Result) string {
	line := fmt.Sprintf("%3d  %-7s %s", r.Index, r.Status, r.Label)
	if r.Status == "healed" {
		line += fmt.Sprintf("  (by %s: %s)", r.SelectorUsed, r.HealedSelector)
	}
	if r.ErrorCode != "" {
		line += "  [" + string(r.ErrorCode)
		if r.LikelyCause != "" {
			line += ", likely " + r.LikelyCause
		}
		line += "] " + r.Error
	}
	return line
}

func printPlayback(w io.Writer, id string, rep *playback.Report) {
	fmt.Fprintf(w, "playback %s of %q: %s in %s\n", id, rep.Flow, rep.Status, time.Duration(rep.DurationMS)*time.Millisecond)
	fmt.Fprintf(w, "  %d actions: %d executed (%d healed), %d failed, %d skipped", rep.Total, rep.Executed, rep.Healed, rep.Failed, rep.Skipped)
	if rep.NotRun > 0 {
		fmt.Fprintf(w, ", %d not run after the stop", rep.NotRun)
	}
	fmt.Fprintln(w)
	for _, s := range rep.Warnings {
		fmt.Fprintln(w, "  warning:", s)
	}
	for _, b := range rep.Blocked {
		fmt.Fprintln(w, "  blocked:", b)
	}
	for _, s := range rep.Screenshots {
		fmt.Fprintln(w, "  screenshot:", s)
	}
	if why := partial(rep); why != "" {
		fmt.Fprintln(w, "  partial:", why)
	}
}

// playLogin is the session a playback starts from when --auth names a
// task: the task's storage state, then its scripted login run in a
// session of its own that may post its form (playback itself holds every
// state-changing request). A login that fails is the playback's failure,
// with the step and why.
func playLogin(ctx context.Context, rt *browser.Runtime, t *task.Task, so browser.SessionOptions, stderr io.Writer) (*task.StorageState, error) {
	var st *task.StorageState
	if in := t.Auth.StorageState; in != nil {
		var err error
		if st, err = task.ResolveStorageState(*in); err != nil {
			return nil, badInput("%s: auth.storage_state: %v", t.File(), err)
		}
	}
	if len(t.Auth.Login) == 0 {
		if st == nil {
			return nil, badInput("%s: the task has no auth (storage_state or login) to play with", t.File())
		}
		return st, nil
	}
	lso := so
	lso.State, lso.SendWrites = st, true
	sess, err := rt.NewSession(ctx, lso)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	resolve := func(name string) (string, error) {
		in, ok := t.Inputs[name]
		if !ok {
			return "", fmt.Errorf("the task has no input %q", name)
		}
		return in.Resolve()
	}
	for i, a := range t.LoginActions() {
		r, err := sess.Do(ctx, a, resolve)
		if err == nil && r.Status == branch.StatusFailed {
			err = fmt.Errorf("%s (%s)", r.Error, r.Code)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s, step %d (%s): %v", orchestrator.ErrLoginFailed, t.File(), i+1, a.Describe(), err)
		}
	}
	fmt.Fprintf(stderr, "logged in as %s says (%d steps)\n", t.File(), len(t.Auth.Login))
	return sess.State()
}

// partial says what a playback did not run and why, "" when it ran every
// action: the skipped actions by number with their reason, and where it
// stopped.
func partial(rep *playback.Report) string {
	var parts []string
	for _, r := range rep.Results {
		switch {
		case r.Status == playback.StatusSkipped:
			parts = append(parts, fmt.Sprintf("#%d %s skipped (%s: %s)", r.Index, r.Label, r.ErrorCode, r.Error))
		case r.Status == branch.StatusFailed && rep.NotRun > 0 && r.Index == len(rep.Results):
			parts = append(parts, fmt.Sprintf("stopped at #%d %s (%s); %d action(s) after it not run", r.Index, r.Label, r.ErrorCode, rep.NotRun))
		}
	}
	return strings.Join(parts, "; ")
}

func cmdFlow(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "export" {
		fmt.Fprintln(stderr, "usage: orchestrator flow export RUN_ID/BRANCH_ID|BUNDLE [-o FILE] [--json] [--data-dir DIR]")
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return errHelp
		}
		return errUsage
	}
	fs := flag.NewFlagSet("flow export", flag.ContinueOnError)
	dataDir := fs.String("data-dir", orchestrator.DefaultDataDir, "data dir")
	out := fs.String("o", "", "write the flow file here (default: standard output)")
	asJSON := fs.Bool("json", false, "write the flow as JSON (JSON is YAML: play reads it as it is)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orchestrator flow export RUN_ID/BRANCH_ID|BUNDLE [-o FILE] [--json] [--data-dir DIR]")
		fs.PrintDefaults()
	}
	pos, err := parse(fs, args[1:], stderr)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return wrongArgs(fs, stderr, pos, "RUN_ID/BRANCH_ID or a bundle to export")
	}
	f, err := loadFlow(ctx, pos[0], *dataDir)
	if err != nil {
		return err
	}
	switch {
	case *out == "" && *asJSON:
		return writeJSON(stdout, f)
	case *out == "":
		return flow.Write(stdout, f)
	case *asJSON:
		data, err := json.MarshalIndent(f, "", "  ")
		if err != nil {
			return err
		}
		if err := atomicfile.Write(*out, append(data, '\n'), 0o644); err != nil {
			return badInput("-o %v", err)
		}
		return writeJSON(stdout, map[string]any{"path": *out, "actions": len(f.Actions), "exit_code": 0})
	}
	return writeFlowFile(*out, f, stdout)
}

// writeFlowFile writes f to path through a temporary file, so a failed
// write never leaves half a flow where a good one was.
func writeFlowFile(path string, f *flow.Flow, stdout io.Writer) error {
	var b bytes.Buffer
	if err := flow.Write(&b, f); err != nil {
		return err
	}
	if err := atomicfile.Write(path, b.Bytes(), 0o644); err != nil {
		return badInput("-o %v", err)
	}
	fmt.Fprintf(stdout, "wrote %s (%d actions)\n", path, len(f.Actions))
	return nil
}
