package eventlog_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestGenesis(t *testing.T) {
	for _, run := range []string{"", "01HZX3K5V7Q8R9S0T1U2V3W4X5"} {
		if got, want := eventlog.Genesis(run), sha("multiverse/eventlog/v1\x00"+run); got != want {
			t.Fatalf("Genesis(%q) = %s, want %s", run, got, want)
		}
	}
	// Pinned: a change here breaks every stored chain.
	if got := eventlog.Genesis("01HZX3K5V7Q8R9S0T1U2V3W4X5"); got != genesisPinned {
		t.Fatalf("Genesis changed: %s", got)
	}
}

const genesisPinned = "5415a10aeb29637422a638c9922dbdad0f849585e06f3e0538a4c4ca506167b6"

// TestHashFormat pins the documented hash definition by recomputing it from
// a hand-written canonical form.
func TestHashFormat(t *testing.T) {
	l, _ := openLog(t)
	const run = "01HZX3K5V7Q8R9S0T1U2V3W4X5"
	first := mustAppend(t, l, eventlog.Event{
		RunID: run, Kind: eventlog.KindRunStart,
		Time: time.Date(2026, 1, 2, 4, 4, 5, 120_000_000, time.FixedZone("CET", 3600)),
	})
	wantFirst := `{"run_id":"01HZX3K5V7Q8R9S0T1U2V3W4X5","seq":1,"time":"2026-01-02T03:04:05.12Z","virtual_time_ms":0,"kind":"run_start","prev_hash":"` +
		eventlog.Genesis(run) + `","hash":""}`
	if got, want := first.Hash, sha(eventlog.Genesis(run)+"\n"+wantFirst); got != want {
		t.Fatalf("hash of first event = %s, want %s over %s", got, want, wantFirst)
	}
	second := mustAppend(t, l, eventlog.Event{
		RunID: run, Kind: eventlog.KindNav, Time: time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC), VirtualTime: 250,
		BranchID: "b<1>", TraceID: traceID, SpanID: spanID, ParentSpanID: parent,
		Payload:   []byte(`{"url":"https://x.example/?a=1&b=<2>","n":1.50,"line":"a\u2028b","z":{"y":[],"x":{}}}`),
		Artifacts: []string{"d2", "d1"},
	})
	wantSecond := `{"run_id":"01HZX3K5V7Q8R9S0T1U2V3W4X5","seq":2,"time":"2026-01-02T03:04:06Z","virtual_time_ms":250,"kind":"nav",` +
		`"branch_id":"b<1>","trace_id":"` + traceID + `","span_id":"` + spanID + `","parent_span_id":"` + parent + `",` +
		`"payload":{"line":"a\u2028b","n":1.50,"url":"https://x.example/?a=1&b=<2>","z":{"x":{},"y":[]}},` +
		`"artifacts":["d2","d1"],"prev_hash":"` + first.Hash + `","hash":""}`
	if got, want := second.Hash, sha(first.Hash+"\n"+wantSecond); got != want {
		t.Fatalf("hash of second event = %s, want %s over %s", got, want, wantSecond)
	}
}

func TestCanonicalPayload(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		bad            bool
	}{
		{name: "empty", in: "", want: ""},
		{name: "whitespace", in: " \n\t", want: ""},
		{name: "null", in: " null ", want: ""},
		{name: "sorted keys", in: `{"b":1,"a":2,"A":3,"é":4,"aa":5}`, want: `{"A":3,"a":2,"aa":5,"b":1,"é":4}`},
		{name: "nested and spaced", in: "{ \"z\" : [ 1 , {\"d\":null, \"c\":false} ] ,\n\"y\":{} }", want: `{"y":{},"z":[1,{"c":false,"d":null}]}`},
		{name: "numbers kept as written", in: `[1.0, 1e3, -0, 12345678901234567890123, 0.1]`, want: `[1.0,1e3,-0,12345678901234567890123,0.1]`},
		{name: "no html escaping", in: `{"h":"<a href=\"x\">&</a>"}`, want: `{"h":"<a href=\"x\">&</a>"}`},
		{name: "unicode unescaped", in: `"caf\u00e9 \u2603"`, want: `"café ☃"`},
		{name: "line separators escaped", in: "\"a\u2028b\"", want: `"a\u2028b"`},
		{name: "duplicate keys last wins", in: `{"a":1,"a":2}`, want: `{"a":2}`},
		{name: "scalar", in: `"x"`, want: `"x"`},
		{name: "truncated", in: `{"a":`, bad: true},
		{name: "two values", in: `1 2`, bad: true},
		{name: "trailing garbage", in: `{}x`, bad: true},
		{name: "not json", in: `hello`, bad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := eventlog.CanonicalPayload([]byte(tc.in))
			if tc.bad {
				if !errors.Is(err, eventlog.ErrInvalidEvent) {
					t.Fatalf("CanonicalPayload(%q) = %s, %v; want ErrInvalidEvent", tc.in, got, err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("CanonicalPayload(%q) = %s, %v; want %s", tc.in, got, err, tc.want)
			}
			if tc.want == "" && got != nil {
				t.Fatalf("absent payload returned as %q, want nil", got)
			}
		})
	}
}

