package audit_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/audit"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	pl "github.com/multiverse-orchestrator/multiverse/eventlog/payload"
)

var update = flag.Bool("update", false, "rewrite the golden and bad fixtures in eventlog/testdata and commit/ledger/testdata")

const (
	run        = "01HZX3K5V7Q8R9S0T1U2V3W4X7"
	eventsDir  = "../eventlog/testdata"
	ledgerDir  = "../commit/ledger/testdata"
	goldenEvts = "golden-commit.jsonl"
	goldenLedg = "golden-anchored.jsonl"
)

// variant says how a fixture's world departs from the golden one: each
// store stays self-consistent (its own chain verifies), only the other
// store disagrees with it.
type variant struct {
	noAnchor    bool                  // finalize without an anchor
	anchorHash  string                // anchor this hash instead of the head's
	commitEnd   func(p *pl.CommitEnd) // edit the commit_end payload
	garbled     bool                  // commit_end's ledger head is not a number
	cutEventsAt string                // drop the run's events from the first of this kind on
	keepLedger  int                   // keep only the first n transitions (0: all)
}

// world runs a commit through a real event log and a real ledger, the way
// the orchestrator and the committer do, and returns the run's events and
// the ledger's transitions.
func world(t *testing.T, v variant) ([]eventlog.Event, []ledger.Transition) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	log, err := eventlog.Open(ctx, filepath.Join(dir, "events.db"))
	must(t, err)
	defer log.Close()
	tick := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { tick = tick.Add(250 * time.Millisecond); return tick }
	led, err := ledger.Open(ctx, filepath.Join(dir, "ledger.db"), ledger.WithClock(clock), ledger.WithEntropy(zeros{}))
	must(t, err)
	defer led.Close()
	add := func(kind string, p any) eventlog.Event {
		b, err := json.Marshal(p)
		must(t, err)
		e, err := log.Append(ctx, eventlog.Event{RunID: run, Kind: kind, Time: clock(), BranchID: "01HZX3K6000000000000000001", Payload: b})
		must(t, err)
		return e
	}
	add(eventlog.KindRunStart, map[string]any{"seed": 7})
	add(eventlog.KindCommitStart, map[string]any{"phase": "preflight"})
	payload := json.RawMessage(`{"plan":"Team","seats":"10","total":"178.50"}`)
	key, err := ledger.IdempotencyKey("nimbus-demo", "team-plan", payload)
	must(t, err)
	e, _, err := led.Intent(ctx, ledger.Intent{Key: key, RunID: run, BranchID: "01HZX3K6000000000000000001", PlanDigest: strings.Repeat("2e", 32),
		Site: "nimbus-demo", Flow: "team-plan", Payload: payload})
	must(t, err)
	add(eventlog.KindLedger, pl.Ledger{Key: key, State: "intent", EntryID: e.ID})
	_, err = led.Attempt(ctx, key)
	must(t, err)
	add("commit_action", map[string]any{"action": `click button "Place order"`, "status": "ok"})
	out := ledger.Outcome{State: ledger.StateCommitted, OrderID: "ORD-1001", Confirmation: json.RawMessage(`{"order_id":"ORD-1001"}`)}
	if !v.noAnchor {
		seq, hash, err := log.Head(ctx, run)
		must(t, err)
		if v.anchorHash != "" {
			hash = v.anchorHash
		}
		out.Anchor = &ledger.Anchor{RunID: run, Seq: seq, Hash: hash}
	}
	_, err = led.Finalize(ctx, key, out)
	must(t, err)
	add(eventlog.KindLedger, pl.Ledger{Key: key, State: "committed", OrderID: "ORD-1001", EntryID: e.ID})
	hseq, hhash, err := led.Head(ctx)
	must(t, err)
	end := pl.CommitEnd{EntryID: e.ID, State: "committed", OrderID: "ORD-1001", Key: key, LedgerHeadSeq: hseq, LedgerHeadHash: hhash}
	if v.commitEnd != nil {
		v.commitEnd(&end)
	}
	if v.garbled {
		// What a writer that changed a field's type would leave: the
		// audit must say so, not skip the event.
		add(eventlog.KindCommitEnd, map[string]any{"entry_id": e.ID, "state": "committed", "ledger_head_seq": "last"})
	} else {
		add(eventlog.KindCommitEnd, end)
	}
	add(eventlog.KindRunEnd, map[string]any{"outcome": "committed"})

	es, err := log.Events(ctx, run, eventlog.Query{})
	must(t, err)
	if v.cutEventsAt != "" {
		for i, e := range es {
			if e.Kind == v.cutEventsAt {
				es = es[:i]
				break
			}
		}
	}
	ts, err := led.Transitions(ctx)
	must(t, err)
	if v.keepLedger > 0 {
		ts = ts[:v.keepLedger]
	}
	return es, ts
}

