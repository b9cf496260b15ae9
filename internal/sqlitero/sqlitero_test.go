package sqlitero_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/internal/rotest"
	"github.com/multiverse-orchestrator/multiverse/internal/sqlitero"
)

func mustExec(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.Exec(q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestOpen reads a WAL database read-only: refusing writes, in a writable
// directory and in one nobody may write, and refusing a copy whose -wal
// holds data a reader could only see by writing its -shm.
func TestOpen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, "x.db")
	w, err := sql.Open("sqlite3", "file:"+p+"?_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, w, "CREATE TABLE t (a)")
	mustExec(t, w, "INSERT INTO t VALUES (1)")
	w.Close()

	count := func(t *testing.T, path string) int {
		t.Helper()
		db, err := sqlitero.Open(ctx, path, 1000)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		defer db.Close()
		if _, err := db.Exec("INSERT INTO t VALUES (2)"); err == nil {
			t.Fatal("a read-only handle wrote")
		}
		var n int
		if err := db.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(t, p); n != 1 {
		t.Fatalf("%d rows, want 1", n)
	}

	// A live writer holds a row in its -wal only: a copy taken without the
	// -shm, in a directory nobody may write, cannot show it.
	w, err = sql.Open("sqlite3", "file:"+p+"?_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	mustExec(t, w, "PRAGMA wal_autocheckpoint = 0")
	mustExec(t, w, "INSERT INTO t VALUES (3)")
	if n := count(t, p); n != 2 {
		t.Fatalf("beside a live writer: %d rows, want 2", n)
	}
	for _, tc := range []struct {
		name  string
		files []string
		want  string // error substring, or "" for 1 row read
	}{
		{"main file only", []string{"x.db"}, ""},
		{"main file and its -wal", []string{"x.db", "x.db-wal"}, "x.db-wal holds data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cp := t.TempDir()
			for _, f := range tc.files {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(cp, f), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			rotest.Freeze(t, cp)
			db, err := sqlitero.Open(ctx, filepath.Join(cp, "x.db"), 1000)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Open = %v, want an error with %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			db.Close()
			if n := count(t, filepath.Join(cp, "x.db")); n != 1 {
				t.Fatalf("%d rows, want 1", n)
			}
		})
	}

	empty := filepath.Join(dir, "empty.db")
	os.WriteFile(empty, nil, 0o644)
	if _, err := sqlitero.Open(ctx, empty, 1000); !errors.Is(err, sqlitero.ErrEmpty) {
		t.Fatalf("Open of an empty file = %v, want ErrEmpty", err)
	}
}