func FuzzCanonicalPayload(f *testing.F) {
	for _, s := range []string{``, `null`, `{"b":1,"a":[1.0,"x",{"d":null}]}`, `"<&>"`, `1e400`, `[]`, `{"a":1,"a":2}`, "\"\xff\"", `{"a":`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := eventlog.CanonicalPayload(in)
		if err != nil {
			if !errors.Is(err, eventlog.ErrInvalidEvent) {
				t.Fatalf("error %v does not match ErrInvalidEvent", err)
			}
			if json.Valid(in) && !bytes.Equal(bytes.TrimSpace(in), []byte("null")) {
				t.Fatalf("rejected valid JSON %q: %v", in, err)
			}
			return
		}
		if got == nil {
			return
		}
		if !json.Valid(got) {
			t.Fatalf("canonical form %q of %q is not valid JSON", got, in)
		}
		again, err := eventlog.CanonicalPayload(got)
		if err != nil || !bytes.Equal(again, got) {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", in, got, again, err)
		}
		var a, b any
		if json.Unmarshal(in, &a) == nil && json.Unmarshal(got, &b) == nil {
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if !bytes.Equal(ja, jb) {
				t.Fatalf("canonical form changed the value: %q -> %q", in, got)
			}
		}
	})
}

const goldenRun = "01HZX3K5V7Q8R9S0T1U2V3W4X5"

// goldenEvents is the input of testdata/golden.jsonl: one run touching
// every field of the format.
func goldenEvents() []eventlog.Event {
	at := func(sec, nsec int) time.Time { return time.Date(2026, 1, 2, 3, 4, sec, nsec, time.UTC) }
	const b1 = "01HZX3K6000000000000000001"
	return []eventlog.Event{
		{RunID: goldenRun, Kind: eventlog.KindRunStart, Time: at(5, 100_000_000), TraceID: traceID, SpanID: spanID,
			Payload: []byte(`{"task_digest":"sha256:` + strings.Repeat("1f", 32) + `","seed":42,"budgets":{"wall_ms":60000,"steps":100}}`)},
		{RunID: goldenRun, Kind: eventlog.KindBranchFork, Time: at(5, 200_000_000), BranchID: b1, TraceID: traceID, SpanID: parent, ParentSpanID: spanID,
			Payload: []byte(`{"parent_id":"","depth":1,"plan_digest":"` + strings.Repeat("2e", 32) + `"}`)},
		{RunID: goldenRun, Kind: eventlog.KindActionStart, Time: at(5, 300_000_000), VirtualTime: 1000, BranchID: b1,
			Payload: []byte(`{"action":"click","target":{"testid":"buy","text":"Buy <Team> & save"}}`)},
		{RunID: goldenRun, Kind: eventlog.KindNav, Time: at(6, 0), VirtualTime: 1250, BranchID: b1,
			Payload: []byte(`{"url":"https://vendor.example/pricing?plan=team&seats=10","title":"Pricing — Team"}`)},
		{RunID: goldenRun, Kind: eventlog.KindDOMSnapshot, Time: at(6, 1), VirtualTime: 1250, BranchID: b1,
			Payload:   []byte(`{"dom_hash":"` + strings.Repeat("3d", 32) + `","ax_hash":"` + strings.Repeat("4c", 32) + `"}`),
			Artifacts: []string{"sha256:" + strings.Repeat("3d", 32), "sha256:" + strings.Repeat("4c", 32)}},
		{RunID: goldenRun, Kind: eventlog.KindNet, Time: at(6, 500_000_000), VirtualTime: 1300, BranchID: b1,
			Payload: []byte(`{"method":"POST","url":"https://vendor.example/api/quote","status":201,"amount":1.50,"big":12345678901234567890}`)},
		{RunID: goldenRun, Kind: eventlog.KindActionEnd, Time: at(7, 0), VirtualTime: 1400, BranchID: b1,
			Payload: []byte(`{"status":"ok","duration_ms":12}`)},
		{RunID: goldenRun, Kind: eventlog.KindRunEnd, Time: at(7, 123_456_789),
			Payload: []byte(`{"outcome":"committed"}`)},
	}
}

// TestGoldenLog pins the stored and exported format: appending the golden
// input must reproduce testdata/golden.jsonl byte for byte.
func TestGoldenLog(t *testing.T) {
	l, _ := openLog(t)
	if _, err := l.AppendBatch(context.Background(), goldenEvents()); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := eventlog.WriteJSONL(&buf, mustEvents(t, l, goldenRun, eventlog.Query{})); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "golden.jsonl")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		writeBadFixtures(t, buf.Bytes())
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("exported log differs from %s (run with -update only if the format change is intended):\n%s", path, buf.Bytes())
	}
	es, err := eventlog.ReadJSONL(bytes.NewReader(want))
	if err != nil {
		t.Fatal(err)
	}
	requireDense(t, es, goldenRun, len(goldenEvents()))
}

// TestEventHash: EventHash recomputes every golden event's hash from the
// event alone, returns its stored payload as the canonical one, and
// refuses a payload that is not one JSON value.
func TestEventHash(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "golden.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	es, err := eventlog.ReadJSONL(f)
	if err != nil || len(es) == 0 {
		t.Fatalf("golden chain: %d events, %v", len(es), err)
	}
	for i := range es {
		e := es[i]
		e.Hash = "not looked at"
		h, payload, err := eventlog.EventHash(&e)
		if err != nil || h != es[i].Hash || !bytes.Equal(payload, es[i].Payload) {
			t.Fatalf("event %d: EventHash = %s %s %v, want %s %s", e.Seq, h, payload, err, es[i].Hash, es[i].Payload)
		}
	}
	bad := es[0]
	bad.Payload = json.RawMessage(`{"a":1} {"b":2}`)
	if _, _, err := eventlog.EventHash(&bad); !errors.Is(err, eventlog.ErrInvalidEvent) {
		t.Fatalf("two JSON values: err = %v, want ErrInvalidEvent", err)
	}
}
