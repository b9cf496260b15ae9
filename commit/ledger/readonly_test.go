package ledger_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/internal/rotest"
)

// anchorOf is an event-log anchor for tests.
func anchorOf(run string, seq int64) *ledger.Anchor {
	return &ledger.Anchor{RunID: run, Seq: seq, Hash: strings.Repeat("ab", 32)}
}

// TestOpenReadOnlyRefusesWhatIsNoLedger: a reader never creates a schema.
// A missing, empty, foreign or schema-less file is an error naming the
// file, and the file is left exactly as it was.
func TestOpenReadOnlyRefusesWhatIsNoLedger(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		content []byte // nil: no file
		setup   func(t *testing.T, path string)
		want    error
	}{
		{name: "missing", want: fs.ErrNotExist},
		{name: "empty", content: []byte{}, want: ledger.ErrNotLedger},
		{name: "not sqlite", content: bytes.Repeat([]byte("not a ledger "), 100), want: ledger.ErrNotLedger},
		{name: "sqlite without the schema", setup: func(t *testing.T, path string) {
			_, err := rawDB(t, path).Exec(`CREATE TABLE other (x)`)
			requireNoErr(t, err)
		}, want: ledger.ErrNotLedger},
		{name: "newer schema", setup: func(t *testing.T, path string) {
			requireNoErr(t, openLedger(t, path).Close())
			_, err := rawDB(t, path).Exec(`PRAGMA user_version = 9`)
			requireNoErr(t, err)
		}, want: ledger.ErrSchemaVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := ledgerPath(t)
			if tc.content != nil {
				requireNoErr(t, os.WriteFile(path, tc.content, 0o644))
			}
			if tc.setup != nil {
				tc.setup(t, path)
			}
			before, _ := os.ReadFile(path)
			l, err := ledger.OpenReadOnly(ctx, path)
			requireIs(t, err, tc.want)
			if l != nil {
				t.Fatal("OpenReadOnly returned a ledger with an error")
			}
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error %v does not name %s", err, path)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Fatalf("OpenReadOnly changed the file: %d bytes before, %d after", len(before), len(after))
			}
		})
	}
}

// TestOpenReadOnlyCopy lists, shows and verifies a ledger in a directory
// nobody may write, and refuses every write.
func TestOpenReadOnlyCopy(t *testing.T) {
	ctx := context.Background()
	path := ledgerPath(t)
	l := openLedger(t, path)
	in := purchase(t, "team", 10)
	_, _, err := l.Intent(ctx, in)
	requireNoErr(t, err)
	_, err = l.Finalize(ctx, in.Key, ledger.Outcome{State: ledger.StateCommitted, OrderID: "ORD-1", Anchor: anchorOf(in.RunID, 7)})
	requireNoErr(t, err)
	requireNoErr(t, l.Close())
	dir := filepath.Dir(path)
	rotest.Freeze(t, dir)
	if rotest.Writable(dir) {
		t.Fatalf("%s is still writable", dir)
	}
	ro, err := ledger.OpenReadOnly(ctx, path)
	requireNoErr(t, err)
	defer ro.Close()
	es, err := ro.List(ctx, ledger.Filter{})
	requireNoErr(t, err)
	requireEqual(t, len(es), 1, "entries")
	requireEqual(t, *es[0].Anchor, *anchorOf(in.RunID, 7), "anchor")
	requireNoErr(t, ro.Verify(ctx, nil))
	_, _, err = ro.Intent(ctx, purchase(t, "team", 11))
	requireIs(t, err, ledger.ErrReadOnly)
	_, err = ro.Lock(ctx)
	requireIs(t, err, ledger.ErrReadOnly)
}

