package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/engine"
	"github.com/multiverse-orchestrator/multiverse/flow"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/playback"
)

// cmdEngine starts a warm engine over a data dir and serves its API until
// ctx is cancelled.
func cmdEngine(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("engine", flag.ContinueOnError)
	dataDir := fs.String("data-dir", orchestrator.DefaultDataDir, "the data dir the engine's runs record themselves in (and its JetStream store)")
	lf := registerListen(fs, "127.0.0.1:8621", "Authorization: Bearer TOKEN")
	chromium := fs.String("chromium", "", "Chromium executable (default: MULTIVERSE_CHROMIUM, then system paths)")
	driver := fs.String("driver", "", "Playwright driver directory (default: PLAYWRIGHT_DRIVER_PATH, then .cache/playwright-driver)")
	headful := fs.Bool("headful", false, "show the browser windows")
	var playEnv []string
	fs.Func("play-env", "an environment variable a submitted flow's values may read as env:NAME (repeatable; none by default)", func(s string) error {
		playEnv = append(playEnv, s)
		return nil
	})
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orchestrator engine [--data-dir DIR] [--addr 127.0.0.1:8621] [--token-file FILE | --token T]\n\n"+
			"Keeps the embedded NATS server and Chromium running and runs the tasks submitted to it\n"+
			"(orchestrator run --engine ADDR TASK.yaml) one after another; orchestrator status ID reports on each.\n"+
			"A task's secrets are read from the engine's environment; a flow's env:NAME values only for the names given with --play-env.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := parseNone(fs, args, stderr); err != nil {
		return err
	}
	token, err := lf.token()
	if err != nil {
		return err
	}
	ln, err := lf.listen("engine", "engine")
	if err != nil {
		return err
	}
	e, err := engine.Start(ctx, engine.Options{DataDir: *dataDir, Browser: browser.Options{ChromiumPath: *chromium, DriverDir: *driver, Headful: *headful},
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), PlayEnv: playEnv})
	if err != nil {
		ln.Close()
		return err
	}
	fmt.Fprintf(stdout, "engine over data dir %s at http://%s/ (Ctrl-C stops; orchestrator run --engine %s TASK.yaml)\n", *dataDir, ln.Addr(), ln.Addr())
	// The engine stops before the server: the run it interrupts records
	// so, and its watchers get that last report before the server stops
	// answering.
	return serveUntil(ctx, ln, e.Handler(token), serveEnd{name: "engine", detached: true, stopping: func() { e.Close() }})
}

// runOnEngine submits the task file at path to the engine, follows it to
// its end and prints its summary as a run here would.
func (f *runFlags) runOnEngine(ctx context.Context, path string, stdout, stderr io.Writer) (string, *orchestrator.Summary, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Base(path), nil, badInput("%s: %v", path, err)
	}
	req := engine.Request{TaskFile: abs, StartURL: f.startURL, Seed: f.seed, NoCache: f.noCache, Cold: f.cold, Screenshots: f.shots}
	if f.workers > 0 {
		req.Workers = f.workers
	}
	if f.noShots {
		req.Screenshots = "none"
	}
	c := engine.NewClient(f.engine, os.Getenv(tokenEnv))
	rep, err := c.Submit(ctx, req)
	if err != nil {
		return filepath.Base(path), nil, err
	}
	fmt.Fprintf(stderr, "orchestrator: run %s submitted to the engine at %s (orchestrator status %s)\n", rep.ID, f.engine, rep.ID)
	var progress func(orchestrator.Progress)
	if !f.json && !f.quiet && isTTY(stderr) {
		progress = newProgressLine(stderr).update
	}
	end, err := c.Watch(ctx, rep.ID, progress)
	if err != nil {
		return rep.Task, nil, err
	}
	runErr := end.Err()
	printSummary(stdout, end.Summary, runErr, f.json)
	reportHandOver(stderr, end.Summary)
	return rep.Task, end.Summary, runErr
}

// engineOnly are run's flags that configure what an engine owns: with
// --engine they are refused rather than silently ignored.
var engineOnly = []string{"data-dir", "nats", "nats-listen", "chromium", "driver", "headful", "replicas", "resolve", "llm", "cassettes", "wait-lock", "failure-bundles"}

// refuseFlags refuses the first flag of names set on the command line,
// saying why (flags a warm engine decides: with --engine they would be
// ignored silently otherwise).
func refuseFlags(fs *flag.FlagSet, names []string, why string) error {
	var bad string
	fs.Visit(func(fl *flag.Flag) {
		if bad == "" && slices.Contains(names, fl.Name) {
			bad = fl.Name
		}
	})
	if bad != "" {
		return badInput("--%s with --engine: %s", bad, why)
	}
	return nil
}

