package eventlog_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

const (
	traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	spanID  = "00f067aa0ba902b7"
	parent  = "b7ad6b7169203331"
)

func TestAppendRoundTrip(t *testing.T) {
	ctx := context.Background()
	l, _ := openLog(t)
	in := eventlog.Event{
		RunID:        "run-1",
		Seq:          99,           // ignored
		PrevHash:     "caller set", // ignored
		Hash:         "caller set", // ignored
		Time:         time.Date(2026, 5, 6, 9, 8, 7, 123456789, time.FixedZone("CEST", 2*3600)),
		VirtualTime:  1500,
		Kind:         eventlog.KindActionEnd,
		BranchID:     "01HZX3K5V7Q8R9S0T1U2V3W4X5",
		TraceID:      traceID,
		SpanID:       spanID,
		ParentSpanID: parent,
		Payload:      []byte(` { "status" : "ok", "a": [1, 2.50, {"z":null,"b":true}] } `),
		Artifacts:    []string{"sha256:" + strings.Repeat("ab", 32)},
	}
	got := mustAppend(t, l, in)
	want := in
	want.Seq = 1
	want.PrevHash = eventlog.Genesis("run-1")
	want.Time = in.Time.UTC()
	want.Payload = []byte(`{"a":[1,2.50,{"b":true,"z":null}],"status":"ok"}`)
	want.Hash = got.Hash
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Append returned\n%+v\nwant\n%+v", got, want)
	}
	if len(got.Hash) != 64 {
		t.Fatalf("hash %q is not hex sha256", got.Hash)
	}
	stored := mustEvents(t, l, "run-1", eventlog.Query{})
	if len(stored) != 1 || !reflect.DeepEqual(stored[0], got) {
		t.Fatalf("Events returned\n%+v\nwant\n%+v", stored, got)
	}
	if err := l.Verify(ctx, "run-1"); err != nil {
		t.Fatalf("Verify: %v", err)
	}

	second := mustAppend(t, l, ev("run-1", eventlog.KindRunEnd, 1, ""))
	if second.Seq != 2 || second.PrevHash != got.Hash || second.Payload != nil || second.Artifacts != nil {
		t.Fatalf("second event %+v", second)
	}
	seq, hash, err := l.Head(ctx, "run-1")
	if err != nil || seq != 2 || hash != second.Hash {
		t.Fatalf("Head = %d, %s, %v; want 2, %s", seq, hash, err, second.Hash)
	}
}

func TestAppendDefaultsTimeToNow(t *testing.T) {
	l, _ := openLog(t)
	before := time.Now()
	e := mustAppend(t, l, eventlog.Event{RunID: "r", Kind: eventlog.KindRunStart})
	after := time.Now()
	if e.Time.Before(before.Add(-time.Millisecond)) || e.Time.After(after.Add(time.Millisecond)) || e.Time.Location() != time.UTC {
		t.Fatalf("Time = %v, want UTC now in [%v, %v]", e.Time, before, after)
	}
	if got := mustEvents(t, l, "r", eventlog.Query{}); !got[0].Time.Equal(e.Time) {
		t.Fatalf("stored time %v, want %v (ns precision)", got[0].Time, e.Time)
	}
}