// TestSchemaVersion1 reads a version 1 file (no anchor column) read-only
// without migrating it, and migrates it when opened for writing; both
// verify.
func TestSchemaVersion1(t *testing.T) {
	ctx := context.Background()
	path := ledgerPath(t)
	l := openLedger(t, path)
	in := purchase(t, "team", 10)
	_, _, err := l.Intent(ctx, in)
	requireNoErr(t, err)
	_, err = l.Finalize(ctx, in.Key, ledger.Outcome{State: ledger.StateFailed, Error: "refused"})
	requireNoErr(t, err)
	requireNoErr(t, l.Close())
	db := rawDB(t, path)
	_, err = db.Exec(`ALTER TABLE entries DROP COLUMN anchor; PRAGMA user_version = 1`)
	requireNoErr(t, err)
	requireNoErr(t, db.Close())

	ro, err := ledger.OpenReadOnly(ctx, path)
	requireNoErr(t, err)
	requireNoErr(t, ro.Verify(ctx, nil))
	e, err := ro.Get(ctx, in.Key)
	requireNoErr(t, err)
	requireEqual(t, e.State, ledger.StateFailed, "state")
	requireNoErr(t, ro.Close())
	var version int
	requireNoErr(t, rawDB(t, path).QueryRow(`PRAGMA user_version`).Scan(&version))
	requireEqual(t, version, 1, "schema version after a read-only open")

	rw := openLedger(t, path)
	requireNoErr(t, rw.Verify(ctx, nil))
	_, err = rw.Reopen(ctx, in.Key, "01JRUN0000000000000000000B")
	requireNoErr(t, err)
	_, err = rw.Finalize(ctx, in.Key, ledger.Outcome{State: ledger.StateCommitted, OrderID: "ORD-2", Anchor: anchorOf("01JRUN0000000000000000000B", 3)})
	requireNoErr(t, err)
	requireNoErr(t, rw.Verify(ctx, nil))
	requireNoErr(t, rawDB(t, path).QueryRow(`PRAGMA user_version`).Scan(&version))
	requireEqual(t, version, ledger.SchemaVersion, "schema version after a writing open")
}

// TestAnchor records the event log's head with an outcome: it is kept in
// the row and in the finalize transition's snapshot, cleared by Reopen,
// checked for form, and an edit of the column is named by Verify.
func TestAnchor(t *testing.T) {
	ctx := context.Background()
	path := ledgerPath(t)
	l := openLedger(t, path)
	in := purchase(t, "team", 10)
	_, _, err := l.Intent(ctx, in)
	requireNoErr(t, err)
	for _, bad := range []*ledger.Anchor{
		{RunID: "", Seq: 1, Hash: strings.Repeat("a", 64)},
		{RunID: "r", Seq: 0, Hash: strings.Repeat("a", 64)},
		{RunID: "r", Seq: 1, Hash: "ABC"},
	} {
		_, err := l.Finalize(ctx, in.Key, ledger.Outcome{State: ledger.StateFailed, Anchor: bad})
		requireIs(t, err, ledger.ErrInvalid)
	}
	e, err := l.Finalize(ctx, in.Key, ledger.Outcome{State: ledger.StateFailed, Error: "x", Anchor: anchorOf(in.RunID, 5)})
	requireNoErr(t, err)
	requireEqual(t, *e.Anchor, *anchorOf(in.RunID, 5), "anchor returned")
	hist, err := l.History(ctx, in.Key)
	requireNoErr(t, err)
	a, err := hist[len(hist)-1].Anchor()
	requireNoErr(t, err)
	requireEqual(t, *a, *anchorOf(in.RunID, 5), "anchor in the snapshot")
	if a, _ := hist[0].Anchor(); a != nil {
		t.Fatalf("intent transition has anchor %+v", a)
	}
	e, err = l.Reopen(ctx, in.Key, "01JRUN0000000000000000000B")
	requireNoErr(t, err)
	if e.Anchor != nil {
		t.Fatalf("Reopen kept anchor %+v", e.Anchor)
	}
	e, err = l.Finalize(ctx, in.Key, ledger.Outcome{State: ledger.StateCommitted, OrderID: "ORD-1", Anchor: anchorOf("01JRUN0000000000000000000B", 9)})
	requireNoErr(t, err)
	requireNoErr(t, l.Verify(ctx, nil))

	_, err = rawDB(t, path).Exec(`UPDATE entries SET anchor = ? WHERE id = ?`, `{"hash":"`+strings.Repeat("cd", 32)+`","run_id":"01JRUN0000000000000000000B","seq":9}`, e.ID)
	requireNoErr(t, err)
	var ve *ledger.VerifyError
	err = l.Verify(ctx, nil)
	if !errors.As(err, &ve) || ve.Field != "anchor" || ve.ID != e.ID {
		t.Fatalf("Verify after editing the anchor = %v, want a VerifyError on entries %s anchor", err, e.ID)
	}
}