// cmdStatus reports a run submitted to an engine: from the engine, or
// from the report stored in the data dir.
func cmdStatus(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	addr := fs.String("engine", "", "ask the engine at HOST:PORT (default: read the report stored in the data dir)")
	dataDir := fs.String("data-dir", orchestrator.DefaultDataDir, "data dir")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orchestrator status RUN_ID [--engine HOST:PORT | --data-dir DIR] [--json]\n\n"+
			"Reports a run submitted to an engine: queued, running, completed (exit 0) or failed, and its summary once it ended.\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return wrongArgs(fs, stderr, pos, "RUN_ID, the id run --engine printed")
	}
	var rep engine.Report
	if *addr != "" {
		rep, err = engine.NewClient(*addr, os.Getenv(tokenEnv)).Status(ctx, pos[0])
	} else {
		rep, err = engine.Stored(ctx, *dataDir, pos[0])
	}
	if errors.Is(err, engine.ErrNotFound) {
		return fmt.Errorf("%w: status: no run %s was submitted to %s", orchestrator.ErrBadInput, pos[0], statusWhere(*addr, *dataDir))
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, rep)
	}
	printStatus(stdout, rep)
	return nil
}

func statusWhere(addr, dataDir string) string {
	if addr != "" {
		return "the engine at " + addr
	}
	return "an engine over data dir " + dataDir
}

// printStatus prints a report.
func printStatus(w io.Writer, r engine.Report) {
	if r.Kind == engine.KindPlay {
		fmt.Fprintf(w, "playback %s: %s (flow %q)\n", r.ID, r.State, r.Task)
	} else {
		fmt.Fprintf(w, "run %s: %s (task %s, %s)\n", r.ID, r.State, r.Task, r.TaskFile)
	}
	fmt.Fprintf(w, "  submitted %s\n", r.Submitted.Format(time.RFC3339))
	if !r.Started.IsZero() {
		fmt.Fprintf(w, "  started   %s", r.Started.Format(time.RFC3339))
		if r.FirstActionMS > 0 {
			fmt.Fprintf(w, "; its first action started after %d ms", r.FirstActionMS)
		}
		fmt.Fprintln(w)
	}
	if r.Done() {
		fmt.Fprintf(w, "  ended     %s, exit %d", r.Ended.Format(time.RFC3339), r.ExitCode)
		if r.Summary != nil {
			fmt.Fprintf(w, ", %s in %s", r.Summary.Status, r.Summary.Elapsed.Round(time.Millisecond))
		}
		if p := r.Playback; p != nil {
			fmt.Fprintf(w, ", %d of %d actions executed (%d healed), %d failed", p.Executed, p.Total, p.Healed, p.Failed)
		}
		fmt.Fprintln(w)
	}
	if r.Error != "" {
		fmt.Fprintf(w, "  error     %s\n", r.Error)
	}
}

// playEngineOnly are play's flags that configure what an engine owns.
var playEngineOnly = []string{"chromium", "driver", "resolve", "auth", "shots"}

// playOnEngine submits the flow to the engine, follows the playback to
// its end and prints its report as a playback here would.
func playOnEngine(ctx context.Context, addr string, f *flow.Flow, sets []string, opts playback.Options, insecure, asJSON bool, stdout, stderr io.Writer) error {
	values, err := playValues(sets, f, false)
	if err != nil {
		return err
	}
	raw, err := engine.FlowJSON(f)
	if err != nil {
		return err
	}
	req := engine.Request{Flow: raw, Play: engine.PlayOptions{OnError: string(opts.OnError), Timing: string(opts.Timing), StartURL: opts.StartURL,
		Width: opts.Width, Height: opts.Height, IgnoreHTTPSErrors: insecure, Values: values}}
	c := engine.NewClient(addr, os.Getenv(tokenEnv))
	rep, err := c.Submit(ctx, req)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "orchestrator: playback %s submitted to the engine at %s (orchestrator status %s)\n", rep.ID, addr, rep.ID)
	end, err := c.Watch(ctx, rep.ID, nil)
	if err != nil {
		return err
	}
	if end.Playback != nil {
		if asJSON {
			writeJSON(stdout, struct {
				ID string `json:"playback_id"`
				*playback.Report
			}{end.ID, end.Playback})
		} else {
			printPlayback(stdout, end.ID, end.Playback)
		}
	}
	return end.Err()
}
