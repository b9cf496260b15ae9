package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/oklog/ulid/v2"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/planner"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/scrub"
	"github.com/multiverse-orchestrator/multiverse/task"
	"github.com/multiverse-orchestrator/multiverse/telemetry"
	"github.com/multiverse-orchestrator/multiverse/worker"
)

// DefaultDataDir is where a run's records go unless told otherwise.
const DefaultDataDir = ".multiverse"

// Config configures Run. Task is required; the zero value of every other
// field is a working default.
type Config struct {
	Task    *task.Task
	DataDir string
	// Workers is the number of in-process worker slots; negative means
	// the task's search.workers. Zero runs only remote workers.
	Workers int
	// NATSURL joins an existing NATS server or cluster instead of starting
	// the embedded one; NATSListen makes the embedded one listen on
	// host:port so remote workers can join.
	NATSURL    string
	NATSListen string
	// Replicas sets the JetStream streams' replicas (3 on a three-node
	// cluster); zero keeps what the streams have (1 when new).
	Replicas int
	Browser  browser.Options
	Logger   *slog.Logger
	// Progress, when set, is called as the run advances (for a live
	// status line).
	Progress func(Progress)
	// NoScreenshots skips per-branch screenshots (faster; the commit still
	// keeps its confirmation screenshot).
	NoScreenshots bool
	// Executor runs the in-process workers' jobs instead of the browser
	// executor (a simulated web, say). Such a run explores only: it stops
	// before the commit with ErrExploreOnly after finding winners.
	Executor Executor
	// ExploreOnly stops after the search names its winners.
	ExploreOnly bool
	// BeforeCommit, when set, runs after the search named its winners and
	// before the committer starts (tests use it to change the world in
	// between).
	BeforeCommit func()
	// Cold makes every branch replay its prefix in a fresh context instead
	// of continuing its parent's live context (to measure what warm
	// continuation saves, or to rule it out when debugging).
	Cold bool
}

// Executor runs branch jobs for in-process workers: it returns the wire
// form of a delivered job's result, or an error for a fault of its own,
// which makes the bus deliver the job again (see job.Delivery).
type Executor interface {
	Handle(ctx context.Context, d job.Delivery) ([]byte, error)
}

// Progress is a snapshot of a running search.
type Progress struct {
	Elapsed, Budget time.Duration
	Wave            int
	Frontier        int
	// Running counts branches dispatched and not yet answered; it can
	// exceed Workers while jobs wait in the queue.
	Running  int
	Workers  int
	Executed int
	BestJ    float64
	Phase    string
}

// Run executes the task end to end and returns its summary. The error is
// nil only when the run committed (or found its commit already in the
// ledger); ExitCode maps it to the CLI's exit code. The summary is
// returned whenever the run got far enough to have an id.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	start := time.Now()
	t := cfg.Task
	if t == nil {
		return nil, fmt.Errorf("%w: no task", ErrBadInput)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if err := t.CheckSecrets(); err != nil {
		return nil, err
	}
	workers := cfg.Workers
	if workers < 0 {
		workers = t.Search.Workers
	}
	if workers > task.MaxWorkers {
		return nil, fmt.Errorf("%w: %d in-process worker slots: at most %d (start worker processes for more)", ErrBadInput, workers, task.MaxWorkers)
	}
	if workers == 0 && cfg.NATSURL == "" && cfg.NATSListen == "" {
		return nil, fmt.Errorf("%w: --workers 0 needs remote workers: give --nats URL or --nats-listen ADDR", ErrBadInput)
	}
	// A missing browser part stops the run before it records anything.
	if cfg.Executor == nil {
		if _, err := browser.FindChromium(cfg.Browser.ChromiumPath, cfg.Browser.Headful); err != nil {
			return nil, err
		}
		if _, err := browser.FindDriver(cfg.Browser.DriverDir); err != nil {
			return nil, err
		}
	}
	dd := cfg.DataDir
	if dd == "" {
		dd = DefaultDataDir
	}
	if abs, err := filepath.Abs(dd); err == nil {
		dd = abs
	}
	if err := os.MkdirAll(dd, 0o755); err != nil {
		return nil, fmt.Errorf("%w: data dir %s: %v", ErrBadInput, dd, err)
	}
	store, err := artifacts.OpenFS(filepath.Join(dd, "artifacts"))
	if err != nil {
		return nil, fmt.Errorf("%w: artifact store: %v", ErrBadInput, err)
	}
	elog, err := eventlog.Open(ctx, filepath.Join(dd, "events.db"))
	if err != nil {
		return nil, fmt.Errorf("%w: event log: %v", ErrBadInput, err)
	}
	defer elog.Close()
	led, err := ledger.Open(ctx, filepath.Join(dd, "ledger.db"))
	if err != nil {
		return nil, fmt.Errorf("%w: ledger: %v", ErrBadInput, err)
	}
	defer led.Close()

	runID := ulid.Make().String()
	ctx, runSpan := telemetry.Tracer().Start(ctx, "run", trace.WithAttributes(
		attribute.String("multiverse.run_id", runID), attribute.String("multiverse.task", t.Name)))
	defer runSpan.End()
	rec := newRecorder(ctx, elog, runID)
	sum := &Summary{RunID: runID, Task: t.Name, TaskDigest: t.Digest(), Seed: t.Seed, Workers: workers, NoCommit: !t.HasCommit(),
		Pruned: map[string]int{}, Paths: Paths{DataDir: dd, Events: elog.Path(), Ledger: led.Path(), Artifacts: store.Root()}}
	tr := &trail{rec: rec}
	key := scrub.NewKey()
	if err := writeKey(dd, runID, key); err != nil {
		tr.fail(err)
		rec.add(time.Time{}, 0, eventlog.KindError, "", map[string]any{"where": "scrub_key", "error": err.Error()})
	}
	sc := scrub.New(key, t.SecretValues())
	r := &run{ctx: ctx, cfg: cfg, t: t, log: log, dd: dd, store: store, elog: elog, led: led, rec: rec, sum: sum,
		runID: runID, key: key, sc: sc, workers: workers, start: start, results: map[string]*job.Result{},
		spans: map[string]trace.Span{}, trail: tr}
	cpu0 := cpuTime()
	err = scrubbed(sc, r.execute(ctx))
	sum.Elapsed = time.Since(start)
	sum.CPU = cpuTime() - cpu0
	if err != nil {
		sum.Error = err.Error()
		if sum.Status == "" {
			sum.Status = statusOf(err)
		}
	}
	r.rec.add(time.Time{}, 0, eventlog.KindRunEnd, "", map[string]any{"status": sum.Status, "error": sum.Error,
		"elapsed_ms": sum.Elapsed.Milliseconds(), "branches": sum.Branches, "exit_code": ExitCode(err)})
	if ferr := rec.close(ctx); ferr != nil && err == nil {
		err = fmt.Errorf("orchestrator: event log: %w", ferr)
	}
	return sum, err
}

