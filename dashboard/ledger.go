package dashboard

import (
	"context"
	"errors"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/audit"
	"github.com/multiverse-orchestrator/multiverse/commit/evidence"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
)

// Ledger is the ledger view: every row, and the verdict of the offline
// audit `orchestrator ledger verify` runs (audit.VerifyLedger).
type Ledger struct {
	Entries []ledger.Entry `json:"entries"`
	Verify  Verdict        `json:"verify"`
}

// Verdict is the outcome of verifying the ledger.
type Verdict struct {
	OK       bool     `json:"ok"`
	Problems []string `json:"problems,omitempty"`
	// What was checked: entries, the ledger's head transition, evidence
	// artifacts present with their digests, sealed ones among them and
	// those decrypted to the plaintext digest the ledger records.
	Entries   int    `json:"entries"`
	HeadSeq   int64  `json:"head_seq"`
	HeadHash  string `json:"head_hash"`
	Artifacts int    `json:"artifacts"`
	Sealed    int    `json:"sealed"`
	Decrypted int    `json:"decrypted"`
	// KeyMissing says sealed evidence was checked by its own digests
	// only: the data dir has no evidence key.
	KeyMissing bool `json:"key_missing"`
}

// ledgerView lists and verifies the ledger. Without a ledger (a data dir
// that never committed, a bundle) it returns an empty view.
func (s *Server) ledgerView(ctx context.Context) (*Ledger, error) {
	v := &Ledger{Entries: []ledger.Entry{}, Verify: Verdict{OK: true}}
	st := s.stores
	if st.Ledger == nil || st.Events == nil {
		return v, nil
	}
	es, err := st.Ledger.List(ctx, ledger.Filter{})
	if err != nil {
		return nil, err
	}
	v.Entries = es
	if st.Artifacts == nil {
		if len(es) > 0 {
			v.Verify = Verdict{Problems: []string{"the data dir has no artifact store: the evidence cannot be checked"}}
		}
		return v, nil
	}
	key, err := evidence.LoadKey(st.DataDir)
	if err != nil && !errors.Is(err, evidence.ErrNoKey) {
		return nil, err
	}
	v.Verify.KeyMissing = key == nil
	rep, problems, err := audit.VerifyLedger(ctx, st.Ledger, st.Events, st.Artifacts, key)
	if err != nil {
		return nil, err
	}
	ev := rep.Evidence
	v.Verify.Entries, v.Verify.HeadSeq, v.Verify.HeadHash = rep.Entries, rep.HeadSeq, rep.HeadHash
	v.Verify.Artifacts, v.Verify.Sealed, v.Verify.Decrypted = ev.Artifacts, ev.Sealed, ev.Decrypted
	if problems != nil {
		v.Verify.OK = false
		v.Verify.Problems = strings.Split(problems.Error(), "\n")
	}
	return v, nil
}
