package eventlog

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	_ "github.com/mattn/go-sqlite3" // registers the "sqlite3" driver
)

// busyTimeoutMS bounds how long an appender waits for another process's
// write transaction before failing with "database is locked".
const busyTimeoutMS = 10_000

// Log is an event log stored in one SQLite file. Its methods are safe for
// concurrent use; appends from one Log are serialized in process, appends
// from several Logs or processes on the same file are serialized by SQLite.
type Log struct {
	db       *sql.DB
	path     string
	readOnly bool // opened by OpenReadOnly: appends are refused

	mu     sync.Mutex // serializes appends
	closed atomic.Bool
}

// Open opens (creating if needed) the event log at path, a file system
// path. The directory must exist. The database is put in WAL mode with
// synchronous=FULL and a busy timeout, and the schema is created or checked:
// a file written by a newer schema returns a [*SchemaVersionError] (matching
// [ErrSchemaVersion]) and is left untouched. A file that is not an SQLite
// database, or a file system where WAL cannot be enabled, is an error.
func Open(ctx context.Context, path string) (*Log, error) {
	if path == "" || path == ":memory:" {
		return nil, fmt.Errorf("eventlog: open %q: need a file path", path)
	}
	db, err := sql.Open("sqlite3", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("eventlog: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	l := &Log{db: db, path: path}
	if err := l.init(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return l, nil
}

func (l *Log) init(ctx context.Context) error {
	var mode string
	if err := l.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return fmt.Errorf("eventlog: open %s: %w", l.path, err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("eventlog: open %s: journal mode is %q, WAL is required", l.path, mode)
	}
	return migrate(ctx, l.db, l.path)
}

// dsn builds a go-sqlite3 URI for a file path. Characters that would end or
// escape the path part of an SQLite URI are percent-encoded.
func dsn(path string) string {
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	if strings.HasPrefix(esc, "//") { // would read as an authority
		esc = "/" + strings.TrimLeft(esc, "/")
	}
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "FULL")
	q.Set("_busy_timeout", fmt.Sprint(busyTimeoutMS))
	q.Set("_txlock", "immediate")
	return "file:" + esc + "?" + q.Encode()
}

// Path returns the file the log was opened from.
func (l *Log) Path() string { return l.path }

// Close closes the database. Appends after Close return [ErrClosed]; Close
// is idempotent.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed.Swap(true) {
		return nil
	}
	if err := l.db.Close(); err != nil {
		return fmt.Errorf("eventlog: close %s: %w", l.path, err)
	}
	return nil
}

// checkOpen returns ErrClosed, wrapped for op, once Close was called.
func (l *Log) checkOpen(op string) error {
	if l.closed.Load() {
		return fmt.Errorf("eventlog: %s: %w", op, ErrClosed)
	}
	return nil
}

// checkWritable refuses appends to a log opened read-only.
func (l *Log) checkWritable() error {
	if l.readOnly {
		return fmt.Errorf("eventlog: append to %s: %w", l.path, ErrReadOnly)
	}
	return nil
}
