package ledger_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
)

func TestIntentFinalizeRoundTrip(t *testing.T) {
	ctx := context.Background()
	path := ledgerPath(t)
	clock := newStepClock()
	l := openLedger(t, path, ledger.WithClock(clock.Now))
	in := purchase(t, "team", 10)

	e, created, err := l.Intent(ctx, in)
	requireNoErr(t, err)
	requireEqual(t, created, true, "created")
	requireEqual(t, e.State, ledger.StateIntent, "state")
	requireEqual(t, e.Attempts, 0, "attempts")
	requireEqual(t, e.Key, in.Key, "key")
	if len(e.ID) != 26 {
		t.Fatalf("id %q is not a ULID", e.ID)
	}
	canon, sha, err := ledger.Digest(in.Payload)
	requireNoErr(t, err)
	requireEqual(t, string(e.Payload), string(canon), "payload")
	requireEqual(t, e.PayloadSHA256, sha, "payload_sha256")
	requireEqual(t, in.Key, "commit:saas-demo:checkout:"+sha, "idempotency key")

	got, err := l.Get(ctx, in.Key)
	requireNoErr(t, err)
	if !reflect.DeepEqual(got, e) {
		t.Fatalf("Get = %+v\nwant %+v", got, e)
	}

	e, err = l.Attempt(ctx, in.Key)
	requireNoErr(t, err)
	requireEqual(t, e.Attempts, 1, "attempts after Attempt")

	out := ledger.Outcome{
		State:        ledger.StateCommitted,
		OrderID:      "ORD-1001",
		Confirmation: json.RawMessage(`{ "total": 190.00, "order_id": "ORD-1001" }`),
		Artifacts:    map[string]string{"invoice_pdf": "sha256:aa", "confirmation_screenshot": "sha256:bb"},
	}
	fin, err := l.Finalize(ctx, in.Key, out)
	requireNoErr(t, err)
	requireEqual(t, fin.State, ledger.StateCommitted, "state")
	requireEqual(t, fin.OrderID, "ORD-1001", "order id")
	requireEqual(t, string(fin.Confirmation), `{"order_id":"ORD-1001","total":190.00}`, "confirmation")
	if !fin.UpdatedAt.After(fin.CreatedAt) {
		t.Fatalf("updated_at %v not after created_at %v", fin.UpdatedAt, fin.CreatedAt)
	}

	// The same entry after reopening the file, by key and by id.
	requireNoErr(t, l.Close())
	l = openLedger(t, path)
	byKey, err := l.Get(ctx, in.Key)
	requireNoErr(t, err)
	byID, err := l.GetByID(ctx, fin.ID)
	requireNoErr(t, err)
	for name, g := range map[string]ledger.Entry{"Get": byKey, "GetByID": byID} {
		if !reflect.DeepEqual(g, fin) {
			t.Fatalf("%s after reopen = %+v\nwant %+v", name, g, fin)
		}
	}

	hist, err := l.History(ctx, in.Key)
	requireNoErr(t, err)
	wantOps := []struct {
		op       ledger.Op
		from, to ledger.State
	}{
		{ledger.OpIntent, "", ledger.StateIntent},
		{ledger.OpAttempt, ledger.StateIntent, ledger.StateIntent},
		{ledger.OpFinalize, ledger.StateIntent, ledger.StateCommitted},
	}
	if len(hist) != len(wantOps) {
		t.Fatalf("history has %d transitions, want %d", len(hist), len(wantOps))
	}
	for i, w := range wantOps {
		h := hist[i]
		if h.Op != w.op || h.From != w.from || h.To != w.to || h.Seq != int64(i+1) || h.EntryID != fin.ID {
			t.Fatalf("transition %d = %+v, want %+v", i, h, w)
		}
	}
	requireEqual(t, hist[0].PrevHash, ledger.GenesisHash, "first prev_hash")
	var last map[string]any
	requireNoErr(t, json.Unmarshal(hist[2].Data, &last))
	requireEqual(t, last["order_id"], any("ORD-1001"), "snapshot order_id")
	requireEqual(t, last["state"], any("committed"), "snapshot state")

	seq, hash, err := l.Head(ctx)
	requireNoErr(t, err)
	requireEqual(t, seq, 3, "head seq")
	requireEqual(t, hash, hist[2].Hash, "head hash")
	requireNoErr(t, l.Verify(ctx, nil))

	_, err = l.Get(ctx, "commit:nope")
	requireIs(t, err, ledger.ErrNotFound)
	_, err = l.GetByID(ctx, "01HNOPE")
	requireIs(t, err, ledger.ErrNotFound)
	_, err = l.History(ctx, "commit:nope")
	requireIs(t, err, ledger.ErrNotFound)
}

