package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/examples"
	"github.com/multiverse-orchestrator/multiverse/llm"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/sites"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// runFlags are the flags run and demo share.
type runFlags struct {
	workers    int
	dataDir    string
	seed       string
	json       bool
	nats       string
	natsListen string
	chromium   string
	driver     string
	headful    bool
	startURL   string
	noShots    bool
	shots      string
	quiet      bool
	cold       bool
	noCache    bool
	replicas   int
	resolve    resolveFlag
	// failureBundles caps the bundles of failed branches a failed run
	// writes (besides its best branch); junit is the JUnit report's path.
	failureBundles int
	junit          string
	// llm is where a model planner's answers come from; cassettes
	// overrides the task's cassette directory.
	llm       string
	cassettes string
	// waitLock is how long to wait for a data dir another run holds.
	waitLock time.Duration
	// engine, when set, submits the tasks to a warm engine.
	engine string
}

// resolveFlag collects repeated --resolve host=IP flags.
type resolveFlag map[string]string

func (r *resolveFlag) String() string { return "" }

func (r *resolveFlag) Set(s string) error {
	if *r == nil {
		*r = map[string]string{}
	}
	return browser.ParseResolve(*r, s)
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.workers, "workers", -1, "in-process worker slots (default: the task's search.workers; 0: remote workers only)")
	fs.StringVar(&f.dataDir, "data-dir", orchestrator.DefaultDataDir, "where the event log, ledger, artifacts and JetStream store live")
	fs.StringVar(&f.seed, "seed", "", "run seed (default: the task's seed, else derived from the task digest)")
	fs.BoolVar(&f.json, "json", false, "print the summary as JSON")
	fs.StringVar(&f.nats, "nats", "", "join an existing NATS server or cluster (comma-separated URLs) instead of the embedded one")
	fs.StringVar(&f.natsListen, "nats-listen", "", "make the embedded NATS server listen on host:port for remote workers")
	fs.StringVar(&f.chromium, "chromium", "", "Chromium executable (default: MULTIVERSE_CHROMIUM, then system paths)")
	fs.StringVar(&f.driver, "driver", "", "Playwright driver directory (default: PLAYWRIGHT_DRIVER_PATH, then .cache/playwright-driver)")
	fs.BoolVar(&f.headful, "headful", false, "show the browser windows")
	fs.BoolVar(&f.noShots, "no-screenshots", false, "skip per-branch screenshots (--screenshots none)")
	fs.StringVar(&f.shots, "screenshots", "", "which speculative steps get a screenshot: looked (failed, healed, the boundary, the goal), all, or none (default: the task's capture.screenshots, else looked)")
	fs.BoolVar(&f.noCache, "no-cache", false, "neither follow nor store a cached plan (DATA_DIR/plans): search from zero")
	fs.BoolVar(&f.quiet, "quiet", false, "no live progress line")
	fs.IntVar(&f.replicas, "replicas", 0, "JetStream stream replicas (e.g. 3 on a three-node cluster; default: keep, 1 when new)")
	fs.Var(&f.resolve, "resolve", "host=IP: reach host at IP, in the browser and the preflight alike (repeatable)")
	fs.BoolVar(&f.cold, "cold", false, "replay every branch's prefix in a fresh context (no warm continuation)")
	fs.IntVar(&f.failureBundles, "failure-bundles", defaultFailureBundles, "when the run fails: write bundles of its best branch and of up to N failed branches under DATA_DIR/bundles/RUN_ID/ (0: none)")
	fs.StringVar(&f.junit, "junit", "", "write a JUnit XML report of the run to FILE (for CI)")
	fs.StringVar(&f.llm, "llm", "live", "for a task whose planner asks a model: live (ask it), record (ask it and keep every answer in the cassette) or replay (answer from the cassette only; a miss or an unreadable entry exits 9)")
	fs.DurationVar(&f.waitLock, "wait-lock", 0, "when another run holds the data dir: wait up to this long for it (default: refuse at once, exit 2)")
	fs.StringVar(&f.cassettes, "cassettes", "", "the cassette directory of the model's answers (default: the task's planner.cassettes, else TASKFILE.cassettes beside it)")
}

// defaultFailureBundles is how many failed branches a failed run hands
// over as bundles unless told otherwise.
const defaultFailureBundles = 5

