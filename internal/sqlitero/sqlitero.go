// Package sqlitero opens an existing SQLite file for reading only, so
// audit and listing commands never create, migrate or change a store, and
// also work on a read-only copy of a data dir.
//
// A WAL-mode database normally needs its -shm file, which a reader creates
// next to the database. When that is impossible (a read-only directory or
// file system), Open falls back to SQLite's immutable mode, which reads
// the main file alone; it does so only when there is no -wal file holding
// data that the main file lacks, and otherwise fails naming that file.
package sqlitero

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// ErrEmpty is matched by the error Open returns for a file that has no
// bytes: a store that was truncated or replaced by an empty file.
var ErrEmpty = errors.New("empty file")

// ErrNotDatabase is matched by the error Open returns for a file that is
// not an SQLite database.
var ErrNotDatabase = errors.New("not an SQLite database")

// Open opens the SQLite file at path read-only (SQLite's mode=ro, and
// immutable=1 when the directory cannot hold the -shm file). It fails
// when path does not exist (an error matching fs.ErrNotExist), is a
// directory, is empty (ErrEmpty) or is not an SQLite database
// (ErrNotDatabase). busyTimeoutMS is the go-sqlite3 busy timeout.
func Open(ctx context.Context, path string, busyTimeoutMS int) (*sql.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	switch {
	case err != nil:
		return nil, err
	case st.IsDir():
		return nil, fmt.Errorf("%s is a directory", abs)
	case st.Size() == 0:
		return nil, fmt.Errorf("%w: %s has 0 bytes", ErrEmpty, abs)
	}
	db, err := open(ctx, abs, busyTimeoutMS, false)
	if err == nil {
		return db, nil
	}
	if !cantOpen(err) {
		return nil, err
	}
	// The reader could not create the -shm file: read the main file alone,
	// unless a -wal file may hold committed data it lacks.
	if wal, werr := os.Stat(abs + "-wal"); werr == nil && wal.Size() > 0 {
		return nil, fmt.Errorf("%s: its write-ahead log %s holds data that a reader can see only by writing %s-shm, and the directory is not writable: copy the data dir to a writable place: %w",
			abs, abs+"-wal", abs, err)
	}
	return open(ctx, abs, busyTimeoutMS, true)
}

func open(ctx context.Context, abs string, busyTimeoutMS int, immutable bool) (*sql.DB, error) {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_busy_timeout", fmt.Sprint(busyTimeoutMS))
	q.Set("_query_only", "1")
	if immutable {
		q.Set("immutable", "1")
	}
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(abs)
	db, err := sql.Open("sqlite3", "file:"+esc+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	// Reading the schema touches the file (and, in WAL mode, the -shm).
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
		db.Close()
		var se sqlite3.Error
		if errors.As(err, &se) && se.Code == sqlite3.ErrNotADB {
			return nil, fmt.Errorf("%w: %s: %v", ErrNotDatabase, abs, err)
		}
		return nil, fmt.Errorf("%s: %w", abs, err)
	}
	return db, nil
}

// cantOpen reports whether err is SQLite's "unable to open database file"
// (or a read-only refusal), which a reader meets when it cannot create the
// -shm file of a WAL database.
func cantOpen(err error) bool {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return false
	}
	return se.Code == sqlite3.ErrCantOpen || se.Code == sqlite3.ErrReadonly || se.Code == sqlite3.ErrPerm
}
