package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
)

// ErrMismatch is matched by every [*MismatchError].
var ErrMismatch = errors.New("audit: the ledger and the event log disagree")

// Reasons carried by a MismatchError.
const (
	ReasonNoAnchor      = "finalized without an event-log anchor" // a finalize transition records no anchor
	ReasonAnchorMissing = "anchored event missing"                // the anchored run or event is not in the event log (its tail was cut or removed)
	ReasonAnchorHash    = "anchored event differs"                // the event at the anchored seq has another hash
	ReasonNoRow         = "ledger row missing"                    // an event names a ledger row the ledger does not hold
	ReasonLedgerHead    = "ledger head missing"                   // the ledger transition commit_end recorded is gone or differs
	ReasonState         = "commit outcome differs"                // the event log says committed, the ledger does not agree
	ReasonUndecodable   = "event does not decode"                 // a commit_end or ledger event's payload is not its kind's type
)

// MismatchError is one disagreement between the ledger and the event log.
// It names both sides: the ledger row (EntryID) and transition (LedgerSeq,
// 0 when none), and the run (RunID) and event (Seq, 0 when none).
type MismatchError struct {
	Reason    string // one of the Reason constants
	EntryID   string
	LedgerSeq int64
	RunID     string
	Seq       int64
	Want, Got string
}

// Error names the ledger row and transition, the run and event, the reason
// and what was wanted versus found.
func (e *MismatchError) Error() string {
	msg := "audit: " + e.Reason + ":"
	if e.EntryID != "" {
		msg += " ledger row " + e.EntryID
	}
	if e.LedgerSeq > 0 {
		msg += " (transition " + strconv.FormatInt(e.LedgerSeq, 10) + ")"
	}
	if e.RunID != "" {
		msg += ", run " + e.RunID
	}
	if e.Seq > 0 {
		msg += " event " + strconv.FormatInt(e.Seq, 10)
	}
	return msg + ": want " + e.Want + ", got " + e.Got
}

// Is reports whether target is ErrMismatch.
func (e *MismatchError) Is(target error) bool { return target == ErrMismatch }

// Events is the part of the event log Check reads; *eventlog.Log has it.
type Events interface {
	Events(ctx context.Context, runID string, q eventlog.Query) ([]eventlog.Event, error)
	Runs(ctx context.Context) ([]eventlog.RunInfo, error)
}

// Check cross-checks the ledger's history ts (every transition, in seq
// order, as ledger.Ledger.Transitions returns it) with the event log. With
// only empty it checks everything: every finalize transition's anchor, and
// the commit_end and ledger events of every run in the log. With only set
// to a run id it checks that run: the anchors pointing into it (and
// finalizations of its entries without one), and its events.
//
// It returns nil when the two agree and otherwise every disagreement
// found, joined, each a *MismatchError matching ErrMismatch. Errors reading
// the event log other than a missing run are returned as they are.
func Check(ctx context.Context, ts []ledger.Transition, log Events, only string) error {
	c := checker{log: log, only: only, last: map[string]snapshot{}, hashes: map[int64]string{}}
	for _, t := range ts {
		var s snapshot
		if err := json.Unmarshal(t.Data, &s); err == nil {
			c.last[t.EntryID] = s
		}
		c.hashes[t.Seq] = t.Hash
	}
	if err := c.anchors(ctx, ts); err != nil {
		return err
	}
	runs := []string{only}
	if only == "" {
		infos, err := log.Runs(ctx)
		if err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		runs = runs[:0]
		for _, r := range infos {
			runs = append(runs, r.RunID)
		}
	}
	for _, run := range runs {
		if err := c.events(ctx, run); err != nil {
			return err
		}
	}
	return errors.Join(c.problems...)
}

// snapshot is what Check reads of a ledger transition's entry snapshot.
type snapshot struct {
	RunID   string       `json:"run_id"`
	State   ledger.State `json:"state"`
	OrderID string       `json:"order_id"`
}

type checker struct {
	log      Events
	only     string
	last     map[string]snapshot // entry id -> its last snapshot
	hashes   map[int64]string    // ledger transition seq -> hash
	problems []error
}

func (c *checker) add(e *MismatchError) { c.problems = append(c.problems, e) }

func (c *checker) inScope(run string) bool { return c.only == "" || c.only == run }