// scrubbedError is an error whose message went through the run's
// scrubber: what a run returns is printed, summarized and recorded, and
// may quote the start URL's credentials or a value a page showed.
type scrubbedError struct {
	err error
	msg string
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

func scrubbed(sc *scrub.Scrubber, err error) error {
	if err == nil {
		return nil
	}
	msg := sc.Text(err.Error())
	if msg == err.Error() {
		return err
	}
	return &scrubbedError{err: err, msg: msg}
}

// cpuTime is this process's user + system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func statusOf(err error) string {
	switch ExitCode(err) {
	case ExitNoBoundary:
		return "no_boundary"
	case ExitGoalFailed:
		return "goal_failed"
	case ExitAborted:
		return "aborted"
	case ExitSite:
		return "site_unreachable"
	case ExitEnvironment:
		return "environment"
	}
	return "failed"
}

type run struct {
	// login is the session state the task's scripted login left (nil
	// without auth.login); workers fetch it over the bus, the committer
	// starts from it.
	login     *browser.State
	loginMu   sync.Mutex
	loginJSON []byte
	relogins  int            // times the run logged in again
	reruns    map[string]int // branch -> times its job was published again
	rt        *browser.Runtime
	// ctx carries the run span (the parent of branch spans).
	ctx     context.Context
	cfg     Config
	t       *task.Task
	log     *slog.Logger
	dd      string
	store   *artifacts.FS
	elog    *eventlog.Log
	led     *ledger.Ledger
	rec     *recorder
	sum     *Summary
	runID   string
	key     []byte
	sc      *scrub.Scrubber
	workers int
	start   time.Time
	spec    *job.Spec
	// results holds every branch's accepted result by branch id.
	results map[string]*job.Result
	// spans holds the open span of each dispatched branch.
	spans map[string]trace.Span
	// claims delivers workers' delivery claims; claimed holds the latest
	// attempt claimed per branch (results of older attempts are stale).
	claims  <-chan bus.Claim
	claimed map[string]int
	// claimedBy names the worker of each branch's latest claim; watch
	// says which workers are alive (a routed job's worker may die).
	claimedBy map[string]string
	watch     *bus.Workers
	// routedTo names the worker route a branch's job was sent to (and
	// stayed with: a rerouted job is dropped from it).
	routedTo map[string]string
	// objects is the artifact object store remote workers write to.
	objects *bus.Objects
	// siteFailures counts the branches that failed to reach the site.
	siteFailures int
	// workerErrs holds the last error of the in-process workers' jobs by
	// branch id, scrubbed (the handler runs in the workers' goroutines).
	workerErrsMu sync.Mutex
	workerErrs   map[string]string
	// trail says whether the audit trail still holds (the committer's
	// gate).
	trail *trail
	// nats is the embedded NATS server; nil when the run joined one.
	nats *bus.Server
}

// storageFull is closed when the embedded NATS server's store runs out of
// space; nil (never ready) when the run joined a server.
func (r *run) storageFull() <-chan struct{} {
	if r.nats == nil {
		return nil
	}
	return r.nats.StorageFull()
}

