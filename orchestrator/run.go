package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/oklog/ulid/v2"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/learn"
	"github.com/multiverse-orchestrator/multiverse/llm"
	"github.com/multiverse-orchestrator/multiverse/planner"
	"github.com/multiverse-orchestrator/multiverse/scrub"
	"github.com/multiverse-orchestrator/multiverse/task"
	"github.com/multiverse-orchestrator/multiverse/telemetry"
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
	// FailureBundles, when positive, makes a run that ends in an error
	// (no branch at the boundary or the goal, a goal that failed, an
	// aborted commit) hand over what it explored: the bundles of its best
	// branch and of up to FailureBundles branches that ended in a failure,
	// under bundles/RUN_ID/ in the data dir (Summary.Paths.FailureBundles).
	// Writing them never changes the run's error; one that cannot be
	// written is listed with its error. Zero writes none.
	FailureBundles int
	// NoCache neither follows nor stores a cached plan (DATA_DIR/plans):
	// every run searches from zero.
	NoCache bool
	// Cold makes every branch replay its prefix in a fresh context instead
	// of continuing its parent's live context (to measure what warm
	// continuation saves, or to rule it out when debugging).
	Cold bool
	// LLM says where a model planner's answers come from: live (the
	// default) asks the endpoint, record asks it and keeps every answer
	// in the cassette, replay answers only from the cassette (a question
	// it does not hold stops the run with a *ModelMissError, exit 9).
	// Only for a task whose planner.proposer is llm.
	LLM llm.Mode
	// Cassettes is the cassette directory, instead of the task's
	// (task.Task.CassetteDir).
	Cassettes string
	// Substitutions make the search fork another action in place of a
	// step (a rerun's counterfactual --swap-action).
	Substitutions []planner.Substitution
	// Reproduces names the run a rerun reproduces, for its manifest.
	Reproduces *payload.Reproduction
	// ScrubKey is the run's scrubbing key; by default a fresh one. A
	// rerun passes its original run's, so the tokens in its events and
	// observations compare with the recorded ones.
	ScrubKey []byte
	// DryCommit runs the committer's preflight on the winners and stops
	// before the ledger and the commit action (Summary.Status "dry-run",
	// or the commit's abort when preflight refuses every winner): a
	// rerun's way to show what the commit would have done.
	DryCommit bool
	// Compensate, when set, makes the run a compensation: it starts as a
	// run does (stores, browser, login) and, instead of searching, has
	// the committer undo the committed ledger row with Compensate.Key
	// (commit.compensate of the task). Summary.Commit reports the row.
	Compensate *CompensateRequest
	// CommitVolatile, when not nil, are the commit form's fields a
	// recorded run found changing on every load of the boundary page: a
	// rerun's committer takes them instead of loading the page again
	// (its recorded world never held that second load).
	CommitVolatile []string
	// Network, when set, answers every request of the in-process
	// workers' branch sessions instead of the site (a rerun against a
	// recorded run: a replay.World's Serve with the job's branch id and
	// plan). It returns the address of an HTTP proxy for the job's
	// session and a release func called when the session closes. Such a
	// run never speaks to the site: no preflight; a branch replays its
	// whole plan in a fresh session unless Continue lets it continue its
	// parent's; and it must
	// explore only (ExploreOnly, or a task without commit; DryCommit
	// runs the committer's preflight in the same world) and have no
	// auth.login; it needs the browser executor, not Executor, and a data
	// dir without pending commits of the task's site and flow.
	Network func(ctx context.Context, j *job.Job) (proxy string, release func(), err error)
	// Continue, with Network, re-points a kept session's proxy to a child
	// branch's job (replay.World.Continue), so that the child continues
	// its parent's live session as in a run against the site.
	Continue func(ctx context.Context, proxy string, j *job.Job) error
	// Parts, when set, are parts a warm engine keeps running for its runs:
	// the run uses them instead of starting its own, and leaves them
	// running.
	Parts *Parts
	// RunID, when set, is the run's id (a ULID an engine gave the run
	// when it was submitted); by default a fresh one.
	RunID string
	// Learned, when set, is the record of the site the search reads
	// instead of the data dir's (a rerun's: the snapshot its original run
	// read); the run adds nothing to the data dir's record.
	Learned *learn.Snapshot
	// WaitLock is how long the run waits for its data dir while another
	// run holds it (one run per data dir at a time, see internal/dirlock).
	// Zero refuses at once with an error matching ErrBadInput and
	// dirlock.ErrBusy that names the holder's PID, command and start.
	WaitLock time.Duration
	// Notice, when set, is told what a person should know that is not an
	// error: that the run waits for its data dir, or took over the lock
	// of a run that ended without releasing it.
	Notice func(msg string)
}

