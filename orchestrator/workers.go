package orchestrator

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/internal/proctree"
	"github.com/multiverse-orchestrator/multiverse/worker"
)

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
	if err := r.checkNetwork(ctx); err != nil {
		return nil, browser.Fingerprint{}, nil, err
	}
	if r.cfg.Executor != nil {
		return r.cfg.Executor, browser.Fingerprint{Browser: "none (custom executor)"}, func() {}, nil
	}
	keep := worker.DefaultKeepWarm(r.workers)
	if r.cfg.Cold {
		keep = 0 // (with Network and no Continue the executor keeps none either)
	}
	// Before the executor launches the browser: its start-up counts.
	tree0 := proctree.Descendants(os.Getpid())
	exec, err := worker.NewExecutor(ctx, worker.Options{Name: workerName(), Store: r.trail.store(r.store), Browser: r.cfg.Browser, LoginState: client.FetchState,
		Logger: r.log, KeepWarm: keep, Network: r.cfg.Network, Continue: r.cfg.Continue, Runtime: r.partsRuntime()})
	if err != nil {
		return nil, browser.Fingerprint{}, nil, err
	}
	closeExec := func() {
		// Before the browser closes: once reaped, the driver's and
		// Chromium's CPU merge into this process's RUSAGE_CHILDREN.
		tree := proctree.Descendants(os.Getpid())
		r.sum.DriverCPU, r.sum.BrowserCPU = max(tree.Driver-tree0.Driver, 0), max(tree.Browser-tree0.Browser, 0)
		for typ, d := range tree.BrowserByType {
			if ms := (d - tree0.BrowserByType[typ]).Milliseconds(); ms > 0 {
				if r.sum.BrowserCPUByType == nil {
					r.sum.BrowserCPUByType = map[string]int64{}
				}
				r.sum.BrowserCPUByType[typ] = ms
			}
		}
		exec.DropWarm(r.runID)
		exec.Close()
	}
	rt, err := exec.Runtime(ctx)
	if err == nil {
		err = checkSelectors(ctx, rt, r.t, r.validSelectors())
	}
	if err != nil {
		closeExec()
		return nil, browser.Fingerprint{}, nil, err
	}
	r.rt = rt
	return exec, rt.Fingerprint(), closeExec, nil
}

// checkNetwork refuses a run with Config.Network that would still reach
// the site: its committer, its scripted login and the recovery of a
// pending commit speak to the site itself, and a custom executor ignores
// Network.
func (r *run) checkNetwork(ctx context.Context) error {
	if r.cfg.Network == nil {
		return nil
	}
	t := r.t
	switch {
	case r.cfg.Executor != nil:
		return fmt.Errorf("%w: a recorded network needs the browser executor, not a custom one", ErrBadInput)
	case t.HasCommit() && !r.cfg.ExploreOnly:
		return fmt.Errorf("%w: a run against a recorded network explores only: its committer would reach the site", ErrBadInput)
	case len(t.Auth.Login) > 0:
		return fmt.Errorf("%w: a run against a recorded network cannot log in: auth.login would reach the site", ErrBadInput)
	}
	if !t.HasCommit() {
		return nil
	}
	pending, err := r.led.Pending(ctx)
	if err != nil {
		return fmt.Errorf("orchestrator: ledger: %w", err)
	}
	for _, e := range pending {
		if e.Site == t.Commit.Site && e.Flow == t.Commit.Flow {
			return fmt.Errorf("%w: the data dir holds a pending commit of %s/%s, whose recovery would reach the site: rerun in another data dir", ErrBadInput, e.Site, e.Flow)
		}
	}
	return nil
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

// validSelectors is the warm engine's record of valid selectors, nil
// without one.
func (r *run) validSelectors() *ValidSelectors {
	if r.cfg.Parts == nil {
		return nil
	}
	return r.cfg.Parts.Selectors
}

// partsRuntime is the warm engine's browser, nil without one.
func (r *run) partsRuntime() func(ctx context.Context) (*browser.Runtime, error) {
	if r.cfg.Parts == nil {
		return nil
	}
	return r.cfg.Parts.Runtime
}
