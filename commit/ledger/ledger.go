package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/multiverse-orchestrator/multiverse/internal/sqlitero"

	_ "github.com/mattn/go-sqlite3" // registers the "sqlite3" driver
)

// Ledger is an open commit ledger file. It is safe for concurrent use by
// multiple goroutines; writes from one Ledger are serialized in-process and,
// across handles and processes, by SQLite's write lock (BEGIN IMMEDIATE).
type Ledger struct {
	db       *sql.DB
	path     string
	now      func() time.Time
	sel      string // the entries query for this file's schema version
	readOnly bool   // opened by OpenReadOnly

	sem     chan struct{} // one write transaction per handle at a time
	entropy io.Reader     // monotonic ULID entropy; used only while holding sem

	mu    sync.Mutex
	locks map[*fileLock]struct{} // writer locks taken through this handle
}

// Open opens (creating if needed) the ledger at path, normally
// "<data dir>/ledger.db". Every connection runs in WAL mode with
// synchronous=FULL, foreign keys on and a busy timeout, so a write that
// returned nil is on disk. Open creates the schema in a new file and fails
// with ErrSchemaVersion when the file was written by a newer schema. It does
// not take the writer lock; see Lock.
func Open(ctx context.Context, path string, opts ...Option) (*Ledger, error) {
	o, abs, err := openArgs(path, opts)
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Set("_busy_timeout", strconv.FormatInt(o.busyTimeout.Milliseconds(), 10))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "FULL")
	q.Set("_foreign_keys", "on")
	q.Set("_txlock", "immediate")
	dsn := (&url.URL{Scheme: "file", OmitHost: true, Path: abs, RawQuery: q.Encode()}).String()
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("ledger: open %s: %w", abs, err)
	}
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(4)
	l := &Ledger{
		db:      db,
		path:    abs,
		now:     o.now,
		sel:     entrySelect,
		sem:     make(chan struct{}, 1),
		entropy: ulid.Monotonic(o.entropy, 0),
		locks:   make(map[*fileLock]struct{}),
	}
	if err := l.init(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return l, nil
}

func (l *Ledger) init(ctx context.Context) error {
	var mode string
	if err := l.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return fmt.Errorf("ledger: open %s: %w", l.path, err)
	}
	if mode != "wal" {
		return fmt.Errorf("ledger: open %s: journal_mode is %q, want wal", l.path, mode)
	}
	return migrate(ctx, l.db, l.path)
}

// Path returns the absolute path of the ledger file.
func (l *Ledger) Path() string { return l.path }

// Close releases writer locks taken through this handle and closes the
// database. Calls after Close fail.
func (l *Ledger) Close() error {
	l.mu.Lock()
	locks := make([]*fileLock, 0, len(l.locks))
	for fl := range l.locks {
		locks = append(locks, fl)
	}
	l.mu.Unlock()
	var errs []error
	for _, fl := range locks {
		errs = append(errs, l.release(fl))
	}
	if err := l.db.Close(); err != nil {
		errs = append(errs, fmt.Errorf("ledger: close %s: %w", l.path, err))
	}
	return errors.Join(errs...)
}

// openArgs applies opts and makes path absolute, for Open and OpenReadOnly.
func openArgs(path string, opts []Option) (options, string, error) {
	o := defaultOptions()
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return o, "", err
		}
	}
	if path == "" {
		return o, "", fmt.Errorf("%w: empty ledger path", ErrInvalid)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return o, "", fmt.Errorf("ledger: open %s: %w", path, err)
	}
	return o, abs, nil
}

// OpenReadOnly opens an existing ledger for reading and verifying only: it
// never creates the file, a schema or a migration, and works on a
// read-only copy of a data dir (SQLite's mode=ro, or immutable=1 where
// the -shm file cannot be created). Writing methods and Lock fail with
// ErrReadOnly. A missing file is an error matching fs.ErrNotExist; an
// empty file, one that is not SQLite or has no ledger schema matches
// ErrNotLedger; a newer schema ErrSchemaVersion. Every error names the
// file. Options apply as for Open.
func OpenReadOnly(ctx context.Context, path string, opts ...Option) (*Ledger, error) {
	o, abs, err := openArgs(path, opts)
	if err != nil {
		return nil, err
	}
	db, err := sqlitero.Open(ctx, abs, int(o.busyTimeout.Milliseconds()))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("ledger: open %s: %w", abs, err)
	case errors.Is(err, sqlitero.ErrEmpty), errors.Is(err, sqlitero.ErrNotDatabase):
		return nil, fmt.Errorf("%w: %s: %v", ErrNotLedger, abs, err)
	case err != nil:
		return nil, fmt.Errorf("ledger: open %s read-only: %w", abs, err)
	}
	db.SetMaxOpenConns(8)
	sel, err := checkSchema(ctx, db, abs)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &Ledger{db: db, path: abs, now: o.now, sel: sel, readOnly: true,
		sem: make(chan struct{}, 1), locks: make(map[*fileLock]struct{})}, nil
}

// write runs fn inside one BEGIN IMMEDIATE transaction and commits it. now is
// read after the SQLite write lock is held, so transition times follow the
// chain order across handles (as far as the clock does).
func (l *Ledger) write(ctx context.Context, fn func(tx *sql.Tx, now time.Time) error) error {
	if l.readOnly {
		return fmt.Errorf("%w: %s", ErrReadOnly, l.path)
	}
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("ledger: %w", ctx.Err())
	}
	defer func() { <-l.sem }()
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("ledger: begin write: %w", err)
	}
	defer tx.Rollback() // no-op after Commit
	now, err := parseTime(formatTime(l.now()))
	if err != nil {
		return err
	}
	if err := fn(tx, now); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("ledger: commit write: %w", err)
	}
	return nil
}

// newID returns a ULID for a new entry. Callers hold l.sem.
func (l *Ledger) newID(now time.Time) (string, error) {
	id, err := ulid.New(ulid.Timestamp(now), l.entropy)
	if err != nil {
		return "", fmt.Errorf("ledger: new id: %w", err)
	}
	return id.String(), nil
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// getEntry reads the entry whose column col ("key" or "id") equals val,
// with sel (entrySelect, or the ledger's sel for reads).
func getEntry(ctx context.Context, q querier, sel, col, val string) (Entry, error) {
	e, err := scanEntry(q.QueryRowContext(ctx, sel+" WHERE "+col+" = ?", val))
	if errors.Is(err, sql.ErrNoRows) {
		return Entry{}, fmt.Errorf("%w: %s %q", ErrNotFound, col, val)
	}
	if err != nil {
		return Entry{}, fmt.Errorf("ledger: get %s %q: %w", col, val, err)
	}
	return e, nil
}