func TestIntentExistingKeyReturnsExisting(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		outcome *ledger.Outcome // nil: leave in intent
	}{
		{"intent", nil},
		{"committed", &ledger.Outcome{State: ledger.StateCommitted, OrderID: "ORD-7"}},
		{"aborted", &ledger.Outcome{State: ledger.StateAborted, Error: "total changed"}},
		{"failed", &ledger.Outcome{State: ledger.StateFailed, Error: "HTTP 502"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := openLedger(t, ledgerPath(t))
			in := purchase(t, "team", 10)
			first, _, err := l.Intent(ctx, in)
			requireNoErr(t, err)
			if tc.outcome != nil {
				first, err = l.Finalize(ctx, in.Key, *tc.outcome)
				requireNoErr(t, err)
			}
			seq := headSeq(t, l)

			// Same business intent written differently, from another run and branch.
			again := in
			again.RunID, again.BranchID, again.PlanDigest = "01JRUN0000000000000000000B", "01JOTHERBRANCH000000000000", "sha256:other"
			var m map[string]any
			requireNoErr(t, json.Unmarshal(in.Payload, &m))
			again.Payload, err = json.MarshalIndent(m, "", "    ")
			requireNoErr(t, err)

			got, created, err := l.Intent(ctx, again)
			requireNoErr(t, err)
			requireEqual(t, created, false, "created")
			if !reflect.DeepEqual(got, first) {
				t.Fatalf("Intent on existing key = %+v\nwant %+v", got, first)
			}
			requireEqual(t, headSeq(t, l), seq, "head seq (nothing written)")
		})
	}
}

func TestIntentPayloadMismatch(t *testing.T) {
	ctx := context.Background()
	l := openLedger(t, ledgerPath(t))
	in := purchase(t, "team", 10)
	_, _, err := l.Intent(ctx, in)
	requireNoErr(t, err)
	seq := headSeq(t, l)

	other := in
	other.Payload = json.RawMessage(`{"plan":"team","seats":11}`)
	e, created, mismatch := l.Intent(ctx, other)
	requireIs(t, mismatch, ledger.ErrPayloadMismatch)
	requireEqual(t, created, false, "created")
	requireEqual(t, e.ID, "", "entry on error")
	requireEqual(t, headSeq(t, l), seq, "head seq (nothing written)")
	got, err := l.Get(ctx, in.Key)
	requireNoErr(t, err)
	_, sha, _ := ledger.Digest(in.Payload)
	requireEqual(t, got.PayloadSHA256, sha, "recorded payload sha")
	// The error carries both intents, for the caller to show (scrubbed).
	var pm *ledger.PayloadMismatchError
	if !errors.As(mismatch, &pm) {
		t.Fatalf("error %T is not a *PayloadMismatchError", mismatch)
	}
	requireEqual(t, pm.Key, in.Key, "key")
	requireEqual(t, string(pm.Recorded), string(got.Payload), "recorded payload")
	requireEqual(t, string(pm.Given), `{"plan":"team","seats":11}`, "given payload")
	requireEqual(t, pm.RecordedSHA256, sha, "recorded sha")
}

func TestIntentInvalid(t *testing.T) {
	ctx := context.Background()
	l := openLedger(t, ledgerPath(t))
	tests := []struct {
		name   string
		modify func(*ledger.Intent)
		want   error
	}{
		{"empty key", func(in *ledger.Intent) { in.Key = "" }, ledger.ErrInvalid},
		{"empty run", func(in *ledger.Intent) { in.RunID = "" }, ledger.ErrInvalid},
		{"empty site", func(in *ledger.Intent) { in.Site = "" }, ledger.ErrInvalid},
		{"empty flow", func(in *ledger.Intent) { in.Flow = "" }, ledger.ErrInvalid},
		{"control character in key", func(in *ledger.Intent) { in.Key = "commit:a\nb" }, ledger.ErrInvalid},
		{"invalid UTF-8 branch", func(in *ledger.Intent) { in.BranchID = "\xff" }, ledger.ErrInvalid},
		{"empty payload", func(in *ledger.Intent) { in.Payload = nil }, ledger.ErrInvalidJSON},
		{"payload not an object", func(in *ledger.Intent) { in.Payload = json.RawMessage(`[1,2]`) }, ledger.ErrInvalid},
		{"payload syntax error", func(in *ledger.Intent) { in.Payload = json.RawMessage(`{"plan":}`) }, ledger.ErrInvalidJSON},
		{"payload duplicate key", func(in *ledger.Intent) { in.Payload = json.RawMessage(`{"seats":1,"seats":10}`) }, ledger.ErrInvalidJSON},
		{"payload trailing data", func(in *ledger.Intent) { in.Payload = json.RawMessage(`{} {}`) }, ledger.ErrInvalidJSON},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := purchase(t, "team", 10)
			tc.modify(&in)
			_, created, err := l.Intent(ctx, in)
			requireIs(t, err, tc.want)
			requireEqual(t, created, false, "created")
			requireEqual(t, headSeq(t, l), 0, "head seq (nothing written)")
		})
	}
}

