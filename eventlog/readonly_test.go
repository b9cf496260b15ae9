package eventlog_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/internal/rotest"
)

// TestOpenReadOnlyRefusesWhatIsNoLog checks that a reader never creates a
// schema: a missing, empty, foreign or schema-less file is an error naming
// the file, and the file is left exactly as it was.
func TestOpenReadOnlyRefusesWhatIsNoLog(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		content []byte // nil: no file
		setup   func(t *testing.T, path string)
		want    error
	}{
		{name: "missing", want: fs.ErrNotExist},
		{name: "empty", content: []byte{}, want: eventlog.ErrNotLog},
		{name: "not sqlite", content: bytes.Repeat([]byte("not a database "), 100), want: eventlog.ErrNotLog},
		{name: "sqlite without the schema", setup: func(t *testing.T, path string) {
			mustExec(t, rawDB(t, path), `CREATE TABLE other (x)`)
		}, want: eventlog.ErrNotLog},
		{name: "newer schema", setup: func(t *testing.T, path string) {
			l, err := eventlog.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			l.Close()
			mustExec(t, rawDB(t, path), `PRAGMA user_version = 9`)
		}, want: eventlog.ErrSchemaVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "events.db")
			if tc.content != nil {
				if err := os.WriteFile(path, tc.content, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.setup != nil {
				tc.setup(t, path)
			}
			before, _ := os.ReadFile(path)
			l, err := eventlog.OpenReadOnly(ctx, path)
			if !errors.Is(err, tc.want) {
				t.Fatalf("OpenReadOnly = %v, want %v", err, tc.want)
			}
			if l != nil {
				t.Fatal("OpenReadOnly returned a log with an error")
			}
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(path)) {
				t.Fatalf("error %v does not name %s", err, path)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Fatalf("OpenReadOnly changed the file: %d bytes before, %d after", len(before), len(after))
			}
		})
	}
}

// TestOpenReadOnlyCopy reads, lists and verifies a log in a directory that
// nobody may write (a read-only copy of a data dir), and refuses appends.
func TestOpenReadOnlyCopy(t *testing.T) {
	ctx := context.Background()
	l, path := openLog(t)
	for i := range 5 {
		mustAppend(t, l, ev("r", eventlog.KindNav, i, fmt.Sprintf(`{"i":%d}`, i)))
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(path)
	rotest.Freeze(t, dir)
	if rotest.Writable(dir) {
		t.Fatalf("%s is still writable", dir)
	}
	ro, err := eventlog.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatalf("OpenReadOnly on a read-only copy: %v", err)
	}
	defer ro.Close()
	requireDense(t, mustEvents(t, ro, "r", eventlog.Query{}), "r", 5)
	if err := ro.Verify(ctx, "r"); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	runs, err := ro.Runs(ctx)
	if err != nil || len(runs) != 1 || runs[0].Events != 5 {
		t.Fatalf("Runs = %+v, %v", runs, err)
	}
	if _, err := ro.Append(ctx, ev("r", eventlog.KindNav, 9, "")); !errors.Is(err, eventlog.ErrReadOnly) {
		t.Fatalf("Append on a read-only log = %v, want ErrReadOnly", err)
	}
}
