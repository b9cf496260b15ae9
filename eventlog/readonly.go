package eventlog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"

	"github.com/multiverse-orchestrator/multiverse/internal/sqlitero"
)

// ErrNotLog is matched by the error [OpenReadOnly] returns for a file that
// exists but holds no event log: empty (0 bytes), not an SQLite database,
// or a database without the event log's schema. For a store a run wrote,
// that means it was truncated or replaced.
var ErrNotLog = errors.New("eventlog: not an event log")

// OpenReadOnly opens an existing event log for reading only: it never
// creates the file, a schema or a migration, and works on a read-only copy
// of a data dir (see internal/sqlitero). Appends fail. A missing file is an
// error matching fs.ErrNotExist; an empty file, one that is not SQLite or
// has no event log schema matches [ErrNotLog]; a newer schema is a
// [*SchemaVersionError]. Every error names the file.
func OpenReadOnly(ctx context.Context, path string) (*Log, error) {
	db, err := sqlitero.Open(ctx, path, busyTimeoutMS)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("eventlog: open %s: %w", path, err)
	case errors.Is(err, sqlitero.ErrEmpty), errors.Is(err, sqlitero.ErrNotDatabase):
		return nil, fmt.Errorf("%w: %s: %v", ErrNotLog, path, err)
	case err != nil:
		return nil, fmt.Errorf("eventlog: open %s read-only: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	if err := checkSchema(ctx, db, path); err != nil {
		db.Close()
		return nil, err
	}
	return &Log{db: db, path: path, readOnly: true}, nil
}

// checkSchema accepts a database at schemaVersion with the event log's
// tables, without changing it.
func checkSchema(ctx context.Context, db *sql.DB, path string) error {
	var v int64
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("eventlog: open %s: read schema version: %w", path, err)
	}
	switch {
	case v > schemaVersion || v < 0:
		return &SchemaVersionError{Path: path, Found: v, Supported: schemaVersion}
	case v == 0:
		return fmt.Errorf("%w: %s has no event log schema (schema version 0)", ErrNotLog, path)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('events', 'runs')`).Scan(&n); err != nil {
		return fmt.Errorf("eventlog: open %s: read schema: %w", path, err)
	}
	if n != 2 {
		return fmt.Errorf("%w: %s lacks the events or runs table", ErrNotLog, path)
	}
	return nil
}
