package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/commit/evidence"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// LedgerReport counts what [VerifyLedger] checked.
type LedgerReport struct {
	Entries  int             `json:"entries"`
	HeadSeq  int64           `json:"head_seq"`  // the ledger's last transition
	HeadHash string          `json:"head_hash"` // and its hash
	Evidence evidence.Report `json:"evidence"`  // artifacts present, sealed, decrypted
}

// VerifyLedger audits a data dir's ledger offline: its own hash chain,
// every entry against its last snapshot, every evidence artifact present
// with its digest (sealed ones decrypted when key is not nil), every
// committed row backed by a confirmation naming its order id, every
// aborted or failed row whose commit action ran backed by the site's
// refusal (ledger.CheckOutcome), no row standing for more than one
// submission the site accepted (ledger.CheckSubmissions), and the ledger against the event log both
// ways ([Check]), with the chain of every run a finalization anchors.
//
// problems is nil when everything verifies, and otherwise every problem
// found, joined (matching ledger.ErrVerify, ErrMismatch or
// eventlog.ErrCorrupt). err is an error reading the stores, which says
// nothing about their integrity.
func VerifyLedger(ctx context.Context, l *ledger.Ledger, elog *eventlog.Log, store *artifacts.FS, key *evidence.Key) (rep LedgerReport, problems, err error) {
	problems = l.Verify(ctx, func(e ledger.Entry) error {
		rep.Entries++
		var errs []error
		if err := evidence.Verify(ctx, store, key, e.Artifacts, &rep.Evidence); err != nil {
			errs = append(errs, err)
		}
		if c := e.Compensation; c != nil {
			// The undo's evidence is held to the same rule.
			if err := evidence.Verify(ctx, store, key, c.Artifacts, &rep.Evidence); err != nil {
				errs = append(errs, fmt.Errorf("compensation: %w", err))
			}
		}
		if err := checkOutcome(ctx, store, e); err != nil {
			errs = append(errs, err)
		}
		if err := checkSubmissions(ctx, l, store, e); err != nil {
			errs = append(errs, err)
		}
		if e.State.Committed() {
			var conf struct {
				OrderID string `json:"order_id"`
			}
			if len(e.Confirmation) == 0 || json.Unmarshal(e.Confirmation, &conf) != nil || conf.OrderID != e.OrderID {
				errs = append(errs, fmt.Errorf("confirmation does not name order %s", e.OrderID))
			}
		}
		return errors.Join(errs...)
	})
	if problems == nil || errors.Is(problems, ledger.ErrVerify) {
		cross, err := CrossCheck(ctx, l, elog, "")
		if err != nil {
			return rep, nil, err
		}
		problems = errors.Join(problems, cross)
	}
	if problems == nil {
		rep.HeadSeq, rep.HeadHash, _ = l.Head(ctx)
	}
	return rep, problems, nil
}

// CrossCheck checks the ledger and the event log against each other (all
// runs when run is "", else that run) with [Check], and verifies the
// chain of every run a finalization anchors: the problems found, joined,
// or an error reading the stores.
func CrossCheck(ctx context.Context, l *ledger.Ledger, elog *eventlog.Log, run string) (problems, err error) {
	ts, err := l.Transitions(ctx)
	if err != nil {
		return nil, err
	}
	problems = Check(ctx, ts, elog, run)
	if problems != nil && !errors.Is(problems, ErrMismatch) {
		return nil, problems
	}
	seen := map[string]bool{}
	for i := range ts {
		a, _ := ts[i].Anchor()
		if a == nil || seen[a.RunID] || (run != "" && a.RunID != run) {
			continue
		}
		seen[a.RunID] = true
		if err := elog.Verify(ctx, a.RunID); err != nil && !errors.Is(err, eventlog.ErrRunNotFound) {
			if !errors.Is(err, eventlog.ErrCorrupt) {
				return nil, err
			}
			problems = errors.Join(problems, err)
		}
	}
	return problems, nil
}

// checkSubmissions audits a row's rounds (every finalization its history
// kept, each with its submit transcript) for more than one submission
// the site accepted (ledger.CheckSubmissions). A transcript that is
// missing is left to the evidence check.
func checkSubmissions(ctx context.Context, l *ledger.Ledger, store *artifacts.FS, e ledger.Entry) error {
	hist, err := l.History(ctx, e.Key)
	if err != nil {
		return nil // the chain check reports a row without history
	}
	var rounds []ledger.Round
	for _, t := range hist {
		if t.Op != ledger.OpFinalize {
			continue
		}
		var snap struct {
			Confirmation json.RawMessage   `json:"confirmation"`
			Artifacts    map[string]string `json:"artifacts"`
		}
		if json.Unmarshal(t.Data, &snap) != nil {
			continue
		}
		r := ledger.Round{Confirmation: snap.Confirmation}
		if s := snap.Artifacts["submit_transcript"]; s != "" {
			if d, err := artifacts.ParseDigest(s); err == nil {
				r.Transcript, _ = store.Get(ctx, d)
			}
		}
		rounds = append(rounds, r)
	}
	if err := ledger.CheckSubmissions(rounds); err != nil {
		return fmt.Errorf("submissions: %w", err)
	}
	return nil
}

// checkOutcome audits an aborted or failed row against its submit
// transcript: one finalized without the site's refusal may stand for an
// order the site holds (ledger.CheckOutcome). A transcript that is
// missing or corrupt is left to the evidence check, which names it.
func checkOutcome(ctx context.Context, store *artifacts.FS, e ledger.Entry) error {
	var transcript []byte
	if s := e.Artifacts["submit_transcript"]; s != "" {
		d, err := artifacts.ParseDigest(s)
		if err != nil {
			return nil
		}
		if transcript, err = store.Get(ctx, d); err != nil {
			return nil
		}
	}
	if err := ledger.CheckOutcome(e, transcript); err != nil {
		return fmt.Errorf("outcome: %w", err)
	}
	return nil
}
