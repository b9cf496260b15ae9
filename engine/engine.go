// Package engine is a warm engine: it starts the heavy parts of a run
// once (the embedded NATS JetStream server in its data dir, Chromium and
// the Playwright driver) and runs the tasks it is given with them, one
// after another, so that a run starts its first action at once instead
// of after the parts' start-up. It plays flows the same way, each in a
// session of the warm browser.
//
// A run or a playback submitted to the engine gets its id at once (a
// run's is the run's own id, a ULID): the engine queues it and reports it
// as queued, running, completed (exit 0) or failed (any other exit), with
// the run's summary or the playback's report and the exit code once it
// ended. Each report is also written to
// DATA_DIR/engine/ID.json as it changes, so `orchestrator status ID`
// answers from the data dir when the engine is gone.
//
// The engine runs tasks as `orchestrator run` would, with the engine's
// environment: a secret a task references is read from the engine's
// environment, never sent with the request. Handler serves its HTTP API
// (see Handler).
package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/flow"
	"github.com/multiverse-orchestrator/multiverse/internal/dirlock"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/playback"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// What a report is of.
const (
	KindRun  = "run"
	KindPlay = "play"
)

// Run states.
const (
	StateQueued    = "queued"
	StateRunning   = "running"
	StateCompleted = "completed" // the run exited 0
	StateFailed    = "failed"    // any other exit
)

// ErrNotFound: no run of that id, neither in the engine nor in its data
// dir.
var ErrNotFound = errors.New("engine: no such run")

// ErrBadRequest wraps what is wrong with a request (its task file, a
// flag's value).
var ErrBadRequest = errors.New("engine: bad request")

// ErrClosed: the engine stopped taking runs.
var ErrClosed = errors.New("engine: closed")

// ErrQueueFull: Options.Queue runs wait already.
var ErrQueueFull = errors.New("engine: the queue is full")

// Options configure Start.
type Options struct {
	// DataDir is where the engine's runs record themselves and its
	// JetStream store lives.
	DataDir string
	Browser browser.Options
	Logger  *slog.Logger
	// Queue bounds the runs waiting to start (default 64).
	Queue int
	// PlayEnv names the environment variables a submitted flow's values
	// may read (env:NAME); a flow naming another is refused. None by
	// default: whoever may submit must not read the engine's environment
	// into a page of their choosing.
	PlayEnv []string
}

// Request is a run to submit: a task file's, or a flow's playback.
type Request struct {
	// TaskFile is the task file's path on the engine's machine; a relative
	// one is taken from the engine's working directory.
	TaskFile string `json:"task_file,omitempty"`
	// Flow, instead of TaskFile, is a flow to play (as flow.Parse reads
	// it: FlowJSON), with Play's options.
	Flow json.RawMessage `json:"flow,omitempty"`
	Play PlayOptions     `json:"play,omitzero"`
	// StartURL overrides the task's start_url.
	StartURL string `json:"start_url,omitempty"`
	// Workers is the in-process worker slots (0: the task's
	// search.workers).
	Workers int `json:"workers,omitempty"`
	// Seed overrides the task's seed (decimal).
	Seed        string `json:"seed,omitempty"`
	NoCache     bool   `json:"no_cache,omitempty"`
	Cold        bool   `json:"cold,omitempty"`
	Screenshots string `json:"screenshots,omitempty"`
}

// Report is what the engine knows of a run or a playback.
type Report struct {
	ID    string `json:"id"`
	State string `json:"state"`
	// Kind is KindRun or KindPlay.
	Kind      string    `json:"kind"`
	TaskFile  string    `json:"task_file,omitempty"`
	Task      string    `json:"task,omitempty"`
	Submitted time.Time `json:"submitted"`
	Started   time.Time `json:"started,omitzero"`
	Ended     time.Time `json:"ended,omitzero"`
	// FirstActionMS is the time from the run's start to its first
	// action: the start page's branch sent to a worker (the preflight,
	// the bus connection, the workers and the run's manifest before it).
	FirstActionMS int64                 `json:"first_action_ms,omitempty"`
	Summary       *orchestrator.Summary `json:"summary,omitempty"`
	// Playback is a playback's report once it ended.
	Playback *playback.Report `json:"playback,omitempty"`
	ExitCode int              `json:"exit_code"`
	Error    string           `json:"error,omitempty"`
}

