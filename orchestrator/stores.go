package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/internal/dirlock"
)

// stores are the data dir's record stores.
type stores struct {
	dir       string // absolute
	artifacts *artifacts.FS
	events    *eventlog.Log
	ledger    *ledger.Ledger
	lock      *dirlock.Lock
}

// openStores creates the data dir (DefaultDataDir when cfg.DataDir is
// ""), takes its lock (lockDataDir; a warm engine's run takes none: its
// engine holds the lock while it lives, Parts.HoldsLock) and opens its
// stores.
func openStores(ctx context.Context, cfg Config) (*stores, error) {
	dir := cfg.DataDir
	if dir == "" {
		dir = DefaultDataDir
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: data dir %s: %v", ErrBadInput, dir, err)
	}
	var lock *dirlock.Lock // an engine's run: the engine holds the lock for its life
	if cfg.Parts == nil || !cfg.Parts.HoldsLock {
		l, err := lockDataDir(ctx, dir, cfg)
		if err != nil {
			return nil, err
		}
		lock = l
	}
	store, err := artifacts.OpenFS(filepath.Join(dir, "artifacts"))
	if err != nil {
		lock.Release()
		return nil, fmt.Errorf("%w: artifact store: %v", ErrBadInput, err)
	}
	elog, err := eventlog.Open(ctx, filepath.Join(dir, "events.db"))
	if err != nil {
		lock.Release()
		return nil, fmt.Errorf("%w: event log: %v", ErrBadInput, err)
	}
	led, err := ledger.Open(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		elog.Close()
		lock.Release()
		return nil, fmt.Errorf("%w: ledger: %v", ErrBadInput, err)
	}
	return &stores{dir: dir, artifacts: store, events: elog, ledger: led, lock: lock}, nil
}

// lockDataDir takes the data dir's lock before anything of the run
// touches the dir (its stores, the embedded NATS server's JetStream
// store): one run per data dir at a time. While another run holds it the
// run is refused at once with a *dirlock.BusyError naming the holder
// (exit 2, bad input: the data dir is unusable now), or, with
// cfg.WaitLock, waits that long for it, saying so through cfg.Notice. A
// lock left by a run that ended without releasing it (killed, crashed) is
// taken over with a notice.
func lockDataDir(ctx context.Context, dir string, cfg Config) (*dirlock.Lock, error) {
	command := lockCommand(cfg)
	notice := cfg.Notice
	if notice == nil {
		notice = func(string) {}
	}
	var (
		lock *dirlock.Lock
		err  error
	)
	if cfg.WaitLock > 0 {
		wctx, cancel := context.WithTimeout(ctx, cfg.WaitLock)
		lock, err = dirlock.Wait(wctx, dir, command, func(be *dirlock.BusyError) {
			notice(fmt.Sprintf("data dir %s is in use by %s: waiting up to %s for it (--wait-lock)", be.Dir, be.Owner, cfg.WaitLock))
		})
		cancel()
	} else {
		lock, err = dirlock.Acquire(ctx, dir, command)
	}
	if errors.Is(err, dirlock.ErrBusy) {
		return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: data dir %s: %w", ErrBadInput, dir, err)
	}
	if o := lock.TookOver; o != nil {
		notice(fmt.Sprintf("data dir %s: took over the lock of %s, which ended without releasing it", dir, o))
	}
	return lock, nil
}

// lockCommand is what the data dir's lock file says holds it: the
// program and its command, and the task ("orchestrator run, task
// procure-team-plan"), never a flag's value.
func lockCommand(cfg Config) string {
	cmd := "orchestrator"
	if len(os.Args) > 0 {
		cmd = filepath.Base(os.Args[0])
		if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-") {
			cmd += " " + os.Args[1]
		}
	}
	if cfg.Task != nil {
		cmd += ", task " + cfg.Task.Name
	}
	return cmd
}

func (s *stores) close() {
	s.ledger.Close()
	s.events.Close()
	s.lock.Release()
}