// Parts are the heavy parts of a run a warm engine starts once and keeps
// for every run it is given.
type Parts struct {
	// HoldsLock says the caller holds the data dir's lock (an engine does
	// while it lives, its runs one after another): the run takes none.
	HoldsLock bool
	// NATS is the running embedded server: the run connects to it instead
	// of starting its own (an engine's keeps its store in the data dir).
	NATS *bus.Server
	// Runtime returns the running browser, relaunching one that died; the
	// run never closes it.
	Runtime func(ctx context.Context) (*browser.Runtime, error)
	// Selectors remembers the task selectors the browser found valid:
	// a later run checks only the others (nil: every run checks all).
	Selectors *ValidSelectors
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
	// Phase is "start" (the site checked, the bus, the browser and the
	// workers started), "login", "explore" (the fields below say how
	// far), "minimize" or "commit".
	Wave     int
	Frontier int
	// Running counts branches dispatched and not yet answered; it can
	// exceed Workers while jobs wait in the queue.
	Running  int
	Workers  int
	Executed int
	BestJ    float64
	Phase    string
}

// phase reports a phase without search numbers to the run's progress.
func (r *run) phase(name string) {
	if r.cfg.Progress != nil {
		r.cfg.Progress(Progress{Phase: name, Elapsed: time.Since(r.start), Budget: r.t.Budgets.WallClock.D()})
	}
}