// Done reports whether the run ended.
func (r Report) Done() bool { return r.State == StateCompleted || r.State == StateFailed }

// Engine keeps the parts warm and runs what it is given. Safe for
// concurrent use.
type Engine struct {
	dd    string
	opts  Options
	log   *slog.Logger
	nats  *bus.Server
	lock  *dirlock.Lock
	queue chan *job
	done  chan struct{}
	ctx   context.Context
	stop  context.CancelFunc

	browser *browser.Keeper
	// selectors are the task selectors the engine's browser found valid.
	selectors orchestrator.ValidSelectors

	mu     sync.Mutex
	jobs   map[string]*job // queued and running; an ended one is read from its file
	closed bool
	once   sync.Once
}

// job is a submitted run or playback.
type job struct {
	req      Request
	t        *task.Task
	flow     *flow.Flow
	playOpts playback.Options
	// ctx is the job's own, ended by Cancel or the engine's Close.
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	rep    Report
	prog   orchestrator.Progress
	// changed is closed and replaced whenever rep or prog change.
	changed chan struct{}
}

// Start takes the data dir's lock for the engine's life (a run started
// apart on the same data dir is refused, naming the engine, as a second
// run is) and starts the engine's parts: the embedded NATS server in the
// data dir and Chromium. Close stops them and releases the lock. A data
// dir another process holds is an error wrapping orchestrator.ErrBadInput
// and dirlock.ErrBusy.
func Start(ctx context.Context, o Options) (*Engine, error) {
	if o.DataDir == "" {
		o.DataDir = orchestrator.DefaultDataDir
	}
	if o.Queue <= 0 {
		o.Queue = 64
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if err := os.MkdirAll(filepath.Join(o.DataDir, "engine"), 0o755); err != nil {
		return nil, fmt.Errorf("%w: engine: %w", orchestrator.ErrBadInput, err)
	}
	lock, err := dirlock.Acquire(ctx, o.DataDir, "orchestrator engine")
	if err != nil {
		return nil, fmt.Errorf("%w: engine: %w", orchestrator.ErrBadInput, err)
	}
	srv, err := bus.StartEmbedded(ctx, bus.ServerConfig{StoreDir: filepath.Join(o.DataDir, "nats"), Host: "127.0.0.1"})
	if err != nil {
		lock.Release()
		return nil, fmt.Errorf("engine: starting the embedded NATS server: %w", err)
	}
	ectx, stop := context.WithCancel(context.WithoutCancel(ctx))
	e := &Engine{dd: o.DataDir, opts: o, log: log, nats: srv, lock: lock, browser: browser.NewKeeper(o.Browser, log), queue: make(chan *job, o.Queue), done: make(chan struct{}),
		ctx: ectx, stop: stop, jobs: map[string]*job{}}
	if _, err := e.runtime(ctx); err != nil {
		srv.Shutdown()
		lock.Release()
		stop()
		return nil, err
	}
	go e.loop()
	return e, nil
}

// DataDir is the engine's data dir.
func (e *Engine) DataDir() string { return e.dd }

// runtime returns the running browser, launching it again when it died.
func (e *Engine) runtime(ctx context.Context) (*browser.Runtime, error) { return e.browser.Get(ctx) }

// Close stops taking runs, interrupts the one running (it records that it
// was interrupted), fails the queued ones, and stops the parts. Watchers
// see each run's last report before Close returns. It is idempotent.
func (e *Engine) Close() error {
	var err error
	e.once.Do(func() {
		e.mu.Lock()
		e.closed = true
		e.mu.Unlock()
		e.stop()
		<-e.done
		e.browser.Close()
		e.nats.Shutdown()
		err = e.lock.Release()
	})
	return err
}

// Submit loads the request's task and queues its run; the report it
// returns has the run's id and state queued. A task that does not load
// is an error wrapping ErrBadRequest (and task.ErrInvalid, or
// task.ErrSecretMissing, as the case is).
func (e *Engine) Submit(req Request) (Report, error) {
	j := &job{req: req, changed: make(chan struct{}), rep: Report{ID: ulid.Make().String(), State: StateQueued, Submitted: time.Now().UTC()}}
	switch {
	case (req.TaskFile == "") == (len(req.Flow) == 0):
		return Report{}, fmt.Errorf("%w: give task_file or flow, one of them", ErrBadRequest)
	case req.TaskFile != "":
		t, err := loadTask(req)
		if err != nil {
			return Report{}, err
		}
		j.t, j.rep.Kind, j.rep.TaskFile, j.rep.Task = t, KindRun, req.TaskFile, t.Name
	default:
		f, opts, err := loadFlow(req, e.opts.PlayEnv)
		if err != nil {
			return Report{}, err
		}
		j.flow, j.playOpts, j.rep.Kind, j.rep.Task = f, opts, KindPlay, f.Name
	}
	j.ctx, j.cancel = context.WithCancel(e.ctx)
	rep := j.rep // the loop owns j once it is queued
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		j.cancel()
		return Report{}, ErrClosed
	}
	e.store(rep)
	select {
	case e.queue <- j:
		e.jobs[rep.ID] = j
	default:
		j.cancel()
		os.Remove(reportPath(e.dd, rep.ID))
		return Report{}, fmt.Errorf("%w: %d runs wait already", ErrQueueFull, cap(e.queue))
	}
	return rep, nil
}