func TestAppendRejectsInvalid(t *testing.T) {
	ctx := context.Background()
	valid := func(mod func(*eventlog.Event)) eventlog.Event {
		e := ev("r", eventlog.KindNav, 0, `{"url":"https://x.example/"}`)
		mod(&e)
		return e
	}
	for _, tc := range []struct {
		name string
		e    eventlog.Event
	}{
		{"empty run", valid(func(e *eventlog.Event) { e.RunID = "" })},
		{"empty kind", valid(func(e *eventlog.Event) { e.Kind = "" })},
		{"invalid utf8 run", valid(func(e *eventlog.Event) { e.RunID = "r\xff" })},
		{"invalid utf8 branch", valid(func(e *eventlog.Event) { e.BranchID = "\xc3" })},
		{"short trace id", valid(func(e *eventlog.Event) { e.TraceID = traceID[:31] })},
		{"uppercase trace id", valid(func(e *eventlog.Event) { e.TraceID = strings.ToUpper(traceID) })},
		{"zero trace id", valid(func(e *eventlog.Event) { e.TraceID = strings.Repeat("0", 32) })},
		{"bad span id", valid(func(e *eventlog.Event) { e.SpanID = "xyz" })},
		{"bad parent span id", valid(func(e *eventlog.Event) { e.ParentSpanID = traceID })},
		{"negative virtual time", valid(func(e *eventlog.Event) { e.VirtualTime = -1 })},
		{"year 10000", valid(func(e *eventlog.Event) { e.Time = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) })},
		{"payload not json", valid(func(e *eventlog.Event) { e.Payload = []byte(`{"a":`) })},
		{"payload two values", valid(func(e *eventlog.Event) { e.Payload = []byte(`{} {}`) })},
		{"empty artifact", valid(func(e *eventlog.Event) { e.Artifacts = []string{""} })},
		{"too large", valid(func(e *eventlog.Event) {
			e.Payload = []byte(`"` + strings.Repeat("x", eventlog.MaxEventBytes) + `"`)
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, _ := openLog(t)
			if _, err := l.Append(ctx, tc.e); !errors.Is(err, eventlog.ErrInvalidEvent) {
				t.Fatalf("Append error %v, want ErrInvalidEvent", err)
			}
			if _, err := l.Events(ctx, tc.e.RunID, eventlog.Query{}); !errors.Is(err, eventlog.ErrRunNotFound) {
				t.Fatalf("after a rejected append, Events error = %v, want ErrRunNotFound", err)
			}
		})
	}
}

func TestAppendBatchInterleavedRuns(t *testing.T) {
	ctx := context.Background()
	l, _ := openLog(t)
	runs := []string{"run-a", "run-b", "run-c"}
	want := map[string]int{}
	for batch := range 5 {
		var es []eventlog.Event
		for i := range 7 + batch {
			run := runs[(i*7+batch)%len(runs)]
			want[run]++
			es = append(es, ev(run, eventlog.KindMetricUpdate, i, fmt.Sprintf(`{"batch":%d,"i":%d}`, batch, i)))
		}
		out, err := l.AppendBatch(ctx, es)
		if err != nil {
			t.Fatalf("AppendBatch: %v", err)
		}
		for i := range out {
			if out[i].RunID != es[i].RunID || out[i].Kind != es[i].Kind {
				t.Fatalf("batch order not kept at %d", i)
			}
		}
		// single appends between batches continue the same chains
		mustAppend(t, l, ev("run-b", eventlog.KindBudgetDebit, 99, `{"steps":1}`))
		want["run-b"]++
	}
	for _, run := range runs {
		es := mustEvents(t, l, run, eventlog.Query{})
		requireDense(t, es, run, want[run])
		if err := l.Verify(ctx, run); err != nil {
			t.Fatalf("Verify(%s): %v", run, err)
		}
	}
	if out, err := l.AppendBatch(ctx, nil); out != nil || err != nil {
		t.Fatalf("empty batch = %v, %v", out, err)
	}
}

func TestAppendBatchIsAtomic(t *testing.T) {
	ctx := context.Background()
	l, _ := openLog(t)
	first := mustAppend(t, l, ev("r", eventlog.KindRunStart, 0, ""))
	_, err := l.AppendBatch(ctx, []eventlog.Event{
		ev("r", eventlog.KindNav, 1, ""),
		ev("other", eventlog.KindRunStart, 1, ""),
		ev("r", eventlog.KindNav, 2, `not json`),
	})
	if !errors.Is(err, eventlog.ErrInvalidEvent) || !strings.Contains(err.Error(), "event 2 of batch") {
		t.Fatalf("AppendBatch error %v, want ErrInvalidEvent naming event 2", err)
	}
	// A failure inside the transaction (too large once sequenced) rolls back too.
	big := ev("r", eventlog.KindNav, 3, `"`+strings.Repeat("y", eventlog.MaxEventBytes-100)+`"`)
	if _, err := l.AppendBatch(ctx, []eventlog.Event{ev("r", eventlog.KindNav, 1, ""), big}); !errors.Is(err, eventlog.ErrInvalidEvent) {
		t.Fatalf("AppendBatch with oversized event: %v", err)
	}
	seq, hash, err := l.Head(ctx, "r")
	if err != nil || seq != 1 || hash != first.Hash {
		t.Fatalf("Head after failed batches = %d, %s, %v; want 1, %s", seq, hash, err, first.Hash)
	}
	if _, err := l.Events(ctx, "other", eventlog.Query{}); !errors.Is(err, eventlog.ErrRunNotFound) {
		t.Fatalf("run from failed batch exists: %v", err)
	}
	if err := l.Verify(ctx, "r"); err != nil {
		t.Fatal(err)
	}
}

