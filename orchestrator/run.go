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
	workers, err := checkConfig(cfg)
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	st, err := openStores(ctx, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	defer st.close()
	dd, store, elog, led := st.dir, st.artifacts, st.events, st.ledger
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
	// disp publishes the branches' jobs and keeps their claims and
	// routes; nil until the run subscribed to claims.
	disp *dispatcher
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
	r.rec.add(time.Time{}, 0, eventlog.KindRunStart, "", r.manifest(fp, conn.url))
	r.rec.flush(ctx)
	if r.cfg.Executor == nil && t.HasCommit() {
		r.recoverPending(ctx)
	}
	if len(t.Auth.Login) > 0 {
		if r.rt == nil {
			return fmt.Errorf("%w: auth.login needs a browser; this run's executor has none", ErrBadInput)
		}
		stop, err := r.logIn(ctx, r.rt, conn.client)
		if err != nil {
			return err
		}
		defer stop()
	}
	winners, err := r.search(ctx, conn, work)
	if err != nil {
		return err
	}
	if !t.HasCommit() {
		return r.reachGoal(ctx, winners[0])
	}
	if r.cfg.ExploreOnly || r.rt == nil {
		r.sum.Status = "explored"
		r.sum.Winner = winnerOf(winners[0])
		return nil
	}
	if r.cfg.BeforeCommit != nil {
		r.cfg.BeforeCommit()
	}
	return r.commit(ctx, r.rt, winners)
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

// wave is the dispatch state of one wave: the branches it waits for,
// their jobs, and what came back.
type wave struct {
	want    map[string]*planner.Node
	jobs    map[string]*job.Job
	ranWith map[string]int // branch -> the login version its job carried
	got     map[string]planner.Outcome
	raw     map[string]*job.Result
}

// open reports whether the wave still waits for a branch's result.
func (w *wave) open(branchID string) bool {
	_, in := w.want[branchID]
	_, done := w.got[branchID]
	return in && !done
}

func (w *wave) answered(branchID string) bool {
	_, done := w.got[branchID]
	return done
}

// runWave publishes the wave's jobs and collects their results. Results
// of other branches (late, duplicate or stale deliveries) are ignored:
// only the first result per branch of this wave counts.
func (r *run) runWave(ctx context.Context, client *bus.Client, results <-chan bus.Result, search *planner.Search, nodes []*planner.Node) (map[string]planner.Outcome, error) {
	w, outs, err := r.prepareWave(ctx, nodes)
	if err != nil {
		return nil, err
	}
	pending, err := r.disp.publish(ctx, outs)
	if err != nil {
		return nil, err
	}
	r.sum.Routed += len(pending)
	r.progress(search, len(w.want), "explore")
	if err := r.collect(ctx, client, results, search, w, pending); err != nil {
		return nil, err
	}
	for id, res := range w.raw {
		r.results[id] = res
	}
	return w.got, nil
}

// prepareWave encodes the wave's jobs. A child goes to the worker that
// kept its parent's live context: one child per parent, as a kept context
// continues once.
func (r *run) prepareWave(ctx context.Context, nodes []*planner.Node) (*wave, []outJob, error) {
	if r.reruns == nil {
		r.reruns = map[string]int{}
	}
	w := &wave{want: map[string]*planner.Node{}, jobs: map[string]*job.Job{}, ranWith: map[string]int{},
		got: map[string]planner.Outcome{}, raw: map[string]*job.Result{}}
	usedParent := map[string]bool{}
	outs := make([]outJob, 0, len(nodes))
	for _, n := range nodes {
		route := ""
		if p := r.results[n.ParentID]; p != nil && p.WarmRoute != "" && !usedParent[n.ParentID] {
			usedParent[n.ParentID] = true
			route = p.WarmRoute
		}
		j := &job.Job{RunID: r.runID, BranchID: n.ID, ParentID: n.ParentID, Plan: n.Plan, PlanDigest: n.Digest,
			Deadline: r.t.Budgets.BranchWallClock, Spec: r.spec}
		data, err := j.Encode()
		if err != nil {
			return nil, nil, fmt.Errorf("orchestrator: encoding job: %w", err)
		}
		w.jobs[n.ID], w.ranWith[n.ID] = j, r.spec.Login
		// The branch span's context travels with the job, so the worker's
		// step spans join this trace, whatever process runs it.
		hdr := nats.Header{}
		if span := r.spans[n.ID]; span != nil {
			otel.GetTextMapPropagator().Inject(trace.ContextWithSpan(ctx, span), bus.HeaderCarrier(hdr))
		}
		outs = append(outs, outJob{branchID: n.ID, data: data, hdr: hdr, route: route})
		w.want[n.ID] = n
	}
	return w, outs, nil
}

// collect waits until every branch of the wave has an outcome: its
// result, or its loss (no result in time, deliveries used up). Routed
// jobs wait for their worker only so long: one that is busy or gone hands
// the job to whoever is free.
func (r *run) collect(ctx context.Context, client *bus.Client, results <-chan bus.Result, search *planner.Search, w *wave, pending []routedJob) error {
	published := time.Now()
	var routeTick <-chan time.Time // nil (never ready) once no route is pending
	if len(pending) > 0 {
		t := time.NewTicker(r.disp.routeWait / 4)
		defer t.Stop()
		routeTick = t.C
	}
	timer := time.NewTimer(r.t.Budgets.BranchWallClock.D() + ResultGrace)
	defer timer.Stop()
	deadCheck := time.NewTicker(deadJobsCheck)
	defer deadCheck.Stop()
	for len(w.got) < len(w.want) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case c := <-r.disp.claims:
			r.disp.noteClaim(c)
		case <-r.storageFull():
			return fmt.Errorf("orchestrator: exploring: %w", r.nats.StorageErr())
		case <-routeTick:
			var n int
			var err error
			if pending, n, err = r.disp.reroute(ctx, pending, w.answered, time.Since(published)); err != nil {
				return err
			}
			r.sum.Rerouted += n
			if len(pending) == 0 {
				routeTick = nil
			}
		case <-deadCheck.C:
			maps.Copy(w.got, r.disp.dead(ctx, w.open, r.lastWorkerError))
		case <-timer.C:
			var open []string
			for id := range w.want {
				if w.open(id) {
					open = append(open, id)
				}
			}
			maps.Copy(w.got, r.disp.lost(open))
		case m, ok := <-results:
			if !ok {
				return errors.New("orchestrator: the results subscription ended")
			}
			r.take(ctx, client, search, w, m)
		}
	}
	return nil
}