// Cancel stops the run of that id: a queued one never starts, a running
// one is interrupted as Ctrl-C interrupts a run (it records that it was,
// and a commit under way is left to recovery as after a crash). It
// returns the run's report as it stands; ErrNotFound for an id the
// engine never had, and an ended run's report for one that ended.
func (e *Engine) Cancel(ctx context.Context, id string) (Report, error) {
	e.mu.Lock()
	j := e.jobs[id]
	e.mu.Unlock()
	if j == nil {
		return Stored(ctx, e.dd, id)
	}
	j.cancel()
	return j.report(), nil
}

// loadTask loads and configures the request's task as `orchestrator run`
// does: a start URL or seed the request overrides, secrets present.
func loadTask(req Request) (*task.Task, error) {
	if req.TaskFile == "" {
		return nil, fmt.Errorf("%w: task_file: required", ErrBadRequest)
	}
	t, err := task.Load(req.TaskFile)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	if req.StartURL != "" {
		st, err := t.WithStartURL(req.StartURL)
		if err != nil {
			return nil, fmt.Errorf("%w: start_url: %w", ErrBadRequest, err)
		}
		t = st
	}
	if req.Seed != "" {
		seed, err := strconv.ParseUint(req.Seed, 0, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: seed %q is not a non-negative whole number", ErrBadRequest, req.Seed)
		}
		t.Seed, t.SeedSet = seed, true
	}
	if req.Screenshots != "" {
		if !slices.Contains(task.ScreenshotPolicies, req.Screenshots) {
			return nil, fmt.Errorf("%w: screenshots %q: want %s", ErrBadRequest, req.Screenshots, strings.Join(task.ScreenshotPolicies, ", "))
		}
		t.Capture.Screenshots = req.Screenshots
	}
	if req.Workers < 0 || req.Workers > task.MaxWorkers {
		return nil, fmt.Errorf("%w: workers %d: want 0 (the task's) to %d", ErrBadRequest, req.Workers, task.MaxWorkers)
	}
	if err := t.CheckSecrets(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	return t, nil
}

// loop runs the queued runs one after another until the engine closes.
func (e *Engine) loop() {
	defer close(e.done)
	for {
		select {
		case <-e.ctx.Done():
			e.drain()
			return
		case j := <-e.queue:
			if e.ctx.Err() != nil || j.ctx.Err() != nil {
				e.neverStarted(j)
			} else {
				e.serve(j)
			}
			e.forget(j)
		}
	}
}

// forget drops an ended job: its file answers from now on.
func (e *Engine) forget(j *job) {
	e.mu.Lock()
	delete(e.jobs, j.rep.ID)
	e.mu.Unlock()
	j.cancel()
}

// set changes j's report and stores it.
func (e *Engine) set(j *job, f func(*Report)) {
	j.update(f)
	e.store(j.report())
}

// ended records how a run or playback ended: completed for err nil,
// else failed with err's message and exit code.
func ended(r *Report, err error) {
	r.Ended, r.ExitCode, r.State = time.Now().UTC(), orchestrator.ExitCode(err), StateCompleted
	if err != nil {
		r.State, r.Error = StateFailed, err.Error()
	}
}

// serve runs or plays j. A panic in the engine's own goroutine (the
// run's control loop) fails j (exit ExitInternal, the panic in its error
// and the log) and leaves the engine serving the next; one in a goroutine
// the run started ends the process, as it would a run started apart.
func (e *Engine) serve(j *job) {
	defer func() {
		if p := recover(); p != nil {
			e.log.Error("a run panicked", "run", j.rep.ID, "panic", p, "stack", string(debug.Stack()))
			e.set(j, func(r *Report) { ended(r, fmt.Errorf("engine: the run panicked: %v", p)) })
		}
	}()
	start := time.Now()
	e.set(j, func(r *Report) { r.State, r.Started = StateRunning, start.UTC() })
	if j.flow != nil {
		e.play(j)
	} else {
		e.run(j, start)
	}
}

// drain fails the runs that never started.
func (e *Engine) drain() {
	for {
		select {
		case j := <-e.queue:
			e.neverStarted(j)
			e.forget(j)
		default:
			return
		}
	}
}

// neverStarted fails a job cancelled, or left by the engine's Close,
// before it started (exit 130).
func (e *Engine) neverStarted(j *job) {
	why := "the run was cancelled before it started"
	if e.ctx.Err() != nil {
		why = "the engine stopped before the run started"
	}
	e.set(j, func(r *Report) { ended(r, fmt.Errorf("%w: %s", orchestrator.ErrInterrupted, why)) })
}

// run runs one job with the warm parts.
func (e *Engine) run(j *job, start time.Time) {
	workers := j.req.Workers
	if workers == 0 {
		workers = -1
	}
	var first sync.Once
	cfg := orchestrator.Config{Task: j.t, DataDir: e.dd, Workers: workers, Browser: e.opts.Browser, Logger: e.log,
		NoCache: j.req.NoCache, Cold: j.req.Cold, RunID: j.rep.ID, FailureBundles: 5,
		Parts: &orchestrator.Parts{HoldsLock: true, NATS: e.nats, Runtime: e.runtime, Selectors: &e.selectors},
		Progress: func(p orchestrator.Progress) {
			if p.Phase == "explore" && p.Executed > 0 {
				first.Do(func() { j.update(func(r *Report) { r.FirstActionMS = time.Since(start).Milliseconds() }) })
			}
			j.progress(p)
		}}
	sum, err := orchestrator.Run(j.ctx, cfg)
	e.set(j, func(r *Report) { r.Summary = sum; ended(r, err) })
}

func (j *job) report() Report {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.rep
}

func (j *job) update(f func(*Report)) {
	j.mu.Lock()
	defer j.mu.Unlock()
	f(&j.rep)
	j.changedLocked()
}

func (j *job) progress(p orchestrator.Progress) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.prog = p
	j.changedLocked()
}

// changedLocked wakes the watchers; j.mu is held.
func (j *job) changedLocked() {
	close(j.changed)
	j.changed = make(chan struct{})
}

// watch returns the job's report, its progress and a channel closed at
// the next change.
func (j *job) watch() (Report, orchestrator.Progress, <-chan struct{}) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.rep, j.prog, j.changed
}

// Status reports the run of that id: the engine's own record, else the
// report stored in its data dir; ErrNotFound when neither holds it.
func (e *Engine) Status(ctx context.Context, id string) (Report, error) {
	e.mu.Lock()
	j := e.jobs[id]
	e.mu.Unlock()
	if j != nil {
		return j.report(), nil
	}
	return Stored(ctx, e.dd, id)
}