func TestEventsFilters(t *testing.T) {
	l, _ := openLog(t)
	const run = "run-f"
	kinds := []string{eventlog.KindActionStart, eventlog.KindActionEnd, eventlog.KindNav}
	for i := range 30 {
		e := ev(run, kinds[i%3], i, fmt.Sprintf(`{"i":%d}`, i))
		e.BranchID = []string{"b1", "b2"}[i%2]
		mustAppend(t, l, e)
	}
	mustAppend(t, l, ev("noise", eventlog.KindNav, 0, ""))

	seqs := func(es []eventlog.Event) string {
		var s []string
		for _, e := range es {
			s = append(s, fmt.Sprint(e.Seq))
		}
		return strings.Join(s, ",")
	}
	for _, tc := range []struct {
		name string
		q    eventlog.Query
		want string
	}{
		{"all", eventlog.Query{}, "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30"},
		{"branch", eventlog.Query{BranchID: "b1"}, "1,3,5,7,9,11,13,15,17,19,21,23,25,27,29"},
		{"kind", eventlog.Query{Kinds: []string{eventlog.KindNav}}, "3,6,9,12,15,18,21,24,27,30"},
		{"kinds", eventlog.Query{Kinds: []string{eventlog.KindNav, eventlog.KindActionStart}, Limit: 5}, "1,3,4,6,7"},
		{"after", eventlog.Query{AfterSeq: 26}, "27,28,29,30"},
		{"limit", eventlog.Query{Limit: 3}, "1,2,3"},
		{"everything", eventlog.Query{BranchID: "b2", Kinds: []string{eventlog.KindNav}, AfterSeq: 6, Limit: 2}, "12,18"},
		{"no match", eventlog.Query{BranchID: "b3"}, ""},
		{"after end", eventlog.Query{AfterSeq: 30}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es := mustEvents(t, l, run, tc.q)
			if es == nil {
				t.Fatal("Events returned nil for an existing run")
			}
			if got := seqs(es); got != tc.want {
				t.Fatalf("seqs %s, want %s", got, tc.want)
			}
		})
	}
	ctx := context.Background()
	if _, err := l.Events(ctx, "missing", eventlog.Query{}); !errors.Is(err, eventlog.ErrRunNotFound) {
		t.Fatalf("Events of missing run: %v", err)
	}
	if _, err := l.Events(ctx, run, eventlog.Query{Limit: -1}); err == nil {
		t.Fatal("negative limit accepted")
	}
}

func TestRunsAndHead(t *testing.T) {
	ctx := context.Background()
	l, _ := openLog(t)
	if runs, err := l.Runs(ctx); err != nil || len(runs) != 0 {
		t.Fatalf("Runs of empty log = %v, %v", runs, err)
	}
	seq, hash, err := l.Head(ctx, "nobody")
	if err != nil || seq != 0 || hash != eventlog.Genesis("nobody") {
		t.Fatalf("Head of missing run = %d, %s, %v", seq, hash, err)
	}
	// old starts first and ends last; new starts an hour later.
	mustAppend(t, l, ev("old", eventlog.KindRunStart, 0, ""))
	mustAppend(t, l, ev("new", eventlog.KindRunStart, 3600, ""))
	mustAppend(t, l, ev("tie-a", eventlog.KindRunStart, 1800, ""))
	mustAppend(t, l, ev("tie-b", eventlog.KindRunStart, 1800, ""))
	mustAppend(t, l, ev("new", eventlog.KindBranchFork, 3601, ""))
	mustAppend(t, l, ev("old", eventlog.KindCommitEnd, 7000, ""))
	last := mustAppend(t, l, ev("old", eventlog.KindRunEnd, 7200, ""))

	runs, err := l.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []eventlog.RunInfo{
		{RunID: "new", Events: 2, First: t0.Add(3600 * time.Second), Last: t0.Add(3601 * time.Second), LastKind: eventlog.KindBranchFork},
		{RunID: "tie-b", Events: 1, First: t0.Add(1800 * time.Second), Last: t0.Add(1800 * time.Second), LastKind: eventlog.KindRunStart},
		{RunID: "tie-a", Events: 1, First: t0.Add(1800 * time.Second), Last: t0.Add(1800 * time.Second), LastKind: eventlog.KindRunStart},
		{RunID: "old", Events: 3, First: t0, Last: t0.Add(7200 * time.Second), LastKind: eventlog.KindRunEnd},
	}
	if !reflect.DeepEqual(runs, want) {
		t.Fatalf("Runs =\n%+v\nwant\n%+v", runs, want)
	}
	seq, hash, err = l.Head(ctx, "old")
	if err != nil || seq != 3 || hash != last.Hash {
		t.Fatalf("Head(old) = %d, %s, %v", seq, hash, err)
	}
}

