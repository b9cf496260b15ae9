package ledger_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
)

func TestOpenSchemaVersion(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		version int
		want    error
	}{
		{"current", ledger.SchemaVersion, nil},
		{"next", ledger.SchemaVersion + 1, ledger.ErrSchemaVersion},
		{"far future", 99, ledger.ErrSchemaVersion},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := ledgerPath(t)
			l, err := ledger.Open(ctx, path)
			requireNoErr(t, err)
			_, _, err = l.Intent(ctx, purchase(t, "team", 1))
			requireNoErr(t, err)
			requireNoErr(t, l.Close())

			db := rawDB(t, path)
			_, err = db.Exec("PRAGMA user_version = " + strconv.Itoa(tc.version))
			requireNoErr(t, err)
			requireNoErr(t, db.Close())

			l, err = ledger.Open(ctx, path)
			if tc.want != nil {
				requireIs(t, err, tc.want)
				if l != nil {
					t.Fatalf("Open returned a ledger with error %v", err)
				}
				return
			}
			requireNoErr(t, err)
			defer l.Close()
			es, err := l.List(ctx, ledger.Filter{})
			requireNoErr(t, err)
			requireEqual(t, len(es), 1, "entries kept")
		})
	}
}

func TestOpenFileSettings(t *testing.T) {
	ctx := context.Background()
	// A path that needs escaping in a SQLite URI.
	path := filepath.Join(t.TempDir(), "data dir?#%", "ledger.db")
	requireNoErr(t, os.MkdirAll(filepath.Dir(path), 0o755))
	l := openLedger(t, path)
	requireEqual(t, l.Path(), path, "path")
	_, _, err := l.Intent(ctx, purchase(t, "team", 1))
	requireNoErr(t, err)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("ledger file not at %s: %v", path, err)
	}
	var mode string
	var version int
	db := rawDB(t, path)
	requireNoErr(t, db.QueryRow("PRAGMA journal_mode").Scan(&mode))
	requireNoErr(t, db.QueryRow("PRAGMA user_version").Scan(&version))
	requireEqual(t, mode, "wal", "journal mode")
	requireEqual(t, version, ledger.SchemaVersion, "user_version")
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	garbage := filepath.Join(t.TempDir(), "ledger.db")
	requireNoErr(t, os.WriteFile(garbage, []byte("this is not a database, it is a shopping list\n"), 0o644))
	tests := []struct {
		name string
		path string
		opts []ledger.Option
		want error // nil: any error
	}{
		{"not a database", garbage, nil, nil},
		{"missing directory", filepath.Join(t.TempDir(), "nope", "ledger.db"), nil, nil},
		{"empty path", "", nil, ledger.ErrInvalid},
		{"nil clock", ledgerPath(t), []ledger.Option{ledger.WithClock(nil)}, ledger.ErrInvalid},
		{"busy timeout too small", ledgerPath(t), []ledger.Option{ledger.WithBusyTimeout(time.Microsecond)}, ledger.ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := ledger.Open(ctx, tc.path, tc.opts...)
			if err == nil {
				l.Close()
				t.Fatalf("Open succeeded")
			}
			if tc.want != nil {
				requireIs(t, err, tc.want)
			}
			if errors.Is(err, ledger.ErrSchemaVersion) {
				t.Fatalf("Open error %v claims a schema version", err)
			}
		})
	}
}
