package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// eventsFixture loads testdata/events/run.jsonl (events of a real run, a
// few written by hand) into the event log of a new data dir.
func eventsFixture(t *testing.T) (dir, runID string) {
	t.Helper()
	f, err := os.Open("testdata/events/run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	es, err := eventlog.ReadJSONL(f)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	ctx := context.Background()
	l, err := eventlog.Open(ctx, filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, e := range es {
		if _, err := l.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	return dir, es[0].RunID
}

// golden compares got with testdata/NAME, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n--- got\n%s--- want\n%s", p, got, want)
	}
}

// TestEventsGolden: events prints one line per event in sequence order,
// the typed payloads field by field (a score as J=… progress=…), any other
// payload flattened; --branch adds the explanation of the branch.
func TestEventsGolden(t *testing.T) {
	dir, runID := eventsFixture(t)
	tests := []struct {
		name string
		args []string
	}{
		{"events/run.golden", []string{"events", strings.ToLower(runID[:8])}},
		{"events/branch.golden", []string{"events", runID, "--branch", "…AD42Z0H3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(context.Background(), append(tc.args, "--data-dir", dir), &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			golden(t, tc.name, out.String())
			var last int64
			for i, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
				if line == "" {
					break // the explanation of --branch follows
				}
				if strings.Contains(line, "{7}") || strings.Contains(line, "score=") {
					t.Errorf("line %d shows the score as a count: %s", i+1, line)
				}
				f := strings.Fields(line)
				seq, err := strconv.ParseInt(strings.TrimPrefix(f[1], "#"), 10, 64)
				if err != nil || seq <= last {
					t.Errorf("line %d out of sequence order (seq %d after %d): %s", i+1, seq, last, line)
				}
				last = seq
			}
		})
	}
}

// TestEventsJSONUnchanged: --json still writes the stored events as JSON
// Lines, every one of them, as a chain that verifies.
func TestEventsJSONUnchanged(t *testing.T) {
	dir, runID := eventsFixture(t)
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"events", runID, "--json", "--data-dir", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	es, err := eventlog.ReadJSONL(&out)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 31 {
		t.Fatalf("--json wrote %d events, the fixture holds 31", len(es))
	}
	if err := eventlog.VerifyChain(runID, es); err != nil {
		t.Fatalf("--json output does not verify: %v", err)
	}
}

// FuzzEventLine: any stored payload of any kind renders as one line.
func FuzzEventLine(f *testing.F) {
	f.Add(eventlog.KindMetricUpdate, []byte(`{"score":{"j":0.41,"progress":0.5},"flips":[{"predicate":"a","to":true}]}`))
	f.Add(eventlog.KindBranchPruned, []byte(`{"rule":"dead_end","detail":{"url":"x\ny"}}`))
	f.Add(eventlog.KindWinner, []byte(`{"ranking":[{"branch_id":"b","j":1}]}`))
	f.Add("future_kind", []byte(`[{"a":1},"two\u2028"]`))
	f.Add(eventlog.KindNav, []byte(`not json`))
	f.Fuzz(func(t *testing.T, kind string, data []byte) {
		e := eventlog.Event{Seq: 1, Kind: kind, BranchID: "01BRANCH\nID", Payload: data}
		if line := eventLine(e, 13); strings.ContainsAny(line, "\n\r") {
			t.Fatalf("eventLine holds a line break: %q", line)
		}
	})
}

// TestModelEventLines: a model's question and answer read as one line
// each, the fingerprint cut to its prefix.
func TestModelEventLines(t *testing.T) {
	fp := strings.Repeat("ab", 32)
	mk := func(kind string, p any) eventlog.Event {
		raw, _ := json.Marshal(p)
		return eventlog.Event{Seq: 7, Kind: kind, BranchID: "01M8AKZH7XAZ267P2DS4CXREVT", Payload: raw}
	}
	req := eventLine(mk(eventlog.KindLLMRequest, payload.LLMRequest{Step: 2, Fingerprint: fp, Model: "qwen2.5", PromptVersion: "4f1c0a", Mode: "replay", Menu: 9}), 12)
	resp := eventLine(mk(eventlog.KindLLMResponse, payload.LLMResponse{Step: 2, Fingerprint: fp, Ranking: []int{3, 0}, PromptTokens: 410,
		CompletionTokens: 12, Cost: 0.0042, LatencyMS: 35, FromCassette: true}), 12)
	fell := eventLine(mk(eventlog.KindLLMResponse, payload.LLMResponse{Step: 3, Fingerprint: fp, Fallback: "heuristic order: llm: endpoint answered 503"}), 12)
	for _, c := range []struct{ line, want string }{
		{req, "step=2 fingerprint=abababababab model=qwen2.5 prompt=4f1c0a menu=9 mode=replay"},
		{resp, "step=2 fingerprint=abababababab ranking=3,0 prompt_tokens=410 completion_tokens=12 cost=0.0042 latency_ms=35 from_cassette=true"},
		{fell, `step=3 fingerprint=abababababab fallback="heuristic order: llm: endpoint answered 503"`},
	} {
		if !strings.HasSuffix(c.line, c.want) {
			t.Errorf("line %q\nwant it to end %q", c.line, c.want)
		}
	}
}