func waitForWorkers(ctx context.Context, watch *bus.Workers, natsURL string) error {
	deadline := time.Now().Add(WorkerWait)
	for {
		if n, _ := watch.Live(); n > 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: no worker joined within %s: start one with `worker --nats %s`", ErrNoWorkers, WorkerWait, natsURL)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(workerPoll):
		}
	}
}

func (r *run) manifest(fp browser.Fingerprint, natsURL string) payload.RunStart {
	t := r.t
	version := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = bi.Main.Version
	}
	return payload.RunStart{
		Task: t.Name, TaskDigest: t.Digest(), TaskFile: t.File(), StartURL: r.sc.URL(t.StartURL),
		Seed: strconv.FormatUint(t.Seed, 10), SeedFromTask: t.SeedSet,
		Budgets: t.Budgets, Search: t.Search, Weights: t.Weights, Environment: r.environment(),
		Workers: r.workers, NATS: natsURL, MultiverseVersion: version, Fingerprint: payload.Fingerprint(fp),
		ScrubKeySHA256: r.sc.Token("multiverse/scrub-key-check"),
		Origin:         t.Origin(), Inputs: r.inputTokens(), Guard: r.spec.Guard,
		Goal: t.Goal.Goal, Boundary: r.spec.Boundary, Prices: t.Prices,
		GoalFailure: t.Goal.Failure, Extract: t.Extract, HasCommit: t.HasCommit(),
	}
}

// environment is the task's environment for the manifest, header values
// replaced by their tokens.
func (r *run) environment() task.Environment {
	e := r.t.Environment
	if len(e.Headers) > 0 {
		hs := make(map[string]task.Input, len(e.Headers))
		for name, h := range e.Headers {
			if !h.Secret() {
				h.Value = r.sc.Token(h.Value)
			}
			hs[name] = h
		}
		e.Headers = hs
	}
	return e
}

// inputTokens says, for each task input, what a replay types in its
// place: the scrubbed form the recorded pages show (a token for personal
// data and secrets, the literal value otherwise). Raw values never leave.
func (r *run) inputTokens() map[string]payload.Input {
	out := map[string]payload.Input{}
	for name, in := range r.t.Inputs {
		v, err := in.Resolve()
		if err != nil {
			continue
		}
		tok := r.sc.Text(v)
		if tok == v && (in.Secret() || scrub.SensitiveKey(name)) {
			tok = r.sc.Token(v)
		}
		out[name] = payload.Input{Token: tok, Secret: in.Secret()}
	}
	return out
}

