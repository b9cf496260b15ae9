package ledger

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/multiverse-orchestrator/multiverse/internal/flock"
)

// fileLock is a held writer lock: an open lock file with an exclusive flock.
type fileLock struct {
	f *os.File
}

// LockPath returns the path of the writer lock file: "<ledger path>.lock".
func (l *Ledger) LockPath() string { return l.path + ".lock" }

// Lock takes the exclusive single-writer lock of this ledger: an flock on
// "<path>.lock", held by this process until unlock is called, the Ledger is
// closed or the process exits (the kernel drops it even after SIGKILL). The
// holder's pid is written into the lock file.
//
// Lock does not wait: while another holder has it (another process, another
// *Ledger on the same file, or an earlier Lock through this one; it is not
// reentrant) it fails with a *LockError matching ErrLocked that names the
// holder's pid. The lock is advisory: it orders committers, the ledger's own
// writes do not require it. unlock is idempotent.
func (l *Ledger) Lock(ctx context.Context) (unlock func() error, err error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("ledger: lock: %w", err)
	}
	if l.readOnly {
		return nil, fmt.Errorf("%w: %s", ErrReadOnly, l.path)
	}
	path := l.LockPath()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("ledger: lock %s: %w", path, err)
	}
	busy, err := flock.TryLock(f)
	if err != nil || busy {
		pid := 0
		if busy {
			pid = readPID(f)
		}
		f.Close()
		if busy {
			return nil, &LockError{Path: path, PID: pid}
		}
		return nil, fmt.Errorf("ledger: lock %s: %w", path, err)
	}
	if err := writePID(f); err != nil {
		flock.Unlock(f) // reporting the write error
		f.Close()
		return nil, fmt.Errorf("ledger: lock %s: record pid: %w", path, err)
	}
	fl := &fileLock{f: f}
	l.mu.Lock()
	l.locks[fl] = struct{}{}
	l.mu.Unlock()
	var (
		once sync.Once
		uerr error
	)
	return func() error {
		once.Do(func() { uerr = l.release(fl) })
		return uerr
	}, nil
}

// release drops a lock taken through l, once.
func (l *Ledger) release(fl *fileLock) error {
	l.mu.Lock()
	_, held := l.locks[fl]
	delete(l.locks, fl)
	l.mu.Unlock()
	if !held {
		return nil
	}
	fl.f.Truncate(0) // best effort: leave no stale pid behind
	uerr := flock.Unlock(fl.f)
	cerr := fl.f.Close()
	if uerr != nil {
		return fmt.Errorf("ledger: unlock %s: %w", fl.f.Name(), uerr)
	}
	if cerr != nil {
		return fmt.Errorf("ledger: unlock %s: %w", fl.f.Name(), cerr)
	}
	return nil
}

func writePID(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
		return err
	}
	return f.Sync()
}

// readPID returns the pid recorded in the lock file, or 0 if there is none
// (yet).
func readPID(f *os.File) int {
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 32))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