// Run executes the task end to end and returns its summary. The error is
// nil only when the run committed (or found its commit already in the
// ledger); ExitCode maps it to the CLI's exit code. The summary is
// returned whenever the run got far enough to have an id.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	start := time.Now()
	t := cfg.Task
	workers, err := checkConfig(cfg)
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	st, err := openStores(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer st.close()
	dd, store, elog, led := st.dir, st.artifacts, st.events, st.ledger
	runID := cfg.RunID
	if runID == "" {
		runID = ulid.Make().String()
	}
	ctx, runSpan := telemetry.Tracer().Start(ctx, "run "+t.Name, trace.WithAttributes(
		attribute.String("multiverse.run_id", runID), attribute.String("multiverse.task", t.Name)))
	defer runSpan.End()
	rec := newRecorder(ctx, elog, runID)
	sum := &Summary{RunID: runID, Task: t.Name, TaskDigest: t.Digest(), Seed: t.Seed, Workers: workers, NoCommit: !t.HasCommit(),
		Pruned: map[string]int{}, Paths: Paths{DataDir: dd, Events: elog.Path(), Ledger: led.Path(), Artifacts: store.Root()}}
	tr := &trail{rec: rec}
	key := cfg.ScrubKey
	if len(key) == 0 {
		key = scrub.NewKey()
	}
	if err := writeKey(dd, runID, key); err != nil {
		tr.fail(err)
		rec.add(time.Time{}, 0, eventlog.KindError, "", map[string]any{"where": "scrub_key", "error": err.Error()})
	}
	sc := scrub.New(key, t.SecretValues())
	r := &run{cfg: cfg, t: t, log: log, sum: sum, runID: runID, workers: workers, start: start,
		records:     records{dd: dd, store: store, elog: elog, led: led, rec: rec, key: key, sc: sc},
		exploring:   exploring{runSpan: trace.SpanFromContext(ctx), results: map[string]*job.Result{}, spans: map[string]trace.Span{}},
		commitPhase: commitPhase{trail: tr}}
	cpu0 := cpuTime()
	err = scrubbed(sc, r.execute(ctx))
	sum.Elapsed = time.Since(start)
	sum.CPU = cpuTime() - cpu0
	if err != nil && ctx.Err() != nil && !errors.Is(err, ErrInterrupted) {
		// The caller stopped the run: that, not what it was doing when the
		// context ended, is why it ended.
		err = fmt.Errorf("%w (%v): the run stopped where it was; what it recorded is kept", ErrInterrupted, err)
		sum.Status = StatusInterrupted
	}
	if err != nil {
		sum.Error = err.Error()
		if sum.Status == "" {
			sum.Status = statusOf(err)
		}
		runSpan.SetStatus(codes.Error, sum.Status)
		if !errors.Is(err, ErrInterrupted) {
			r.handOver(ctx)
		}
	} else {
		runSpan.SetStatus(codes.Ok, "")
	}
	r.rec.add(time.Time{}, 0, eventlog.KindRunEnd, "", payload.RunEnd{Status: sum.Status, Error: sum.Error,
		ElapsedMS: sum.Elapsed.Milliseconds(), Branches: payload.RunBranches(sum.Branches), ExitCode: ExitCode(err)})
	// The run's end is recorded even when the caller's context ended.
	if ferr := rec.close(context.WithoutCancel(ctx)); ferr != nil && err == nil {
		err = fmt.Errorf("orchestrator: event log: %w", ferr)
	}
	return sum, err
}

// checkConfig checks what a run needs before it records anything and
// returns its in-process worker slots. A missing browser part stops the
// run here.
func checkConfig(cfg Config) (workers int, err error) {
	t := cfg.Task
	if t == nil {
		return 0, fmt.Errorf("%w: no task", ErrBadInput)
	}
	if err := t.CheckSecrets(); err != nil {
		return 0, err
	}
	if cfg.LLM != "" && cfg.LLM != llm.ModeLive && !t.UsesModel() {
		return 0, fmt.Errorf("%w: --llm %s: the task's planner asks no model (planner.proposer is %s)", ErrBadInput, cfg.LLM, t.Planner.Proposer)
	}
	if _, err := llm.ParseMode(string(cfg.LLM)); cfg.LLM != "" && err != nil {
		return 0, fmt.Errorf("%w: --llm %q: want live, record or replay", ErrBadInput, cfg.LLM)
	}
	if dir := cassetteDir(cfg); cfg.LLM == llm.ModeReplay && dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return 0, fmt.Errorf("%w: --llm replay: the cassette directory %s does not exist (record one with --llm record)", ErrBadInput, dir)
		}
	}
	if _, err := ulid.ParseStrict(cfg.RunID); cfg.RunID != "" && err != nil {
		return 0, fmt.Errorf("%w: run id %q is not a ULID: %v", ErrBadInput, cfg.RunID, err)
	}
	if cfg.FailureBundles < 0 {
		return 0, fmt.Errorf("%w: %d failure bundles: the cap must not be negative", ErrBadInput, cfg.FailureBundles)
	}
	workers = cfg.Workers
	if workers < 0 {
		workers = t.Search.Workers
	}
	if workers > task.MaxWorkers {
		return 0, fmt.Errorf("%w: %d in-process worker slots: at most %d (start worker processes for more)", ErrBadInput, workers, task.MaxWorkers)
	}
	if workers == 0 && cfg.NATSURL == "" && cfg.NATSListen == "" {
		return 0, fmt.Errorf("%w: --workers 0 needs remote workers: give --nats URL or --nats-listen ADDR", ErrBadInput)
	}
	if cfg.Executor == nil {
		if _, err := browser.FindChromium(cfg.Browser.ChromiumPath, cfg.Browser.Headful); err != nil {
			return 0, err
		}
		if _, err := browser.FindDriver(cfg.Browser.DriverDir); err != nil {
			return 0, err
		}
	}
	return workers, nil
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