func (r *run) execute(ctx context.Context) error {
	t := r.t
	r.spec = job.NewSpec(t)
	r.spec.ScrubKey, r.spec.Screenshots = r.key, !r.cfg.NoScreenshots
	// The HTTP preflight speaks to real sites; a custom executor (a
	// simulated web) has none.
	if r.cfg.Executor == nil {
		if err := r.preflightSite(ctx); err != nil {
			r.rec.add(time.Time{}, 0, eventlog.KindRunStart, "", r.manifest(browser.Fingerprint{}, ""))
			r.rec.add(time.Time{}, 0, eventlog.KindError, "", map[string]any{"where": "preflight", "error": r.sc.Text(err.Error())})
			return err
		}
	}
	// The bus: embedded by default, or an existing server or cluster.
	natsURL := r.cfg.NATSURL
	if natsURL == "" {
		host, port := "127.0.0.1", 0
		if r.cfg.NATSListen != "" {
			var err error
			if host, port, err = ParseListen(r.cfg.NATSListen); err != nil {
				return err
			}
		}
		srv, err := bus.StartEmbedded(ctx, bus.ServerConfig{StoreDir: filepath.Join(r.dd, "nats"), Host: host, Port: port})
		if errors.Is(err, bus.ErrListen) {
			return fmt.Errorf("%w: --nats-listen %q: %w", ErrBadInput, r.cfg.NATSListen, err)
		}
		if err != nil {
			return fmt.Errorf("orchestrator: starting the embedded NATS server: %w", err)
		}
		defer srv.Shutdown()
		natsURL, r.nats = srv.ClientURL(), srv
		r.sum.Paths.NATS = filepath.Join(r.dd, "nats")
	}
	busOpts := []bus.Option{bus.WithName("multiverse-orchestrator " + r.runID), bus.WithLogger(r.log)}
	if r.cfg.Replicas > 0 {
		busOpts = append(busOpts, bus.WithReplicas(r.cfg.Replicas))
	}
	if r.nats != nil {
		busOpts = append(busOpts, bus.WithServer(r.nats))
	}
	client, err := bus.Connect(ctx, natsURL, busOpts...)
	if err != nil {
		return fmt.Errorf("orchestrator: connecting to NATS at %s: %w", natsURL, err)
	}
	defer client.Close()
	if r.cfg.NATSURL == "" {
		// The embedded server is ours: jobs left by an earlier run that
		// died are not worth running.
		if st, err := client.JetStream().Stream(ctx, bus.JobsStream); err == nil {
			st.Purge(ctx)
		}
	}
	watch, err := client.WatchWorkers(ctx)
	if err != nil {
		return err
	}
	defer watch.Close()
	if objs, err := client.Objects(ctx); err == nil {
		r.objects = objs
	} else {
		r.log.Warn("no artifact object store; remote workers' artifacts will not be mirrored", "error", err)
	}
	var handler Executor = r.cfg.Executor
	var rt *browser.Runtime
	fp := browser.Fingerprint{Browser: "none (custom executor)"}
	if handler == nil {
		keep := worker.DefaultKeepWarm(r.workers)
		if r.cfg.Cold {
			keep = 0
		}
		exec, err := worker.NewExecutor(ctx, worker.Options{Name: workerName(), Store: r.trail.store(r.store), Browser: r.cfg.Browser, LoginState: client.FetchState,
			Logger: r.log, KeepWarm: keep})
		if err != nil {
			return err
		}
		defer exec.Close()
		defer exec.DropWarm(r.runID)
		if rt, err = exec.Runtime(ctx); err != nil {
			return err
		}
		if err := checkSelectors(ctx, rt, r.t); err != nil {
			return err
		}
		handler, fp = exec, rt.Fingerprint()
		r.rt = rt
	}
	workCtx, stopWork := context.WithCancel(ctx)
	workDone := make(chan struct{})
	// Exploration ends at once when the in-process workers stop with an
	// error: no job would be run, and the error is the run's.
	exploreCtx, stopExplore := context.WithCancelCause(ctx)
	defer stopExplore(nil)
	if r.workers > 0 {
		go func() {
			defer close(workDone)
			if err := client.Work(workCtx, bus.WorkerConfig{Slots: r.workers}, r.handle(handler)); err != nil {
				r.log.Error("in-process workers stopped", "error", err)
				stopExplore(fmt.Errorf("orchestrator: the in-process workers stopped: %w", err))
			}
		}()
	} else {
		close(workDone)
	}
	defer func() {
		stopWork()
		// Cancelling workCtx aborts the in-process workers' sessions;
		// a worker that still does not return must not keep the run
		// from ending.
		select {
		case <-workDone:
		case <-time.After(workerStopWait):
			r.log.Warn("in-process workers did not stop in time; ending the run without them", "waited", workerStopWait)
		}
	}()
	r.rec.add(time.Time{}, 0, eventlog.KindRunStart, "", r.manifest(fp, natsURL))
	r.rec.flush(ctx)
	if r.cfg.Executor == nil && t.HasCommit() {
		r.recoverPending(ctx)
	}
	if len(t.Auth.Login) > 0 {
		if rt == nil {
			return fmt.Errorf("%w: auth.login needs a browser; this run's executor has none", ErrBadInput)
		}
		stop, err := r.logIn(ctx, rt, client)
		if err != nil {
			return err
		}
		defer stop()
	}

	results, err := client.Results(ctx, r.runID)
	if err != nil {
		return fmt.Errorf("orchestrator: subscribing to results: %w", err)
	}
	if r.claims, err = client.Claims(ctx, r.runID); err != nil {
		return fmt.Errorf("orchestrator: subscribing to claims: %w", err)
	}
	r.claimed, r.claimedBy, r.watch, r.routedTo = map[string]int{}, map[string]string{}, watch, map[string]string{}
	if r.workers == 0 {
		if err := waitForWorkers(ctx, watch, natsURL); err != nil {
			return err
		}
	}
	exploreStart, exploreCPU := time.Now(), cpuTime()
	winners, err := r.explore(exploreCtx, client, results)
	if cause := context.Cause(exploreCtx); err != nil && ctx.Err() == nil && cause != nil {
		err = cause
	}
	r.sum.Explore = time.Since(exploreStart)
	r.sum.ExploreCPU = cpuTime() - exploreCPU
	client.Cancel(context.WithoutCancel(ctx), r.runID)
	stopWork()
	if err != nil {
		return err
	}
	if !t.HasCommit() {
		return r.reachGoal(ctx, winners[0])
	}
	if r.cfg.ExploreOnly || rt == nil {
		r.sum.Status = "explored"
		r.sum.Winner = winnerOf(winners[0])
		return nil
	}
	if r.cfg.BeforeCommit != nil {
		r.cfg.BeforeCommit()
	}
	return r.commit(ctx, rt, winners)
}

func workerName() string {
	h, _ := os.Hostname()
	return fmt.Sprintf("%s/%d/inproc", h, os.Getpid())
}

// publishRetry publishes a job, retrying while the server is away (a
// restart, a cluster election): the job's message id makes retries safe.
func publishRetry(ctx context.Context, client *bus.Client, runID, branchID string, data []byte, hdr nats.Header) error {
	var err error
	for attempt := 0; attempt < 8; attempt++ {
		pctx, cancel := context.WithTimeout(ctx, publishTimeout)
		err = client.PublishJob(pctx, runID, branchID, data, hdr)
		cancel()
		if err == nil || ctx.Err() != nil || errors.Is(err, bus.ErrStorageFull) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt+1) * 500 * time.Millisecond):
		}
	}
	return err
}

