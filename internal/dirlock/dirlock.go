// Package dirlock holds a data dir for one writer at a time: a run (run,
// demo, a rerun's own data dir) takes the data dir's lock before it opens
// its stores and starts the embedded NATS server in it, and a second run
// on the same data dir is refused at once with the holder's PID, command
// and start time, instead of sharing the JetStream store and failing a
// minute and a half later.
//
// The lock is an flock on DATA_DIR/run.lock, which records its owner as
// one JSON line. The kernel drops an flock with its process, even after
// SIGKILL, so a crash never leaves the data dir locked: the next run takes
// the lock over and reports the dead owner the file still names
// (Lock.TookOver). Read-only commands (events, runs, ledger verify,
// serve) take no lock. On platforms without flock the lock records its
// owner but excludes no one.
package dirlock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/multiverse-orchestrator/multiverse/internal/flock"
)

// FileName is the lock file's name in the data dir.
const FileName = "run.lock"

// ErrBusy is matched by *BusyError: another process holds the data dir.
var ErrBusy = errors.New("dirlock: data dir in use")

// Owner is what the lock file records of its holder.
type Owner struct {
	PID int `json:"pid"`
	// Command says what holds the data dir ("orchestrator run, task
	// procure-team-plan"); never a secret.
	Command string    `json:"command,omitempty"`
	Since   time.Time `json:"since"`
}

func (o Owner) String() string {
	var parts []string
	if o.Command != "" {
		parts = append(parts, o.Command)
	}
	if !o.Since.IsZero() {
		parts = append(parts, "since "+o.Since.Local().Format(time.DateTime))
	}
	s := fmt.Sprintf("PID %d", o.PID)
	if o.PID <= 0 {
		s = "another process"
	}
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

// BusyError is Acquire's error while another process holds the lock.
type BusyError struct {
	Dir string
	// Owner is what the lock file says of the holder; its PID is 0 when
	// the holder has not written it yet.
	Owner Owner
}

// Error reads "data dir D is in use by PID N (orchestrator run, task T,
// since 2026-11-25 12:00:00)".
func (e *BusyError) Error() string {
	return fmt.Sprintf("data dir %s is in use by %s: one run per data dir at a time (wait for it, pass --wait-lock DURATION, or give another --data-dir)", e.Dir, e.Owner)
}

// Is matches ErrBusy.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// Lock is a held data dir lock.
type Lock struct {
	f    *os.File
	path string
	// TookOver is the owner a stale lock file named (a process that ended
	// without releasing it: killed, crashed), nil when there was none.
	TookOver *Owner
}

// Path is the lock file's path.
func (l *Lock) Path() string { return l.path }

// Acquire takes the lock of data dir dir (which must exist) for this
// process, command saying what takes it. It does not wait: while another
// process (or another Lock of this one) holds it, it fails with a
// *BusyError matching ErrBusy naming the holder. A lock file left by a
// process that is gone is taken over and its owner reported in
// Lock.TookOver.
func Acquire(ctx context.Context, dir, command string) (*Lock, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("dirlock: %s: %w", dir, err)
	}
	path := filepath.Join(dir, FileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NONBLOCK, 0o644) // a FIFO in its place never blocks
	if err != nil {
		return nil, fmt.Errorf("dirlock: %w", err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", path)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("dirlock: %w", err)
	}
	busy, err := flock.TryLock(f)
	if errors.Is(err, flock.ErrUnsupported) {
		// No flock here: the lock file records its owner only.
		busy, err = false, nil
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("dirlock: %s: %w", path, err)
	}
	prev, hadOwner := readOwner(f)
	if busy {
		f.Close()
		return nil, &BusyError{Dir: dir, Owner: prev}
	}
	l := &Lock{f: f, path: path}
	if hadOwner && prev.PID != os.Getpid() {
		l.TookOver = &prev
	}
	if err := writeOwner(f, Owner{PID: os.Getpid(), Command: command, Since: time.Now().UTC().Truncate(time.Second)}); err != nil {
		l.Release()
		return nil, fmt.Errorf("dirlock: %s: recording the owner: %w", path, err)
	}
	return l, nil
}

// Wait is Acquire that waits while the data dir is busy: it calls busy
// once with the holder (to say it waits), then polls until it gets the
// lock or ctx ends (its error wrapped with the last *BusyError).
func Wait(ctx context.Context, dir, command string, busy func(*BusyError)) (*Lock, error) {
	told := false
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		l, err := Acquire(ctx, dir, command)
		var be *BusyError
		if !errors.As(err, &be) {
			return l, err
		}
		if !told && busy != nil {
			busy(be)
			told = true
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (stopped waiting: %w)", be, ctx.Err())
		case <-t.C:
		}
	}
}

// pollInterval is how often Wait tries the lock.
const pollInterval = 200 * time.Millisecond

// Release gives the lock up and clears the owner from the file. It is
// idempotent.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	f := l.f
	l.f = nil
	f.Truncate(0) // best effort: leave no owner behind
	uerr := flock.Unlock(f)
	cerr := f.Close()
	if uerr != nil && !errors.Is(uerr, flock.ErrUnsupported) {
		return fmt.Errorf("dirlock: unlock %s: %w", l.path, uerr)
	}
	if cerr != nil {
		return fmt.Errorf("dirlock: unlock %s: %w", l.path, cerr)
	}
	return nil
}

func writeOwner(f *os.File, o Owner) error {
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt(append(b, '\n'), 0); err != nil {
		return err
	}
	return f.Sync()
}

// readOwner returns the owner the lock file records; ok is false when it
// records none (empty: released, or not written yet).
func readOwner(f *os.File) (o Owner, ok bool) {
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 4096))
	if err != nil || len(strings.TrimSpace(string(b))) == 0 {
		return Owner{}, false
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return Owner{}, true // unreadable: an owner of unknown PID
	}
	return o, true
}