// StatusInterrupted is the status of a run its caller stopped (exit 130).
const StatusInterrupted = "interrupted"

func statusOf(err error) string {
	switch ExitCode(err) {
	case ExitNoBoundary:
		return "no_boundary"
	case ExitGoalFailed:
		return "goal_failed"
	case ExitSideEffect:
		return "side_effect_boundary"
	case ExitAborted:
		return "aborted"
	case ExitSite:
		return "site_unreachable"
	case ExitCompensated:
		return "compensated"
	case ExitEnvironment:
		return "environment"
	}
	return "failed"
}

// run is one run of a task: its configuration and the parts it owns,
// each a type with one job. Everything but the login state and the
// workers' errors is read and written only by the run's own goroutine.
type run struct {
	cfg     Config
	t       *task.Task
	log     *slog.Logger
	runID   string
	workers int
	start   time.Time
	spec    *job.Spec
	sum     *Summary
	rt      *browser.Runtime
	// nats is the embedded NATS server; nil when the run joined one.
	nats *bus.Server

	records
	exploring
	commitPhase
	learning learning
	// login is the session the task's scripted login left; workers fetch
	// it over the bus, the committer starts from it.
	login loginState
	// workerErrs holds the last error of the in-process workers' jobs.
	workerErrs workerErrors
}

// records is where a run writes what it did: its data dir, artifact
// store, event log and ledger, the recorder in front of the log, and the
// scrubbing every record goes through. Opened before the run starts,
// closed after its end.
type records struct {
	dd    string
	store *artifacts.FS
	elog  *eventlog.Log
	led   *ledger.Ledger
	rec   *recorder
	key   []byte
	sc    *scrub.Scrubber
	// objects is the artifact object store remote workers write to.
	objects *bus.Objects
}

// exploring is the exploration's state: the branches dispatched and what
// came back.
type exploring struct {
	// runSpan is the run's span, the parent of branch spans.
	runSpan trace.Span
	// results holds every branch's accepted result by branch id.
	results map[string]*job.Result
	// spans holds the open span of each dispatched branch.
	spans map[string]trace.Span
	// disp publishes the branches' jobs and keeps their claims and
	// routes; nil until the run subscribed to claims.
	disp *dispatcher
	// reruns counts the times a branch's job was published again.
	reruns map[string]int
	// siteFailures counts the branches that failed to reach the site.
	siteFailures int
	// minimal is the shortest plan that ends as the first winner's did
	// (minimize); nil before the search decided.
	minimal *planner.Minimal
	// followsMinimal: the search follows a cached plan that was minimized
	// when it was stored.
	followsMinimal bool
}

// commitPhase is what the commit phase keeps: whether the audit trail
// still holds and the rows the run's start finalized.
type commitPhase struct {
	// trail says whether the audit trail still holds (the committer's
	// gate).
	trail *trail
	// recovered holds the keys of rows this run's start finalized
	// through the confirm probe (recoverPending).
	recovered map[string]bool
}

// startSession sets up the session branches start from: the task's
// storage state (recorded, so a replay starts from it too), or its
// scripted login, served to the workers until the returned stop.
func (r *run) startSession(ctx context.Context, conn *busConn) (stop func(), err error) {
	t := r.t
	if len(t.Auth.Login) == 0 && t.Auth.StorageState != nil {
		// Every branch starts from the task's storage state (each
		// session reads it): a replay must too.
		if st, err := task.ResolveStorageState(*t.Auth.StorageState); err == nil {
			r.recordStartState(ctx, st, 0)
		}
	}
	if len(t.Auth.Login) == 0 {
		return func() {}, nil
	}
	r.phase("login")
	if r.rt == nil {
		return nil, fmt.Errorf("%w: auth.login needs a browser; this run's executor has none", ErrBadInput)
	}
	return r.logIn(ctx, r.rt, conn.client)
}