func TestReopenContinuesChain(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "events.db")
	for round := range 3 {
		l, err := eventlog.Open(ctx, path)
		if err != nil {
			t.Fatalf("Open round %d: %v", round, err)
		}
		for i := range 4 {
			mustAppend(t, l, ev("r", eventlog.KindNav, round*4+i, ""))
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	l, err := eventlog.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	requireDense(t, mustEvents(t, l, "r", eventlog.Query{}), "r", 12)
	if err := l.Verify(ctx, "r"); err != nil {
		t.Fatal(err)
	}
}

func TestClosed(t *testing.T) {
	ctx := context.Background()
	l, _ := openLog(t)
	mustAppend(t, l, ev("r", eventlog.KindRunStart, 0, ""))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	_, appendErr := l.Append(ctx, ev("r", eventlog.KindRunEnd, 1, ""))
	_, eventsErr := l.Events(ctx, "r", eventlog.Query{})
	_, runsErr := l.Runs(ctx)
	_, _, headErr := l.Head(ctx, "r")
	for name, err := range map[string]error{
		"Append": appendErr, "Events": eventsErr, "Runs": runsErr, "Head": headErr, "Verify": l.Verify(ctx, "r"),
	} {
		if !errors.Is(err, eventlog.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	l, path := openLog(t)
	mustAppend(t, l, ev("r", eventlog.KindRunStart, 0, ""))
	l.Close()
	mustExec(t, rawDB(t, path), "PRAGMA user_version = 7")

	_, err := eventlog.Open(ctx, path)
	var sv *eventlog.SchemaVersionError
	if !errors.As(err, &sv) || !errors.Is(err, eventlog.ErrSchemaVersion) {
		t.Fatalf("Open of a version-7 file: %v, want *SchemaVersionError", err)
	}
	if sv.Found != 7 || sv.Supported != 1 || sv.Path != path {
		t.Fatalf("SchemaVersionError = %+v", sv)
	}
	if !strings.Contains(err.Error(), "newer") {
		t.Fatalf("error %q does not say the file is newer", err)
	}
	// The file was not touched.
	var v int
	if err := rawDB(t, path).QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != 7 {
		t.Fatalf("user_version after refusal = %d, %v", v, err)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	notDB := filepath.Join(dir, "not.db")
	if err := os.WriteFile(notDB, bytes.Repeat([]byte("this is not sqlite "), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	odd := filepath.Join(dir, "what?#%.db")
	for _, tc := range []struct {
		name, path string
		ok         bool
	}{
		{"empty", "", false},
		{"memory", ":memory:", false},
		{"not sqlite", notDB, false},
		{"missing dir", filepath.Join(dir, "missing", "events.db"), false},
		{"odd characters", odd, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := eventlog.Open(ctx, tc.path)
			if tc.ok != (err == nil) {
				t.Fatalf("Open(%q) error = %v, want ok=%v", tc.path, err, tc.ok)
			}
			if err == nil {
				l.Close()
			}
		})
	}
	if _, err := os.Stat(odd); err != nil {
		t.Fatalf("a path with URI characters was not used verbatim: %v", err)
	}
}