// anchors checks that each finalize transition's anchor is in the log.
func (c *checker) anchors(ctx context.Context, ts []ledger.Transition) error {
	for i := range ts {
		t := &ts[i]
		if t.Op != ledger.OpFinalize {
			continue
		}
		a, err := t.Anchor()
		if err != nil || a == nil {
			var s snapshot
			json.Unmarshal(t.Data, &s)
			if c.inScope(s.RunID) {
				c.add(&MismatchError{Reason: ReasonNoAnchor, EntryID: t.EntryID, LedgerSeq: t.Seq, RunID: s.RunID,
					Want: "the head of the run's event log", Got: "none"})
			}
			continue
		}
		if !c.inScope(a.RunID) {
			continue
		}
		es, err := c.log.Events(ctx, a.RunID, eventlog.Query{AfterSeq: a.Seq - 1, Limit: 1})
		if err != nil && !errors.Is(err, eventlog.ErrRunNotFound) {
			return fmt.Errorf("audit: anchor of ledger transition %d: %w", t.Seq, err)
		}
		switch {
		case errors.Is(err, eventlog.ErrRunNotFound):
			c.add(&MismatchError{Reason: ReasonAnchorMissing, EntryID: t.EntryID, LedgerSeq: t.Seq, RunID: a.RunID, Seq: a.Seq,
				Want: "event " + strconv.FormatInt(a.Seq, 10) + " " + a.Hash, Got: "no event of the run in the log"})
		case len(es) == 0 || es[0].Seq != a.Seq:
			c.add(&MismatchError{Reason: ReasonAnchorMissing, EntryID: t.EntryID, LedgerSeq: t.Seq, RunID: a.RunID, Seq: a.Seq,
				Want: "event " + strconv.FormatInt(a.Seq, 10) + " " + a.Hash, Got: "the run's log has no such event: its tail was cut"})
		case es[0].Hash != a.Hash:
			c.add(&MismatchError{Reason: ReasonAnchorHash, EntryID: t.EntryID, LedgerSeq: t.Seq, RunID: a.RunID, Seq: a.Seq,
				Want: a.Hash, Got: es[0].Hash})
		}
	}
	return nil
}

// ledgerRef is what commit_end and ledger events record of the ledger.
type ledgerRef struct {
	EntryID  string
	State    string
	OrderID  string
	HeadSeq  int64
	HeadHash string
}

// refOf reads the ledger reference of a commit_end or ledger event, typed
// as its writer wrote it.
func refOf(e eventlog.Event) (ledgerRef, error) {
	if e.Kind == eventlog.KindCommitEnd {
		p, err := payload.Decode[payload.CommitEnd](e)
		return ledgerRef{EntryID: p.EntryID, State: p.State, OrderID: p.OrderID, HeadSeq: p.LedgerHeadSeq, HeadHash: p.LedgerHeadHash}, err
	}
	p, err := payload.Decode[payload.Ledger](e)
	return ledgerRef{EntryID: p.EntryID, State: p.State, OrderID: p.OrderID}, err
}

// events checks the run's commit_end and ledger events against the ledger.
func (c *checker) events(ctx context.Context, run string) error {
	es, err := c.log.Events(ctx, run, eventlog.Query{Kinds: []string{eventlog.KindCommitEnd, eventlog.KindLedger}})
	if errors.Is(err, eventlog.ErrRunNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("audit: events of run %s: %w", run, err)
	}
	for _, e := range es {
		ref, err := refOf(e)
		if err != nil {
			// A payload the audit cannot read is a finding, never a skip:
			// a check switched off by a changed writer must show.
			c.add(&MismatchError{Reason: ReasonUndecodable, RunID: run, Seq: e.Seq, Want: "a " + e.Kind + " payload", Got: err.Error()})
			continue
		}
		if ref.EntryID == "" {
			continue // an event that names no row (a dry run, an unknown outcome)
		}
		bad := func(reason string, lseq int64, want, got string) {
			c.add(&MismatchError{Reason: reason, EntryID: ref.EntryID, LedgerSeq: lseq, RunID: run, Seq: e.Seq, Want: want, Got: got})
		}
		s, ok := c.last[ref.EntryID]
		if !ok {
			bad(ReasonNoRow, 0, "the ledger row the "+e.Kind+" event names", "no such row")
			continue
		}
		if ref.State == string(ledger.StateCommitted) && (!s.State.Committed() || s.OrderID != ref.OrderID) {
			bad(ReasonState, 0, "committed with order "+ref.OrderID, string(s.State)+" with order "+quoteEmpty(s.OrderID))
		}
		if e.Kind != eventlog.KindCommitEnd || ref.HeadSeq <= 0 {
			continue
		}
		switch h, ok := c.hashes[ref.HeadSeq]; {
		case !ok:
			bad(ReasonLedgerHead, ref.HeadSeq, "transition "+strconv.FormatInt(ref.HeadSeq, 10)+" "+ref.HeadHash,
				"the ledger has "+strconv.Itoa(len(c.hashes))+" transitions: its tail was cut")
		case h != ref.HeadHash:
			bad(ReasonLedgerHead, ref.HeadSeq, ref.HeadHash, h)
		}
	}
	return nil
}

func quoteEmpty(s string) string {
	if s == "" {
		return `""`
	}
	return s
}