// take folds a delivered result into the wave, when it counts.
func (r *run) take(ctx context.Context, client *bus.Client, search *planner.Search, w *wave, m bus.Result) {
	_, inWave := w.want[m.BranchID]
	if !r.disp.counts(m, inWave, w.answered(m.BranchID), r.results[m.BranchID] != nil) {
		return
	}
	res, err := job.DecodeResult(m.Data)
	if err != nil {
		w.got[m.BranchID] = planner.Outcome{Code: "bad_result", Msg: err.Error()}
		return
	}
	if r.again(ctx, client, res, m.Attempt, w.jobs[m.BranchID], w.ranWith) {
		return
	}
	w.raw[m.BranchID] = res
	r.mirror(ctx, res)
	w.got[m.BranchID] = planner.Outcome{OK: res.Status == job.ResultOK, Code: res.ErrCode, Msg: res.ErrMsg,
		Step: res.ErrStep, Obs: res.Obs, AtBoundary: res.AtBoundary, Blocked: res.Blocked, Actions: len(res.Steps), Intent: res.Intent}
	r.progress(search, len(w.want)-len(w.got), "explore")
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
				return nil, r.outOfTime(ctx, search)
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
		return nil, r.noWinner(decision, search)
	}
	r.recordWinners(ctx, decision.Winners)
	return decision.Winners, nil
}