func TestStateTransitions(t *testing.T) {
	ctx := context.Background()
	committed := ledger.Outcome{State: ledger.StateCommitted, OrderID: "ORD-1"}
	failed := ledger.Outcome{State: ledger.StateFailed, Error: "HTTP 500"}
	aborted := ledger.Outcome{State: ledger.StateAborted, Error: "precondition: total changed"}

	type step func(l *ledger.Ledger, key string) (ledger.Entry, error)
	finalize := func(o ledger.Outcome) step {
		return func(l *ledger.Ledger, key string) (ledger.Entry, error) { return l.Finalize(ctx, key, o) }
	}
	attempt := func(l *ledger.Ledger, key string) (ledger.Entry, error) { return l.Attempt(ctx, key) }
	reopen := func(l *ledger.Ledger, key string) (ledger.Entry, error) {
		return l.Reopen(ctx, key, "01JRUN0000000000000000000C")
	}

	tests := []struct {
		name      string
		setup     []step
		op        step
		want      error // nil: allowed
		wantState ledger.State
	}{
		{"attempt intent", nil, attempt, nil, ledger.StateIntent},
		{"commit intent", nil, finalize(committed), nil, ledger.StateCommitted},
		{"fail intent", nil, finalize(failed), nil, ledger.StateFailed},
		{"abort intent", nil, finalize(aborted), nil, ledger.StateAborted},
		{"finalize to intent", nil, finalize(ledger.Outcome{State: ledger.StateIntent}), ledger.ErrBadTransition, ledger.StateIntent},
		{"commit twice", []step{finalize(committed)}, finalize(committed), ledger.ErrBadTransition, ledger.StateCommitted},
		{"fail after commit", []step{finalize(committed)}, finalize(failed), ledger.ErrBadTransition, ledger.StateCommitted},
		{"attempt after commit", []step{finalize(committed)}, attempt, ledger.ErrBadTransition, ledger.StateCommitted},
		{"reopen committed", []step{finalize(committed)}, reopen, ledger.ErrBadTransition, ledger.StateCommitted},
		{"reopen intent", nil, reopen, ledger.ErrBadTransition, ledger.StateIntent},
		{"commit after fail without reopen", []step{finalize(failed)}, finalize(committed), ledger.ErrBadTransition, ledger.StateFailed},
		{"attempt after abort", []step{finalize(aborted)}, attempt, ledger.ErrBadTransition, ledger.StateAborted},
		{"reopen failed", []step{finalize(failed)}, reopen, nil, ledger.StateIntent},
		{"reopen aborted", []step{finalize(aborted)}, reopen, nil, ledger.StateIntent},
		{"commit after reopen", []step{finalize(failed), reopen, attempt}, finalize(committed), nil, ledger.StateCommitted},
		{"unknown outcome state", nil, finalize(ledger.Outcome{State: "shipped"}), ledger.ErrInvalid, ledger.StateIntent},
		{"commit without order id", nil, finalize(ledger.Outcome{State: ledger.StateCommitted}), ledger.ErrInvalid, ledger.StateIntent},
		{"bad confirmation", nil, finalize(ledger.Outcome{State: ledger.StateCommitted, OrderID: "O", Confirmation: json.RawMessage(`{`)}), ledger.ErrInvalidJSON, ledger.StateIntent},
		{"bad artifact name", nil, finalize(ledger.Outcome{State: ledger.StateFailed, Artifacts: map[string]string{"a=b": "sha256:1"}}), ledger.ErrInvalid, ledger.StateIntent},
		{"empty artifact digest", nil, finalize(ledger.Outcome{State: ledger.StateFailed, Artifacts: map[string]string{"dom": ""}}), ledger.ErrInvalid, ledger.StateIntent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := openLedger(t, ledgerPath(t))
			in := purchase(t, "team", 10)
			_, _, err := l.Intent(ctx, in)
			requireNoErr(t, err)
			for _, s := range tc.setup {
				_, err := s(l, in.Key)
				requireNoErr(t, err)
			}
			seq := headSeq(t, l)
			got, err := tc.op(l, in.Key)
			if tc.want == nil {
				requireNoErr(t, err)
				requireEqual(t, got.State, tc.wantState, "state")
				requireEqual(t, headSeq(t, l), seq+1, "head seq")
			} else {
				requireIs(t, err, tc.want)
				requireEqual(t, headSeq(t, l), seq, "head seq (nothing written)")
			}
			if errors.Is(tc.want, ledger.ErrBadTransition) {
				var te *ledger.TransitionError
				if !errors.As(err, &te) || te.Key != in.Key || te.From != tc.wantState {
					t.Fatalf("error %v is not a TransitionError from %q", err, tc.wantState)
				}
			}
			cur, err := l.Get(ctx, in.Key)
			requireNoErr(t, err)
			requireEqual(t, cur.State, tc.wantState, "stored state")
			requireNoErr(t, l.Verify(ctx, nil))
		})
	}

	t.Run("unknown key", func(t *testing.T) {
		l := openLedger(t, ledgerPath(t))
		for name, op := range map[string]step{"attempt": attempt, "finalize": finalize(committed), "reopen": reopen} {
			_, err := op(l, "commit:nope")
			if !errors.Is(err, ledger.ErrNotFound) {
				t.Fatalf("%s on unknown key: %v, want ErrNotFound", name, err)
			}
		}
	})
}