// zeros is a reproducible entropy source for entry ULIDs.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// fixtures are the bad fixtures next to the golden pair, and the exact
// problem each must produce. events or ledgerFile names the bad file; the
// other side is golden.
var fixtures = []struct {
	events, ledger string // the bad file, in eventlog/testdata or commit/ledger/testdata
	v              variant
	reason         string
	ledgerSeq      int64 // the ledger transition named
	seq            int64 // the event named
}{
	// The commit phase of the run's events cut off: the ledger's anchor
	// points past the end of the (still valid) chain.
	{events: "bad-commit-tail-cut.jsonl", v: variant{cutEventsAt: eventlog.KindCommitStart}, reason: audit.ReasonAnchorMissing, ledgerSeq: 3, seq: 4},
	// commit_end names an order the ledger does not hold.
	{events: "bad-commit-other-order.jsonl", v: variant{commitEnd: func(p *pl.CommitEnd) { p.OrderID = "ORD-9999" }}, reason: audit.ReasonState, seq: 6},
	// commit_end names a ledger row that does not exist.
	{events: "bad-commit-unknown-row.jsonl", v: variant{commitEnd: func(p *pl.CommitEnd) { p.EntryID = "01HZX3K7000000000000000000" }}, reason: audit.ReasonNoRow, seq: 6},
	// commit_end's payload does not decode into its type: a finding, not
	// a skipped check.
	{events: "bad-commit-garbled.jsonl", v: variant{garbled: true}, reason: audit.ReasonUndecodable, seq: 6},
	// The ledger anchors an event the log holds with another hash.
	{ledger: "bad-anchor-hash.jsonl", v: variant{anchorHash: strings.Repeat("0f", 32)}, reason: audit.ReasonAnchorHash, ledgerSeq: 3, seq: 4},
	// A finalization without an anchor.
	{ledger: "bad-no-anchor.jsonl", v: variant{noAnchor: true}, reason: audit.ReasonNoAnchor, ledgerSeq: 3},
	// The ledger's tail (the finalization) cut off: the ledger event that
	// reported the commit disagrees first (and commit_end's ledger head is
	// gone too).
	{ledger: "bad-ledger-tail-cut.jsonl", v: variant{keepLedger: 2}, reason: audit.ReasonState, seq: 5},
}

// TestGoldenFixtures regenerates the golden pair and every bad fixture
// (deterministically: fixed clock, event times and ULID entropy) and
// checks they equal the files in testdata; -update rewrites them.
func TestGoldenFixtures(t *testing.T) {
	write := func(path string, data []byte) {
		if *update {
			must(t, os.WriteFile(path, data, 0o644))
		}
		want, err := os.ReadFile(path)
		must(t, err)
		if !bytes.Equal(data, want) {
			t.Fatalf("%s differs from what the code produces now (run with -update only if the change is intended):\n%s", path, data)
		}
	}
	es, ts := world(t, variant{})
	write(filepath.Join(eventsDir, goldenEvts), eventsJSONL(t, es))
	write(filepath.Join(ledgerDir, goldenLedg), transitionsJSONL(t, ts))
	for _, f := range fixtures {
		es, ts := world(t, f.v)
		if f.events != "" {
			write(filepath.Join(eventsDir, f.events), eventsJSONL(t, es))
		} else {
			write(filepath.Join(ledgerDir, f.ledger), transitionsJSONL(t, ts))
		}
	}
}

