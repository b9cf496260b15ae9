package eventlog_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// t0 is the base wall time of test events.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 100_000_000, time.UTC)

func openLog(t testing.TB) (*eventlog.Log, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "events.db")
	l, err := eventlog.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l, path
}

// rawDB opens the log file directly, for tampering.
func rawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t testing.TB, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func mustAppend(t testing.TB, l *eventlog.Log, e eventlog.Event) eventlog.Event {
	t.Helper()
	out, err := l.Append(context.Background(), e)
	if err != nil {
		t.Fatalf("Append(%+v): %v", e, err)
	}
	return out
}

func mustEvents(t testing.TB, l *eventlog.Log, runID string, q eventlog.Query) []eventlog.Event {
	t.Helper()
	es, err := l.Events(context.Background(), runID, q)
	if err != nil {
		t.Fatalf("Events(%s, %+v): %v", runID, q, err)
	}
	return es
}

// ev builds a simple event of run at t0 + i seconds.
func ev(run, kind string, i int, payload string) eventlog.Event {
	e := eventlog.Event{RunID: run, Kind: kind, Time: t0.Add(time.Duration(i) * time.Second)}
	if payload != "" {
		e.Payload = []byte(payload)
	}
	return e
}

// requireCorruption asserts err is a *CorruptionError with the given reason
// at the given seq.
func requireCorruption(t testing.TB, err error, reason string, seq int64) *eventlog.CorruptionError {
	t.Helper()
	var ce *eventlog.CorruptionError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v, want *CorruptionError(%s at %d)", err, reason, seq)
	}
	if !errors.Is(err, eventlog.ErrCorrupt) {
		t.Fatalf("error %v does not match ErrCorrupt", err)
	}
	if ce.Reason != reason || ce.Seq != seq {
		t.Fatalf("CorruptionError %q at seq %d (%v), want %q at seq %d", ce.Reason, ce.Seq, ce, reason, seq)
	}
	return ce
}

// requireDense asserts es is the complete, verified chain 1..n of run.
func requireDense(t testing.TB, es []eventlog.Event, run string, n int) {
	t.Helper()
	if len(es) != n {
		t.Fatalf("run %s has %d events, want %d", run, len(es), n)
	}
	for i, e := range es {
		if e.Seq != int64(i+1) || e.RunID != run {
			t.Fatalf("event %d of run %s: run %s seq %d", i, run, e.RunID, e.Seq)
		}
	}
	if err := eventlog.VerifyChain(run, es); err != nil {
		t.Fatalf("VerifyChain(%s): %v", run, err)
	}
}