// noteClaim records a delivery claim.
func (r *run) noteClaim(c bus.Claim) {
	if c.Attempt > r.claimed[c.BranchID] {
		r.claimed[c.BranchID] = c.Attempt
		r.claimedBy[c.BranchID] = c.Worker
	}
}

// drainClaims records the claims that arrived so far.
func (r *run) drainClaims() {
	for {
		select {
		case c := <-r.claims:
			r.noteClaim(c)
		default:
			return
		}
	}
}

// mirror copies the artifacts a result references from the object store
// into the local store when a remote worker produced them.
func (r *run) mirror(ctx context.Context, res *job.Result) {
	if r.objects == nil {
		return
	}
	var ds []string
	if o := res.Obs; o != nil {
		ds = append(ds, o.DOMArtifact, o.AXArtifact, o.ScreenshotHash)
	}
	for _, n := range res.Net {
		ds = append(ds, n.BodyHash)
	}
	// One budget for the result: a store that is away (a cluster
	// electing leaders) is asked again, but never holds the run long.
	mctx, cancel := context.WithTimeout(ctx, mirrorBudget)
	defer cancel()
	for _, d := range ds {
		if d == "" {
			continue
		}
		dg := artifacts.Digest(d)
		if ok, _ := r.store.Has(ctx, dg); ok {
			continue
		}
		b, err := r.fetch(mctx, dg)
		if err != nil {
			r.rec.add(time.Time{}, 0, eventlog.KindError, res.BranchID, map[string]any{"where": "mirror", "artifact": d, "error": err.Error()})
			continue
		}
		if _, err := r.store.Put(ctx, b); err != nil {
			r.trail.fail(fmt.Errorf("a remote worker's artifact was not stored: %w", err))
			r.rec.add(time.Time{}, 0, eventlog.KindError, res.BranchID, map[string]any{"where": "mirror", "artifact": d, "error": err.Error()})
		}
	}
}

// fetch gets an artifact from the object store, asking again after an
// attempt that timed out, until ctx ends.
func (r *run) fetch(ctx context.Context, d artifacts.Digest) ([]byte, error) {
	for {
		actx, cancel := context.WithTimeout(ctx, fetchAttempt)
		b, err := r.objects.Get(actx, d)
		cancel()
		timedOut := errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout)
		if err == nil || ctx.Err() != nil || !timedOut {
			return b, err
		}
	}
}

// startSpan opens a branch's span when it is forked; it ends when the
// branch is folded after its execution, or pruned without one.
func (r *run) startSpan(n *planner.Node) {
	ctx, span := telemetry.Tracer().Start(r.ctx, "branch", trace.WithAttributes(
		attribute.String("multiverse.branch_id", n.ID), attribute.String("multiverse.plan_digest", n.Digest),
		attribute.Int("multiverse.depth", n.Depth), attribute.String("multiverse.action", n.Action().Kind)))
	r.spans[n.ID] = span
	_, id := telemetry.IDs(ctx)
	r.rec.setBranchSpan(n.ID, id)
}

func (r *run) endSpan(n *planner.Node) {
	span := r.spans[n.ID]
	if span == nil || n.State == planner.StatePending || n.State == planner.StateRunning {
		return
	}
	span.SetAttributes(attribute.String("multiverse.state", string(n.State)), attribute.Float64("multiverse.j", n.Score.J))
	if n.Prune != nil {
		span.SetAttributes(attribute.String("multiverse.pruned", n.Prune.Rule))
	}
	span.End()
	delete(r.spans, n.ID)
}

// ParseListen reads a --nats-listen address, HOST:PORT with a port in
// 0..65535; anything else is an error wrapping ErrBadInput that names the
// flag.
func ParseListen(addr string) (host string, port int, err error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("%w: --nats-listen %q is not HOST:PORT: %v", ErrBadInput, addr, err)
	}
	if port, err = strconv.Atoi(p); err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("%w: --nats-listen %q: port %q is not a number in 0..65535", ErrBadInput, addr, p)
	}
	return host, port, nil
}

// preflightSite checks that the start URL answers before any browser
// work: a refused connection, a DNS failure, a 5xx or a redirect loop is
// a clear error at once instead of a search that cannot start. It
// reaches the site as the branches do (host map, certificate trust).
func (r *run) preflightSite(ctx context.Context) error {
	return preflightSite(ctx, r.siteClient(), r.t.StartURL, r.sc.URL(r.t.StartURL))
}

// siteClient is the HTTP client the run's own requests to the site use
// (the preflight, the committer's confirm probe): it resolves and trusts
// the site the way the browser was told to.
func (r *run) siteClient() *http.Client {
	return r.cfg.Browser.HTTPClient(r.t.Environment.IgnoreHTTPSErrors)
}