func TestReopenStartsANewRound(t *testing.T) {
	ctx := context.Background()
	l := openLedger(t, ledgerPath(t))
	in := purchase(t, "business", 3)
	_, _, err := l.Intent(ctx, in)
	requireNoErr(t, err)
	_, err = l.Attempt(ctx, in.Key)
	requireNoErr(t, err)
	_, err = l.Finalize(ctx, in.Key, ledger.Outcome{
		State: ledger.StateFailed, Error: "HTTP 503", Artifacts: map[string]string{"submit_transcript": "sha256:cc"},
	})
	requireNoErr(t, err)

	_, err = l.Reopen(ctx, in.Key, "")
	requireIs(t, err, ledger.ErrInvalid)
	e, err := l.Reopen(ctx, in.Key, "01JRUN0000000000000000000D")
	requireNoErr(t, err)
	requireEqual(t, e.State, ledger.StateIntent, "state")
	requireEqual(t, e.RunID, "01JRUN0000000000000000000D", "run id")
	requireEqual(t, e.Attempts, 1, "attempts kept")
	requireEqual(t, e.Error, "", "error cleared")
	if e.Artifacts != nil {
		t.Fatalf("artifacts not cleared: %v", e.Artifacts)
	}
	e, err = l.Attempt(ctx, in.Key)
	requireNoErr(t, err)
	requireEqual(t, e.Attempts, 2, "attempts")

	pending, err := l.Pending(ctx)
	requireNoErr(t, err)
	if len(pending) != 1 || pending[0].Key != in.Key {
		t.Fatalf("Pending = %+v, want the reopened entry", pending)
	}
	hist, err := l.History(ctx, in.Key)
	requireNoErr(t, err)
	var failedSnap struct{ Error string }
	requireNoErr(t, json.Unmarshal(hist[2].Data, &failedSnap))
	requireEqual(t, failedSnap.Error, "HTTP 503", "history keeps the failed round")
	requireEqual(t, hist[3].Op, ledger.OpReopen, "op")
}

func TestConcurrentIntentSameKey(t *testing.T) {
	ctx := context.Background()
	l := openLedger(t, ledgerPath(t))
	in := purchase(t, "team", 10)
	const n = 50
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		ids     = make([]string, n)
		created = make([]bool, n)
		errs    = make([]error, n)
	)
	for i := range n {
		wg.Go(func() {
			<-start
			var e ledger.Entry
			e, created[i], errs[i] = l.Intent(ctx, in)
			ids[i] = e.ID
		})
	}
	close(start)
	wg.Wait()
	nCreated := 0
	for i := range n {
		requireNoErr(t, errs[i])
		if created[i] {
			nCreated++
		}
		requireEqual(t, ids[i], ids[0], fmt.Sprintf("id from goroutine %d", i))
	}
	requireEqual(t, nCreated, 1, "entries created")
	requireEqual(t, headSeq(t, l), 1, "transitions")
	requireNoErr(t, l.Verify(ctx, nil))
}

