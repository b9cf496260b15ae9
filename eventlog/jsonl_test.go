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

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

func TestJSONLRoundTrip(t *testing.T) {
	l, _ := openLog(t)
	stored, err := l.AppendBatch(context.Background(), goldenEvents())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := eventlog.WriteJSONL(&buf, stored); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != len(stored) {
		t.Fatalf("%d lines for %d events", n, len(stored))
	}
	got, err := eventlog.ReadJSONL(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, stored) {
		t.Fatalf("round trip changed events:\n%+v\nwant\n%+v", got, stored)
	}
	if err := eventlog.VerifyChain(goldenRun, got); err != nil {
		t.Fatal(err)
	}
	if es, err := eventlog.ReadJSONL(strings.NewReader("")); err != nil || len(es) != 0 {
		t.Fatalf("ReadJSONL(empty) = %v, %v", es, err)
	}
}

func TestReadJSONLTolerates(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join("testdata", "golden.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := eventlog.ReadJSONL(bytes.NewReader(golden))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, in string }{
		{"crlf", strings.ReplaceAll(string(golden), "\n", "\r\n")},
		{"blank lines", "\n" + strings.ReplaceAll(string(golden), "\n", "\n  \n")},
		{"no final newline", strings.TrimSuffix(string(golden), "\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := eventlog.ReadJSONL(strings.NewReader(tc.in))
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("ReadJSONL = %d events, %v", len(got), err)
			}
		})
	}
}

func TestReadJSONLErrors(t *testing.T) {
	good := `{"run_id":"r","seq":1,"time":"2026-01-02T03:04:05Z","virtual_time_ms":0,"kind":"nav","prev_hash":"","hash":""}`
	long := `{"run_id":"r","seq":1,"time":"2026-01-02T03:04:05Z","kind":"nav","payload":"` + strings.Repeat("x", eventlog.MaxEventBytes) + `","prev_hash":"","hash":""}`
	for _, tc := range []struct {
		name string
		in   string
		line int
		msg  string
	}{
		{"malformed", good + "\n" + `{"run_id":`, 2, "unexpected EOF"},
		{"unknown field", good + "\n\n" + strings.Replace(good, `"kind"`, `"color":"red","kind"`, 1), 3, `unknown field "color"`},
		{"wrong type", strings.Replace(good, `"seq":1`, `"seq":"one"`, 1), 1, "seq"},
		{"bad time", strings.Replace(good, `2026-01-02T03:04:05Z`, `yesterday`, 1), 1, "yesterday"},
		{"not an object", good + "\n[]", 2, "not a JSON object"},
		{"null line", "null", 1, "not a JSON object"},
		{"two objects", good + " " + good, 1, "after the event object"},
		{"invalid payload", strings.Replace(good, `"prev_hash"`, `"payload":{x},"prev_hash"`, 1), 1, "invalid character"},
		{"too long", good + "\n" + good + "\n" + long + "\n" + good, 3, "longer than"},
		{"exactly one byte too long", good + "\n" + `"` + strings.Repeat("x", eventlog.MaxEventBytes-1) + `"`, 2, "limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es, err := eventlog.ReadJSONL(strings.NewReader(tc.in))
			var le *eventlog.LineError
			if !errors.As(err, &le) {
				t.Fatalf("ReadJSONL = %d events, %v; want *LineError", len(es), err)
			}
			if le.Line != tc.line || !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), fmt.Sprintf("line %d:", tc.line)) {
				t.Fatalf("error %q, want line %d mentioning %q", err, tc.line, tc.msg)
			}
		})
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteJSONLError(t *testing.T) {
	if err := eventlog.WriteJSONL(failWriter{}, goldenEvents()); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("WriteJSONL to a failing writer = %v", err)
	}
}

func FuzzReadJSONL(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed fixtures: %v", err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("\n\r\n{}\n"))
	f.Add([]byte(`{"payload":null,"artifacts":[],"time":"2026-01-02T03:04:05+02:00"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		es, err := eventlog.ReadJSONL(bytes.NewReader(in))
		if err != nil {
			var le *eventlog.LineError
			if !errors.As(err, &le) || le.Line < 1 {
				t.Fatalf("error %v is not a *LineError with a line number", err)
			}
			return
		}
		// Whatever was accepted must survive a write/read round trip, and a
		// chain that verified must still verify.
		var buf bytes.Buffer
		if err := eventlog.WriteJSONL(&buf, es); err != nil {
			return // e.g. a time outside years 0-9999 cannot be re-encoded
		}
		again, err := eventlog.ReadJSONL(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("re-reading written events: %v\n%s", err, buf.Bytes())
		}
		var buf2 bytes.Buffer
		if err := eventlog.WriteJSONL(&buf2, again); err != nil || !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
			t.Fatalf("write/read/write not stable: %v\n%s\n%s", err, buf.Bytes(), buf2.Bytes())
		}
		if len(es) > 0 {
			run := es[0].RunID
			if e1, e2 := eventlog.VerifyChain(run, es), eventlog.VerifyChain(run, again); e1 == nil && e2 != nil {
				t.Fatalf("a valid chain broke in a round trip: %v", e2)
			}
		}
	})
}

// TestMaxEventBytesBoundary checks that the largest event Append accepts is
// exactly the longest line ReadJSONL accepts.
func TestMaxEventBytesBoundary(t *testing.T) {
	ctx := context.Background()
	lineLen := func(e eventlog.Event) int {
		var buf bytes.Buffer
		if err := eventlog.WriteJSONL(&buf, []eventlog.Event{e}); err != nil {
			t.Fatal(err)
		}
		return buf.Len() - 1 // without the newline
	}
	withPayload := func(n int) eventlog.Event {
		return ev("big", eventlog.KindDOMSnapshot, 0, `"`+strings.Repeat("x", n)+`"`)
	}

	probe, _ := openLog(t)
	base := lineLen(mustAppend(t, probe, withPayload(1)))
	fits := withPayload(1 + eventlog.MaxEventBytes - base)

	l, _ := openLog(t)
	stored, err := l.Append(ctx, fits)
	if err != nil {
		t.Fatalf("Append of an event whose line is exactly MaxEventBytes: %v", err)
	}
	if n := lineLen(stored); n != eventlog.MaxEventBytes {
		t.Fatalf("line is %d bytes, want %d", n, eventlog.MaxEventBytes)
	}
	var buf bytes.Buffer
	if err := eventlog.WriteJSONL(&buf, []eventlog.Event{stored}); err != nil {
		t.Fatal(err)
	}
	if es, err := eventlog.ReadJSONL(&buf); err != nil || len(es) != 1 || es[0].Hash != stored.Hash {
		t.Fatalf("ReadJSONL of the largest event: %d events, %v", len(es), err)
	}
	l2, _ := openLog(t)
	if _, err := l2.Append(ctx, withPayload(2+eventlog.MaxEventBytes-base)); !errors.Is(err, eventlog.ErrInvalidEvent) {
		t.Fatalf("Append of an event one byte over the limit: %v", err)
	}
}