// storageFull is closed when the embedded NATS server's store runs out of
// space; nil (never ready) when the run joined a server.
func (r *run) storageFull() <-chan struct{} {
	if r.nats == nil {
		return nil
	}
	return r.nats.StorageFull()
}

// setScreenshots sets the job spec's screenshot policy: the task's
// capture.screenshots (looked unless it says otherwise), none with
// Config.NoScreenshots. The committer's evidence is taken whatever it is.
func (r *run) setScreenshots() {
	pol := r.t.Capture.Screenshots
	r.spec.Screenshots = !r.cfg.NoScreenshots && pol != task.ScreenshotsNone
	r.spec.ScreenshotsAll = pol == task.ScreenshotsAll
	r.spec.Success = r.spec.Success[:0]
	for _, p := range r.t.Goal.Success {
		r.spec.Success = append(r.spec.Success, p.Name)
	}
}

func (r *run) execute(ctx context.Context) error {
	t := r.t
	r.spec = job.NewSpec(t)
	r.spec.ScrubKey = r.key
	r.setScreenshots()
	r.phase("start")
	// The HTTP preflight speaks to real sites; a custom executor (a
	// simulated web) has none.
	if r.cfg.Executor == nil {
		if err := r.preflightSite(ctx); err != nil {
			r.rec.add(time.Time{}, 0, eventlog.KindRunStart, "", r.manifest(browser.Fingerprint{}, ""))
			r.rec.add(time.Time{}, 0, eventlog.KindError, "", map[string]any{"where": "preflight", "error": r.sc.Text(err.Error())})
			return err
		}
	}
	conn, err := r.connectBus(ctx)
	if err != nil {
		return err
	}
	defer conn.close()
	handler, fp, closeExec, err := r.newExecutor(ctx, conn.client)
	if err != nil {
		return err
	}
	defer closeExec()
	work := r.startWorkers(ctx, conn.client, handler)
	defer work.stop(r.log)
	r.readLearning(ctx)
	r.rec.add(time.Time{}, 0, eventlog.KindRunStart, "", r.manifest(fp, conn.url))
	r.rec.flush(ctx)
	if r.cfg.Executor == nil && t.HasCommit() {
		r.recoverPending(ctx)
	}
	stop, err := r.startSession(ctx, conn)
	if err != nil {
		return err
	}
	defer stop()
	if r.cfg.Compensate != nil {
		return r.compensate(ctx, r.rt, *r.cfg.Compensate)
	}
	winners, err := r.search(ctx, conn, work)
	if err != nil {
		return err
	}
	return r.conclude(ctx, winners)
}

// conclude ends a search that found winners: a task without commit
// reaches its goal, an explore-only run stops at the boundary, any other
// commits through the committer; the winner's plan is stored for the
// next run.
func (r *run) conclude(ctx context.Context, winners []*planner.Node) error {
	t := r.t
	if !t.HasCommit() {
		err := r.reachGoal(ctx, winners[0])
		if err == nil {
			r.storePlan(winners[0])
		}
		return err
	}
	if r.cfg.ExploreOnly && !r.cfg.DryCommit || r.rt == nil {
		r.sum.Status = "explored"
		r.sum.Winner = winnerOf(winners[0])
		return nil
	}
	if r.cfg.BeforeCommit != nil {
		r.cfg.BeforeCommit()
	}
	if err := r.commit(ctx, r.rt, winners); err != nil {
		return err
	}
	if r.cfg.DryCommit {
		return nil
	}
	for _, n := range winners {
		if w := r.sum.Winner; w != nil && n.ID == w.BranchID {
			r.storePlan(n)
		}
	}
	return nil
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