func TestTwoHandlesRaceIntent(t *testing.T) {
	ctx := context.Background()
	path := ledgerPath(t)
	handles := []*ledger.Ledger{openLedger(t, path), openLedger(t, path)}
	in := purchase(t, "team", 10)
	const perHandle = 8
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		start   = make(chan struct{})
		created int
		ids     = map[string]bool{}
	)
	for _, l := range handles {
		for range perHandle {
			wg.Go(func() {
				<-start
				e, c, err := l.Intent(ctx, in)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					t.Errorf("Intent: %v", err)
					return
				}
				ids[e.ID] = true
				if c {
					created++
				}
			})
		}
	}
	close(start)
	wg.Wait()
	requireEqual(t, created, 1, "entries created")
	requireEqual(t, len(ids), 1, "distinct ids returned")
	for _, l := range handles {
		requireEqual(t, headSeq(t, l), 1, "transitions")
		requireNoErr(t, l.Verify(ctx, nil))
	}
}

// Writers on two handles interleave on one hash chain without gaps or forks.
func TestConcurrentWritersKeepOneChain(t *testing.T) {
	ctx := context.Background()
	path := ledgerPath(t)
	handles := []*ledger.Ledger{openLedger(t, path), openLedger(t, path)}
	const workers, perWorker = 4, 5
	var wg sync.WaitGroup
	for w := range workers {
		l := handles[w%len(handles)]
		wg.Go(func() {
			for i := range perWorker {
				in := purchase(t, fmt.Sprintf("plan-%d-%d", w, i), i+1)
				if _, _, err := l.Intent(ctx, in); err != nil {
					t.Errorf("Intent: %v", err)
					return
				}
				if _, err := l.Attempt(ctx, in.Key); err != nil {
					t.Errorf("Attempt: %v", err)
					return
				}
				if _, err := l.Finalize(ctx, in.Key, ledger.Outcome{State: ledger.StateCommitted, OrderID: fmt.Sprintf("ORD-%d-%d", w, i)}); err != nil {
					t.Errorf("Finalize: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	requireEqual(t, headSeq(t, handles[0]), workers*perWorker*3, "transitions")
	requireNoErr(t, handles[1].Verify(ctx, nil))
	all, err := handles[0].List(ctx, ledger.Filter{State: ledger.StateCommitted})
	requireNoErr(t, err)
	requireEqual(t, len(all), workers*perWorker, "committed entries")
}

func TestListAndPending(t *testing.T) {
	ctx := context.Background()
	l := openLedger(t, ledgerPath(t), ledger.WithClock(newStepClock().Now))
	var keys []string
	for i, run := range []string{"run-a", "run-a", "run-b", "run-b"} {
		in := purchase(t, "team", i+1)
		in.RunID = run
		_, _, err := l.Intent(ctx, in)
		requireNoErr(t, err)
		keys = append(keys, in.Key)
	}
	_, err := l.Finalize(ctx, keys[1], ledger.Outcome{State: ledger.StateCommitted, OrderID: "ORD-2"})
	requireNoErr(t, err)
	_, err = l.Finalize(ctx, keys[2], ledger.Outcome{State: ledger.StateFailed})
	requireNoErr(t, err)

	tests := []struct {
		name   string
		filter ledger.Filter
		want   []int // indexes into keys, in expected order
	}{
		{"all newest first", ledger.Filter{}, []int{3, 2, 1, 0}},
		{"limit", ledger.Filter{Limit: 2}, []int{3, 2}},
		{"by state", ledger.Filter{State: ledger.StateIntent}, []int{3, 0}},
		{"by run", ledger.Filter{RunID: "run-a"}, []int{1, 0}},
		{"by state and run", ledger.Filter{State: ledger.StateFailed, RunID: "run-b"}, []int{2}},
		{"no match", ledger.Filter{RunID: "run-z"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			es, err := l.List(ctx, tc.filter)
			requireNoErr(t, err)
			var got []string
			for _, e := range es {
				got = append(got, e.Key)
			}
			var want []string
			for _, i := range tc.want {
				want = append(want, keys[i])
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("List(%+v) keys = %v, want %v", tc.filter, got, want)
			}
		})
	}
	for _, f := range []ledger.Filter{{State: "shipped"}, {Limit: -1}} {
		_, err := l.List(ctx, f)
		requireIs(t, err, ledger.ErrInvalid)
	}

	pending, err := l.Pending(ctx)
	requireNoErr(t, err)
	if len(pending) != 2 || pending[0].Key != keys[0] || pending[1].Key != keys[3] {
		t.Fatalf("Pending = %v, want keys 0 and 3 oldest first", pending)
	}
}
