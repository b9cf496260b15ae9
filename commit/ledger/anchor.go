package ledger

import (
	"encoding/json"
	"fmt"
)

// Anchor is the head of a run's event log (the seq and hash of its last
// durable event) as it was when the committer finalized an entry. The
// ledger and the event log each record the other's head, so neither can
// lose its tail unnoticed: the event log at the anchored seq must still
// hold the anchored hash.
type Anchor struct {
	RunID string `json:"run_id"` // the run whose log was anchored: the finalizing run
	Seq   int64  `json:"seq"`    // its last event's seq, 1 or more
	Hash  string `json:"hash"`   // that event's hash, 64 lowercase hex digits
}

// validate checks the anchor's form.
func (a *Anchor) validate() error {
	if a.RunID == "" {
		return fmt.Errorf("%w: anchor run_id is empty", ErrInvalid)
	}
	if err := checkToken("anchor run_id", a.RunID); err != nil {
		return err
	}
	if a.Seq < 1 {
		return fmt.Errorf("%w: anchor seq %d is below 1", ErrInvalid, a.Seq)
	}
	if !isHexHash(a.Hash) {
		return fmt.Errorf("%w: anchor hash %q is not 64 lowercase hex digits", ErrInvalid, a.Hash)
	}
	return nil
}

func isHexHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// anchorJSON returns the anchor column's text: the canonical JSON object,
// or "" for none.
func anchorJSON(a *Anchor) (string, error) { return objectColumn(a, "anchor") }

// parseAnchor reads the anchor column's text.
func parseAnchor(s string) (*Anchor, error) { return parseObjectColumn[Anchor](s) }

// objectColumn is the text of a column holding an optional object (the
// anchor, the compensation): its canonical JSON, or "" for nil.
func objectColumn[T any](v *T, what string) (string, error) {
	if v == nil {
		return "", nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("ledger: encode %s: %w", what, err)
	}
	c, err := Canonical(b)
	if err != nil {
		return "", err
	}
	return string(c), nil
}

// parseObjectColumn reads what objectColumn wrote: nil for "".
func parseObjectColumn[T any](s string) (*T, error) {
	if s == "" {
		return nil, nil
	}
	var v T
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// Anchor returns the event-log anchor recorded in the transition's
// snapshot, or nil when it has none (transitions other than finalize, and
// those written without one).
func (t *Transition) Anchor() (*Anchor, error) {
	var s struct {
		Anchor *Anchor `json:"anchor"`
	}
	if err := json.Unmarshal(t.Data, &s); err != nil {
		return nil, fmt.Errorf("ledger: transition %d: snapshot: %w", t.Seq, err)
	}
	return s.Anchor, nil
}