func (f *runFlags) config(t *task.Task, stderr io.Writer) (orchestrator.Config, error) {
	if err := f.checkNATS(); err != nil {
		return orchestrator.Config{}, err
	}
	if f.seed != "" {
		s, err := strconv.ParseUint(f.seed, 0, 64)
		if err != nil {
			return orchestrator.Config{}, badInput("--seed %q is not a non-negative whole number", f.seed)
		}
		t.Seed, t.SeedSet = s, true
	}
	if f.failureBundles < 0 {
		return orchestrator.Config{}, badInput("--failure-bundles must not be negative")
	}
	switch f.shots {
	case "":
	case task.ScreenshotsLooked, task.ScreenshotsAll, task.ScreenshotsNone:
		t.Capture.Screenshots = f.shots
	default:
		return orchestrator.Config{}, badInput("--screenshots %q: want looked, all or none", f.shots)
	}
	mode, err := llm.ParseMode(f.llm)
	if err != nil {
		return orchestrator.Config{}, badInput("--llm %q: want live, record or replay", f.llm)
	}
	if f.waitLock < 0 {
		return orchestrator.Config{}, badInput("--wait-lock must not be negative")
	}
	if f.workers < -1 {
		return orchestrator.Config{}, badInput("--workers must not be negative")
	}
	if f.workers > task.MaxWorkers {
		return orchestrator.Config{}, badInput("--workers %d: at most %d in-process worker slots (start worker processes for more)", f.workers, task.MaxWorkers)
	}
	cfg := orchestrator.Config{Task: t, DataDir: f.dataDir, Workers: f.workers, NATSURL: f.nats, NATSListen: f.natsListen,
		Browser: browser.Options{ChromiumPath: f.chromium, DriverDir: f.driver, Headful: f.headful, Resolve: f.resolve}, NoScreenshots: f.noShots, Cold: f.cold, NoCache: f.noCache, Replicas: f.replicas,
		FailureBundles: f.failureBundles, LLM: mode, Cassettes: f.cassettes, WaitLock: f.waitLock,
		Notice: func(msg string) { fmt.Fprintf(stderr, "orchestrator: note: %s\n", msg) }}
	if !f.json && !f.quiet && isTTY(stderr) {
		cfg.Progress = newProgressLine(stderr).update
	}
	return cfg, nil
}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var f runFlags
	f.register(fs)
	fs.StringVar(&f.startURL, "start-url", "", "override the task's start_url (the same site at another address)")
	fs.StringVar(&f.engine, "engine", "", "submit the tasks to the warm engine at HOST:PORT (orchestrator engine) instead of starting NATS and Chromium here")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orchestrator run TASK.yaml... [flags]\n\n"+
			"Runs each task in turn (one JUnit report with a case per task under --junit); the exit code is\n"+
			"the first failed task's.\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return wrongArgs(fs, stderr, pos, "TASK.yaml, the task file to run")
	}
	if f.engine != "" {
		if err := refuseFlags(fs, engineOnly, "the engine runs with its own (set it where the engine starts)"); err != nil {
			return err
		}
		if f.workers == 0 {
			return badInput("--workers 0 with --engine: an engine runs its tasks with in-process workers")
		}
	}
	var cases []junitCase
	var first error
	for _, path := range pos {
		if ctx.Err() != nil {
			break
		}
		name, sum, err := f.runOne(ctx, path, stdout, stderr)
		cases = append(cases, junitTaskCase(name, sum, err))
		if err != nil && first == nil {
			first = err
		}
	}
	if f.junit != "" {
		host, _ := os.Hostname()
		if err := writeJUnitFile(f.junit, junitSuiteOf(cases, host)); err != nil {
			fmt.Fprintf(stderr, "orchestrator: %v\n", err)
		}
	}
	return first
}

// runOne runs the task file at path and prints its summary; the name is
// the task's (the file's when it did not load).
func (f *runFlags) runOne(ctx context.Context, path string, stdout, stderr io.Writer) (string, *orchestrator.Summary, error) {
	if f.engine != "" {
		return f.runOnEngine(ctx, path, stdout, stderr)
	}
	t, cfg, err := f.prepare(path, stderr)
	if err != nil {
		name := filepath.Base(path)
		if t != nil {
			name = t.Name
		}
		return name, nil, err
	}
	sum, err := orchestrator.Run(ctx, cfg)
	printSummary(stdout, sum, err, f.json)
	reportHandOver(stderr, sum)
	return t.Name, sum, err
}