// preflightSite asks u through client; its errors show the URL as shown
// (scrubbed: a query may carry personal data).
func preflightSite(ctx context.Context, client *http.Client, u, shown string) error {
	ctx, cancel := context.WithTimeout(ctx, preflightTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("%w: %s: not a request URL", ErrSiteUnreachable, shown)
	}
	req.Header.Set("User-Agent", task.DefaultUserAgent)
	resp, err := client.Do(req)
	if err != nil {
		var ue interface{ Unwrap() error }
		msg := err.Error()
		if errors.As(err, &ue) {
			if inner := ue.Unwrap(); inner != nil {
				msg = inner.Error()
			}
		}
		return fmt.Errorf("%w: start URL %s: %s", ErrSiteUnreachable, shown, msg)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode >= 500 {
		return fmt.Errorf("%w: start URL %s answered %s", ErrSiteUnreachable, shown, resp.Status)
	}
	return nil
}

// explore drives the search wave by wave until it has winners or cannot
// go on.
func (r *run) explore(ctx context.Context, client *bus.Client, results <-chan bus.Result) ([]*planner.Node, error) {
	t := r.t
	prop, err := planner.NewProposer(t)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	search := planner.NewSearch(t, prop, func() string { return ulid.Make().String() })
	ectx, cancel := context.WithTimeout(ctx, t.Budgets.WallClock.D())
	defer cancel()
	root := search.Root()
	r.logSearch(search.Drain())
	r.rec.flush(ctx)
	var decision planner.Decision
	for {
		wave := search.NextWave()
		if len(wave) == 0 {
			decision.Exhausted = "frontier empty"
			break
		}
		r.sum.Waves++
		got, err := r.runWave(ectx, client, results, search, wave)
		if err != nil {
			if ectx.Err() != nil && ctx.Err() == nil {
				search.Stop()
				r.logSearch(search.Drain())
				r.countBranches(search)
				if r.siteFailures > 0 {
					why := fmt.Sprintf("%d branches failed to reach it before the wall clock budget ran out", r.siteFailures)
					if err := r.siteLost(ctx, why); err != nil {
						return nil, err
					}
				}
				return nil, fmt.Errorf("%w: the wall clock budget of %s ran out after %d waves", r.noGoal(), t.Budgets.WallClock.D(), r.sum.Waves)
			}
			return nil, err
		}
		for _, n := range wave {
			search.Complete(n, got[n.ID])
		}
		if n := wave[0]; n == root {
			// Pin the site's assignment of this visitor for every branch.
			if res := r.results[n.ID]; res != nil && len(res.Cookies) > 0 {
				spec := *r.spec
				spec.Cookies = res.Cookies
				r.spec = &spec
			}
		}
		if len(wave) == 1 && wave[0] == root && !got[root.ID].OK {
			o := got[root.ID]
			r.fold(search, wave)
			r.countBranches(search)
			switch o.Code {
			case branch.CodePageError, branch.CodeHTTPError, branch.CodeNavigationTimeout, branch.CodeTimeout:
				return nil, fmt.Errorf("%w: opening %s failed: %s: %s", ErrSiteUnreachable, r.sc.URL(t.StartURL), o.Code, o.Msg)
			}
			return nil, fmt.Errorf("orchestrator: the start page branch failed: %s: %s", o.Code, o.Msg)
		}
		decision = r.fold(search, wave)
		r.progress(search, 0, "explore")
		failed := waveSiteFailures(wave, got)
		r.siteFailures += failed
		if len(decision.Winners) == 0 && (failed > 0 && failed == len(wave) || decision.Exhausted != "" && r.siteFailures > 0) {
			// Every branch of the wave failed to reach the site, or the
			// search ends after some did: is the site gone?
			why := fmt.Sprintf("wave %d: %d of %d branches failed to reach it, %d in all", r.sum.Waves, failed, len(wave), r.siteFailures)
			if err := r.siteLost(ctx, why); err != nil {
				search.Stop()
				r.logSearch(search.Drain())
				r.countBranches(search)
				return nil, err
			}
		}
		if len(decision.Winners) > 0 || decision.Exhausted != "" {
			break
		}
	}
	r.countBranches(search)
	if len(decision.Winners) == 0 {
		if decision.AuthRequired > 0 {
			return nil, loggedOut(t, decision.AuthRequired)
		}
		if decision.Definite {
			return nil, fmt.Errorf("%w: %s after %d branches in %d waves; goal.failure held on %s", ErrGoalFailed,
				decision.Exhausted, search.Executed(), r.sum.Waves, failedCounts(decision.Failed))
		}
		return nil, fmt.Errorf("%w: %s after %d branches in %d waves", r.noGoal(), decision.Exhausted, search.Executed(), r.sum.Waves)
	}
	// Each candidate says which other one beats it on every objective,
	// if any: the reader sees the Pareto front whatever the selection.
	cands := make([]scoring.Candidate, len(decision.Winners))
	for i, n := range decision.Winners {
		cands[i] = n.Candidate()
	}
	dominated := scoring.DominatedBy(cands)
	ranking := make([]payload.Rank, len(decision.Winners))
	for i, n := range decision.Winners {
		ranking[i] = payload.Rank{BranchID: n.ID, PlanDigest: n.Digest, J: n.Score.J, Cost: n.Cost, Steps: n.Depth,
			Progress: n.Score.Progress, Confidence: n.Score.Confidence, Risk: n.Score.Risk, DominatedBy: dominated[n.ID]}
	}
	order := "higher J, lower cost, fewer steps, plan digest, branch id"
	if t.Search.Selection == "pareto" {
		order = "Pareto front first (progress, confidence, risk, cost, steps), then " + order
	}
	r.rec.add(time.Time{}, 0, eventlog.KindWinner, decision.Winners[0].ID, payload.Winner{Order: order, Ranking: ranking})
	r.rec.flush(ctx)
	return decision.Winners, nil
}

// fold records the wave's results in digest order and lets the search
// decide.
func (r *run) fold(search *planner.Search, wave []*planner.Node) planner.Decision {
	for _, n := range wave { // NextWave returns the wave in digest order
		r.logResult(search, n)
	}
	d := search.EndWave()
	r.logSearch(search.Drain())
	for _, n := range wave {
		r.endSpan(n)
	}
	r.rec.flushAsync()
	return d
}

// runWave publishes the wave's jobs and collects their results. Results
// of other branches (late, duplicate or stale deliveries) are ignored:
// only the first result per branch of this wave counts.
func (r *run) runWave(ctx context.Context, client *bus.Client, results <-chan bus.Result, search *planner.Search, wave []*planner.Node) (map[string]planner.Outcome, error) {
	t := r.t
	want := map[string]*planner.Node{}
	jobs := map[string]*job.Job{}
	ranWith := map[string]int{} // branch -> the login version its job carried
	if r.reruns == nil {
		r.reruns = map[string]int{}
	}
	type pub struct {
		id   string
		data []byte
		hdr  nats.Header
	}
	pubs := make([]pub, 0, len(wave))
	// A child goes to the worker that kept its parent's live context: one
	// child per parent, as a kept context continues once.
	routeOf := map[string]string{}
	usedParent := map[string]bool{}
	for _, n := range wave {
		if p := r.results[n.ParentID]; p != nil && p.WarmRoute != "" && !usedParent[n.ParentID] {
			usedParent[n.ParentID] = true
			routeOf[n.ID] = p.WarmRoute
		}
	}
	for _, n := range wave {
		j := &job.Job{RunID: r.runID, BranchID: n.ID, ParentID: n.ParentID, Plan: n.Plan, PlanDigest: n.Digest,
			Deadline: t.Budgets.BranchWallClock, Spec: r.spec}
		data, err := j.Encode()
		if err != nil {
			return nil, fmt.Errorf("orchestrator: encoding job: %w", err)
		}
		jobs[n.ID], ranWith[n.ID] = j, r.spec.Login
		// The branch span's context travels with the job, so the worker's
		// step spans join this trace, whatever process runs it.
		hdr := nats.Header{}
		if span := r.spans[n.ID]; span != nil {
			otel.GetTextMapPropagator().Inject(trace.ContextWithSpan(ctx, span), bus.HeaderCarrier(hdr))
		}
		pubs = append(pubs, pub{n.ID, data, hdr})
		want[n.ID] = n
	}
	// Publish the wave at once: each publish waits for the store's fsync,
	// and the waits overlap.
	errs := make([]error, len(pubs))
	seqs := make([]uint64, len(pubs))
	var wg sync.WaitGroup
	for i, p := range pubs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if route := routeOf[p.id]; route != "" {
				pctx, cancel := context.WithTimeout(ctx, publishTimeout)
				seqs[i], errs[i] = client.PublishRouted(pctx, r.runID, p.id, route, p.data, p.hdr)
				cancel()
				if errs[i] == nil {
					return
				}
				r.log.Warn("routing a job failed; queueing it for any worker", "branch_id", p.id, "error", errs[i])
			}
			errs[i] = publishRetry(ctx, client, r.runID, p.id, p.data, p.hdr)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("orchestrator: publishing branch %s: %w", pubs[i].id, err)
		}
	}
	// Routed jobs wait for their worker only so long: one that is busy
	// or gone hands the job to whoever is free.
	type routed struct {
		pub
		seq uint64
	}
	var pendingRoutes []routed
	for i, p := range pubs {
		if seqs[i] > 0 {
			pendingRoutes = append(pendingRoutes, routed{p, seqs[i]})
			r.routedTo[p.id] = routeOf[p.id]
		}
	}
	r.sum.Routed += len(pendingRoutes)
	published := time.Now()
	var routeTick <-chan time.Time // nil (never ready) once no route is pending
	if len(pendingRoutes) > 0 {
		t := time.NewTicker(routeWait / 4)
		defer t.Stop()
		routeTick = t.C
	}
	r.progress(search, len(want), "explore")
	got := map[string]planner.Outcome{}
	raw := map[string]*job.Result{}
	timer := time.NewTimer(t.Budgets.BranchWallClock.D() + ResultGrace)
	defer timer.Stop()
	deadCheck := time.NewTicker(deadJobsCheck)
	defer deadCheck.Stop()
	for len(got) < len(want) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case c := <-r.claims:
			r.noteClaim(c)
		case <-r.storageFull():
			return nil, fmt.Errorf("orchestrator: exploring: %w", r.nats.StorageErr())
		case <-routeTick:
			// A routed job no one claimed within routeWait, or whose
			// claiming worker fell silent (killed, stopped), is queued
			// for any worker, its attempts counting on.
			r.drainClaims()
			kept := pendingRoutes[:0]
			for _, rt := range pendingRoutes {
				if _, done := got[rt.id]; done {
					continue
				}
				claimed := r.claimed[rt.id]
				if claimed > 0 && r.watch.Alive(r.claimedBy[rt.id]) || claimed == 0 && time.Since(published) < routeWait {
					kept = append(kept, rt)
					continue
				}
				removed, err := client.Unroute(ctx, rt.seq)
				if err != nil {
					kept = append(kept, rt) // the server is away: look again
					continue
				}
				if !removed {
					continue // its worker finished it: the result is on its way
				}
				hdr := rt.hdr
				if claimed > 0 {
					hdr = maps.Clone(hdr)
					hdr.Set(bus.HeaderAttemptBase, strconv.Itoa(claimed))
				}
				if err := publishRetry(ctx, client, r.runID, rt.id, rt.data, hdr); err != nil {
					return nil, fmt.Errorf("orchestrator: publishing branch %s: %w", rt.id, err)
				}
				r.sum.Rerouted++
				delete(r.routedTo, rt.id)
				r.log.Info("routed job queued for any worker", "branch_id", rt.id, "claimed_attempt", claimed, "claimed_by", r.claimedBy[rt.id])
			}
			pendingRoutes = kept
			if len(pendingRoutes) == 0 {
				routeTick = nil
			}
		case <-deadCheck.C:
			// A job whose deliveries ran out will never answer: fail its
			// branch now (the server's advisory is kept in MV_DEAD even if
			// this process was not listening when it fired).
			dead, err := client.DeadJobs(ctx, r.runID)
			if err != nil {
				continue
			}
			for _, j := range dead {
				if _, ok := want[j.BranchID]; ok {
					if _, done := got[j.BranchID]; !done {
						msg := r.lastWorkerError(j.BranchID)
						got[j.BranchID] = planner.Outcome{Code: "exhausted_deliveries",
							Msg: fmt.Sprintf("the job failed %d deliveries; %s", j.Attempt, msg)}
						r.rec.add(time.Time{}, 0, eventlog.KindError, j.BranchID, map[string]any{"where": "dispatch", "code": "exhausted_deliveries",
							"attempts": j.Attempt, "error": msg})
					}
				}
			}
		case <-timer.C:
			for id, n := range want {
				if _, ok := got[id]; !ok {
					got[id] = planner.Outcome{Code: "lost", Msg: "no result within the branch budget plus grace"}
					r.rec.add(time.Time{}, 0, eventlog.KindError, n.ID, map[string]any{"where": "dispatch", "error": "no result from any worker"})
				}
			}
		case m, ok := <-results:
			if !ok {
				return nil, errors.New("orchestrator: the results subscription ended")
			}
			n := want[m.BranchID]
			if n == nil {
				// An earlier wave's late or duplicate delivery (a worker
				// that stalled past its ack deadline, say): that branch
				// was already folded; this result never counts.
				if r.results[m.BranchID] != nil {
					r.rec.add(time.Time{}, 0, eventlog.KindStaleResult, m.BranchID, map[string]any{"attempt": m.Attempt, "reason": "the branch was already folded"})
				}
				continue
			}
			if _, dup := got[m.BranchID]; dup {
				r.rec.add(time.Time{}, 0, eventlog.KindDuplicateResult, m.BranchID, map[string]any{"attempt": m.Attempt})
				continue
			}
			r.drainClaims()
			if last := r.claimed[m.BranchID]; m.Attempt < last {
				// The job was redelivered after this worker stalled past
				// its ack deadline: another delivery owns it now.
				r.rec.add(time.Time{}, 0, eventlog.KindStaleResult, m.BranchID, map[string]any{"attempt": m.Attempt, "latest_attempt": last})
				continue
			}
			res, err := job.DecodeResult(m.Data)
			if err != nil {
				got[m.BranchID] = planner.Outcome{Code: "bad_result", Msg: err.Error()}
				continue
			}
			if r.again(ctx, client, res, m.Attempt, jobs[m.BranchID], ranWith) {
				continue
			}
			raw[m.BranchID] = res
			r.mirror(ctx, res)
			got[m.BranchID] = planner.Outcome{OK: res.Status == job.ResultOK, Code: res.ErrCode, Msg: res.ErrMsg,
				Step: res.ErrStep, Obs: res.Obs, AtBoundary: res.AtBoundary, Blocked: res.Blocked, Actions: len(res.Steps), Intent: res.Intent}
			r.progress(search, len(want)-len(got), "explore")
		}
	}
	for id, res := range raw {
		r.results[id] = res
	}
	return got, nil
}