// outOfTime is the error of a search whose wall clock budget ran out (or
// of a site that went away meanwhile); the search stops.
func (r *run) outOfTime(ctx context.Context, search *planner.Search) error {
	search.Stop()
	r.logSearch(search.Drain())
	r.countBranches(search)
	if r.siteFailures > 0 {
		why := fmt.Sprintf("%d branches failed to reach it before the wall clock budget ran out", r.siteFailures)
		if err := r.siteLost(ctx, why); err != nil {
			return err
		}
	}
	return fmt.Errorf("%w: the wall clock budget of %s ran out after %d waves", r.noGoal(), r.t.Budgets.WallClock.D(), r.sum.Waves)
}

// noWinner is the error of a search that ended without a winner.
func (r *run) noWinner(decision planner.Decision, search *planner.Search) error {
	if decision.AuthRequired > 0 {
		return loggedOut(r.t, decision.AuthRequired)
	}
	if decision.Definite {
		return fmt.Errorf("%w: %s after %d branches in %d waves; goal.failure held on %s", ErrGoalFailed,
			decision.Exhausted, search.Executed(), r.sum.Waves, failedCounts(decision.Failed))
	}
	return fmt.Errorf("%w: %s after %d branches in %d waves", r.noGoal(), decision.Exhausted, search.Executed(), r.sum.Waves)
}