// TestFixtures checks the golden pair agrees and each bad fixture, whose
// own chain still verifies, is named by the exact *MismatchError.
func TestFixtures(t *testing.T) {
	ctx := context.Background()
	goldenEs := readEvents(t, filepath.Join(eventsDir, goldenEvts))
	goldenTs := readTransitions(t, filepath.Join(ledgerDir, goldenLedg))
	if err := audit.Check(ctx, goldenTs, memLog(goldenEs), ""); err != nil {
		t.Fatalf("golden pair: %v", err)
	}
	for _, f := range fixtures {
		t.Run(f.events+f.ledger, func(t *testing.T) {
			es, ts := goldenEs, goldenTs
			if f.events != "" {
				es = readEvents(t, filepath.Join(eventsDir, f.events))
			} else {
				ts = readTransitions(t, filepath.Join(ledgerDir, f.ledger))
			}
			if err := eventlog.VerifyChain(run, es); err != nil {
				t.Fatalf("the fixture's event chain does not verify on its own: %v", err)
			}
			for _, only := range []string{"", run} {
				err := audit.Check(ctx, ts, memLog(es), only)
				var me *audit.MismatchError
				if !errors.As(err, &me) || !errors.Is(err, audit.ErrMismatch) {
					t.Fatalf("Check(only=%q) = %v, want a *MismatchError", only, err)
				}
				if me.Reason != f.reason || me.LedgerSeq != f.ledgerSeq || me.Seq != f.seq || me.RunID != run {
					t.Fatalf("Check(only=%q) = %q (ledger transition %d, run %s event %d), want %q at transition %d, event %d",
						only, me.Reason, me.LedgerSeq, me.RunID, me.Seq, f.reason, f.ledgerSeq, f.seq)
				}
			}
			// Another run's check does not see this run's problems.
			if err := audit.Check(ctx, ts, memLog(es), "01OTHERRUN0000000000000000"); err != nil && f.reason != audit.ReasonNoAnchor {
				t.Fatalf("Check of another run = %v", err)
			}
		})
	}
}

// memLog is an event log in memory with the queries Check makes.
type memLog []eventlog.Event

func (m memLog) Events(_ context.Context, runID string, q eventlog.Query) ([]eventlog.Event, error) {
	var out []eventlog.Event
	found := false
	for _, e := range m {
		if e.RunID != runID {
			continue
		}
		found = true
		if e.Seq <= q.AfterSeq || (len(q.Kinds) > 0 && !contains(q.Kinds, e.Kind)) {
			continue
		}
		out = append(out, e)
		if q.Limit > 0 && len(out) == q.Limit {
			break
		}
	}
	if !found {
		return nil, eventlog.ErrRunNotFound
	}
	return out, nil
}

func (m memLog) Runs(context.Context) ([]eventlog.RunInfo, error) {
	if len(m) == 0 {
		return nil, nil
	}
	return []eventlog.RunInfo{{RunID: m[0].RunID, Events: int64(len(m))}}, nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func eventsJSONL(t *testing.T, es []eventlog.Event) []byte {
	var buf bytes.Buffer
	must(t, eventlog.WriteJSONL(&buf, es))
	return buf.Bytes()
}

func transitionsJSONL(t *testing.T, ts []ledger.Transition) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range ts {
		must(t, enc.Encode(&ts[i]))
	}
	return buf.Bytes()
}

func readEvents(t *testing.T, path string) []eventlog.Event {
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	es, err := eventlog.ReadJSONL(f)
	must(t, err)
	return es
}

func readTransitions(t *testing.T, path string) []ledger.Transition {
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	var ts []ledger.Transition
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var tr ledger.Transition
		must(t, json.Unmarshal(sc.Bytes(), &tr))
		ts = append(ts, tr)
	}
	must(t, sc.Err())
	return ts
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