// prepare loads the task file at path and configures its run; the task is
// returned when it loaded, even if the configuration failed.
func (f *runFlags) prepare(path string, stderr io.Writer) (*task.Task, orchestrator.Config, error) {
	t, err := task.Load(path)
	if err != nil {
		return nil, orchestrator.Config{}, err
	}
	if f.startURL != "" {
		st, err := t.WithStartURL(f.startURL)
		if err != nil {
			return t, orchestrator.Config{}, err
		}
		t = st
	}
	cfg, err := f.config(t, stderr)
	return t, cfg, err
}

// finish reports on stderr what a failed run could not hand over and
// writes the JUnit report when asked. Neither changes the run's error,
// which the caller returns (and main reports after these lines).
func (f *runFlags) finish(stderr io.Writer, task string, sum *orchestrator.Summary, runErr error) {
	reportHandOver(stderr, sum)
	if f.junit == "" {
		return
	}
	if err := writeJUnitFile(f.junit, junitReport(task, sum, runErr)); err != nil {
		fmt.Fprintf(stderr, "orchestrator: %v\n", err)
	}
}

func cmdDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	var f runFlags
	f.register(fs)
	latency := fs.Duration("latency", demoLatency, "demo site response latency")
	ab := fs.String("ab", "A", "demo site A/B variant: A, B or random")
	chaos := fs.Bool("chaos", false, "turn on the demo site's chaos: a late cookie modal, lazy-loaded plans, Math.random and Date in pages, timer races")
	fs.Usage = func() { fmt.Fprintln(stderr, "usage: orchestrator demo [flags]"); fs.PrintDefaults() }
	if err := parseNone(fs, args, stderr); err != nil {
		return err
	}
	data, err := examples.FS.ReadFile(examples.DemoTask)
	if err != nil {
		return err
	}
	t, err := task.Parse("examples/"+examples.DemoTask, data)
	if err != nil {
		return err
	}
	knobs := sites.DefaultKnobs()
	knobs.Latency = *latency
	knobs.ABVariant = *ab
	if *chaos {
		knobs.LateBanner, knobs.Modal, knobs.LazyContent, knobs.PageRandom, knobs.TimerRace = true, true, true, true, true
	}
	if err := os.MkdirAll(filepath.Join(f.dataDir, "demo-site"), 0o755); err != nil {
		return badInput("data dir %s: %v", f.dataDir, err)
	}
	vendor, err := sites.NewVendor(sites.VendorOptions{Knobs: knobs, OrdersFile: filepath.Join(f.dataDir, "demo-site", "orders.json")})
	if err != nil {
		return badInput("demo site: %v", err)
	}
	srv, err := sites.Serve(ctx, vendor, "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("demo site: %w", err)
	}
	defer srv.Close(context.Background())
	if t, err = t.WithStartURL(srv.URL() + "/"); err != nil {
		return err
	}
	cfg, err := f.config(t, stderr)
	if err != nil {
		f.finish(stderr, t.Name, nil, err)
		return err
	}
	if !f.json {
		fmt.Fprintf(stdout, "demo site (Nimbus Cloud) serving at %s with %s latency, variant %s\n", srv.URL(), *latency, *ab)
	}
	sum, err := orchestrator.Run(ctx, cfg)
	f.finish(stderr, t.Name, sum, err)
	// The site is this process's own: ask it even after an interrupt.
	orders, oerr := countOrders(context.WithoutCancel(ctx), srv.URL())
	if f.json {
		out := map[string]any{"summary": sum, "site_orders": orders}
		if err != nil {
			out["error"] = err.Error()
		}
		writeJSON(stdout, out)
		return err
	}
	printSummary(stdout, sum, err, false)
	if oerr != nil {
		fmt.Fprintf(stdout, "demo site orders API: %v\n", oerr)
	} else {
		fmt.Fprintf(stdout, "demo site orders API (%s/api/orders): %d order(s)", srv.URL(), len(orders))
		for i, o := range orders {
			if i == 0 {
				fmt.Fprint(stdout, ":")
			}
			fmt.Fprintf(stdout, " %s", o)
		}
		fmt.Fprintln(stdout)
	}
	return err
}

// countOrders asks the demo site's orders API which orders it holds.
func countOrders(ctx context.Context, base string) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/orders", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Orders []struct {
			ID string `json:"id"`
		} `json:"orders"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("decoding /api/orders: %w", err)
	}
	ids := make([]string, len(body.Orders))
	for i, o := range body.Orders {
		ids[i] = o.ID
	}
	return ids, nil
}