// recordWinners records the winner ranking. Each candidate says which
// other one beats it on every objective, if any: the reader sees the
// Pareto front whatever the selection.
func (r *run) recordWinners(ctx context.Context, winners []*planner.Node) {
	cands := make([]scoring.Candidate, len(winners))
	for i, n := range winners {
		cands[i] = n.Candidate()
	}
	dominated := scoring.DominatedBy(cands)
	ranking := make([]payload.Rank, len(winners))
	for i, n := range winners {
		ranking[i] = payload.Rank{BranchID: n.ID, PlanDigest: n.Digest, J: n.Score.J, Cost: n.Cost, Steps: n.Depth,
			Progress: n.Score.Progress, Confidence: n.Score.Confidence, Risk: n.Score.Risk, DominatedBy: dominated[n.ID]}
	}
	order := "higher J, lower cost, fewer steps, plan digest, branch id"
	if r.t.Search.Selection == "pareto" {
		order = "Pareto front first (progress, confidence, risk, cost, steps), then " + order
	}
	r.rec.add(time.Time{}, 0, eventlog.KindWinner, winners[0].ID, payload.Winner{Order: order, Ranking: ranking})
	r.rec.flush(ctx)
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

// search subscribes to the run's results and claims and explores until
// the search names its winners; the in-process workers stop after it.
func (r *run) search(ctx context.Context, conn *busConn, work *inprocWorkers) ([]*planner.Node, error) {
	client := conn.client
	results, err := client.Results(ctx, r.runID)
	if err != nil {
		return nil, fmt.Errorf("orchestrator: subscribing to results: %w", err)
	}
	claims, err := client.Claims(ctx, r.runID)
	if err != nil {
		return nil, fmt.Errorf("orchestrator: subscribing to claims: %w", err)
	}
	r.disp = newDispatcher(client, r.runID, r.log, r.rec, claims, conn.watch.Alive)
	if r.workers == 0 {
		if err := waitForWorkers(ctx, conn.watch, conn.url); err != nil {
			return nil, err
		}
	}
	exploreStart, exploreCPU := time.Now(), cpuTime()
	winners, err := r.explore(work.exploreCtx, client, results)
	if cause := context.Cause(work.exploreCtx); err != nil && ctx.Err() == nil && cause != nil {
		err = cause
	}
	r.sum.Explore = time.Since(exploreStart)
	r.sum.ExploreCPU = cpuTime() - exploreCPU
	client.Cancel(context.WithoutCancel(ctx), r.runID)
	work.stopWork()
	return winners, err
}

// busConn is the run's connection to the bus.
type busConn struct {
	client *bus.Client
	url    string
	watch  *bus.Workers
	// closers close what connectBus opened, last opened first.
	closers []func()
}

func (c *busConn) close() {
	for i := len(c.closers) - 1; i >= 0; i-- {
		c.closers[i]()
	}
}

// connectBus starts the embedded NATS server, or joins the configured
// server or cluster, connects, and watches the workers' presence. On
// error it has closed what it opened.
func (r *run) connectBus(ctx context.Context) (_ *busConn, err error) {
	conn := &busConn{url: r.cfg.NATSURL}
	defer func() {
		if err != nil {
			conn.close()
		}
	}()
	if conn.url == "" {
		srv, err := r.startEmbedded(ctx)
		if err != nil {
			return nil, err
		}
		conn.closers = append(conn.closers, srv.Shutdown)
		conn.url, r.nats = srv.ClientURL(), srv
		r.sum.Paths.NATS = filepath.Join(r.dd, "nats")
	}
	busOpts := []bus.Option{bus.WithName("multiverse-orchestrator " + r.runID), bus.WithLogger(r.log)}
	if r.cfg.Replicas > 0 {
		busOpts = append(busOpts, bus.WithReplicas(r.cfg.Replicas))
	}
	if r.nats != nil {
		busOpts = append(busOpts, bus.WithServer(r.nats))
	}
	if conn.client, err = bus.Connect(ctx, conn.url, busOpts...); err != nil {
		return nil, fmt.Errorf("orchestrator: connecting to NATS at %s: %w", conn.url, err)
	}
	conn.closers = append(conn.closers, func() { conn.client.Close() })
	if r.cfg.NATSURL == "" {
		// The embedded server is ours: jobs left by an earlier run that
		// died are not worth running.
		if st, err := conn.client.JetStream().Stream(ctx, bus.JobsStream); err == nil {
			st.Purge(ctx)
		}
	}
	if conn.watch, err = conn.client.WatchWorkers(ctx); err != nil {
		return nil, err
	}
	conn.closers = append(conn.closers, func() { conn.watch.Close() })
	if objs, err := conn.client.Objects(ctx); err == nil {
		r.objects = objs
	} else {
		r.log.Warn("no artifact object store; remote workers' artifacts will not be mirrored", "error", err)
	}
	return conn, nil
}

// startEmbedded starts the run's own NATS server in the data dir.
func (r *run) startEmbedded(ctx context.Context) (*bus.Server, error) {
	host, port := "127.0.0.1", 0
	if r.cfg.NATSListen != "" {
		var err error
		if host, port, err = ParseListen(r.cfg.NATSListen); err != nil {
			return nil, err
		}
	}
	srv, err := bus.StartEmbedded(ctx, bus.ServerConfig{StoreDir: filepath.Join(r.dd, "nats"), Host: host, Port: port})
	if errors.Is(err, bus.ErrListen) {
		return nil, fmt.Errorf("%w: --nats-listen %q: %w", ErrBadInput, r.cfg.NATSListen, err)
	}
	if err != nil {
		return nil, fmt.Errorf("orchestrator: starting the embedded NATS server: %w", err)
	}
	return srv, nil
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

// newExecutor returns what runs the in-process workers' jobs: the
// configured executor, or the browser executor (whose runtime becomes
// r.rt), with the fingerprint the manifest records and a func that closes
// it.
func (r *run) newExecutor(ctx context.Context, client *bus.Client) (Executor, browser.Fingerprint, func(), error) {
	if r.cfg.Executor != nil {
		return r.cfg.Executor, browser.Fingerprint{Browser: "none (custom executor)"}, func() {}, nil
	}
	keep := worker.DefaultKeepWarm(r.workers)
	if r.cfg.Cold {
		keep = 0
	}
	exec, err := worker.NewExecutor(ctx, worker.Options{Name: workerName(), Store: r.trail.store(r.store), Browser: r.cfg.Browser, LoginState: client.FetchState,
		Logger: r.log, KeepWarm: keep})
	if err != nil {
		return nil, browser.Fingerprint{}, nil, err
	}
	closeExec := func() {
		exec.DropWarm(r.runID)
		exec.Close()
	}
	rt, err := exec.Runtime(ctx)
	if err == nil {
		err = checkSelectors(ctx, rt, r.t)
	}
	if err != nil {
		closeExec()
		return nil, browser.Fingerprint{}, nil, err
	}
	r.rt = rt
	return exec, rt.Fingerprint(), closeExec, nil
}

// inprocWorkers are the run's in-process worker slots.
type inprocWorkers struct {
	// exploreCtx ends when the in-process workers stop with an error: no
	// job would be run, and the error (its cause) is the run's.
	exploreCtx  context.Context
	stopExplore context.CancelCauseFunc
	stopWork    context.CancelFunc
	done        chan struct{}
}

// startWorkers starts r.workers in-process worker slots running handler
// (none when r.workers is 0).
func (r *run) startWorkers(ctx context.Context, client *bus.Client, handler Executor) *inprocWorkers {
	workCtx, stopWork := context.WithCancel(ctx)
	exploreCtx, stopExplore := context.WithCancelCause(ctx)
	w := &inprocWorkers{exploreCtx: exploreCtx, stopExplore: stopExplore, stopWork: stopWork, done: make(chan struct{})}
	if r.workers == 0 {
		close(w.done)
		return w
	}
	go func() {
		defer close(w.done)
		if err := client.Work(workCtx, bus.WorkerConfig{Slots: r.workers}, r.handle(handler)); err != nil {
			r.log.Error("in-process workers stopped", "error", err)
			stopExplore(fmt.Errorf("orchestrator: the in-process workers stopped: %w", err))
		}
	}()
	return w
}

// stop stops the workers and waits for them, but only so long: cancelling
// their context aborts their sessions, and a worker that still does not
// return must not keep the run from ending.
func (w *inprocWorkers) stop(log *slog.Logger) {
	w.stopWork()
	select {
	case <-w.done:
	case <-time.After(workerStopWait):
		log.Warn("in-process workers did not stop in time; ending the run without them", "waited", workerStopWait)
	}
	w.stopExplore(nil)
}

func workerName() string {
	h, _ := os.Hostname()
	return fmt.Sprintf("%s/%d/inproc", h, os.Getpid())
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

// stores are the data dir's record stores.
type stores struct {
	dir       string // absolute
	artifacts *artifacts.FS
	events    *eventlog.Log
	ledger    *ledger.Ledger
}

// openStores creates the data dir (DefaultDataDir when dir is "") and
// opens its stores.
func openStores(ctx context.Context, dir string) (*stores, error) {
	if dir == "" {
		dir = DefaultDataDir
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: data dir %s: %v", ErrBadInput, dir, err)
	}
	store, err := artifacts.OpenFS(filepath.Join(dir, "artifacts"))
	if err != nil {
		return nil, fmt.Errorf("%w: artifact store: %v", ErrBadInput, err)
	}
	elog, err := eventlog.Open(ctx, filepath.Join(dir, "events.db"))
	if err != nil {
		return nil, fmt.Errorf("%w: event log: %v", ErrBadInput, err)
	}
	led, err := ledger.Open(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		elog.Close()
		return nil, fmt.Errorf("%w: ledger: %v", ErrBadInput, err)
	}
	return &stores{dir: dir, artifacts: store, events: elog, ledger: led}, nil
}

func (s *stores) close() {
	s.ledger.Close()
	s.events.Close()
}
