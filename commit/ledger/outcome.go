package ledger

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
)

// Outcome is what became of an intent, recorded by Finalize.
type Outcome struct {
	State        State             // committed, aborted or failed
	OrderID      string            // confirmation token; required when State is committed; no control characters
	Confirmation json.RawMessage   // extracted confirmation details, any JSON value; optional
	Artifacts    map[string]string // evidence name -> artifact digest; optional
	Error        string            // why it failed or was aborted; optional
	// Anchor is the head of the finalizing run's event log, recorded so
	// that an audit can check the two stores against each other;
	// optional, but the committer always gives it.
	Anchor *Anchor
}

// normalize validates the outcome and returns it with Confirmation in
// canonical form and Artifacts copied. Errors wrap ErrInvalid or
// ErrInvalidJSON; a State of intent is left for the state machine to refuse.
func (o Outcome) normalize() (Outcome, error) {
	switch o.State {
	case StateCommitted, StateAborted, StateFailed, StateIntent:
	default:
		return Outcome{}, fmt.Errorf("%w: outcome state %q", ErrInvalid, o.State)
	}
	if o.State == StateCommitted && o.OrderID == "" {
		return Outcome{}, fmt.Errorf("%w: a committed outcome needs an order id", ErrInvalid)
	}
	if err := checkToken("order_id", o.OrderID); err != nil {
		return Outcome{}, err
	}
	if err := checkText("error", o.Error); err != nil {
		return Outcome{}, err
	}
	if len(o.Confirmation) > 0 {
		c, err := Canonical(o.Confirmation)
		if err != nil {
			return Outcome{}, fmt.Errorf("ledger: outcome confirmation: %w", err)
		}
		if string(c) == "null" {
			c = nil
		}
		o.Confirmation = c
	}
	for name, digest := range o.Artifacts {
		if name == "" || strings.ContainsAny(name, "=;") {
			return Outcome{}, fmt.Errorf("%w: artifact name %q must be non-empty without '=' or ';'", ErrInvalid, name)
		}
		if digest == "" || strings.Contains(digest, ";") {
			return Outcome{}, fmt.Errorf("%w: artifact %q digest %q must be non-empty without ';'", ErrInvalid, name, digest)
		}
		if err := checkToken("artifact name", name); err != nil {
			return Outcome{}, err
		}
		if err := checkToken("artifact digest", digest); err != nil {
			return Outcome{}, err
		}
	}
	if o.Anchor != nil {
		if err := o.Anchor.validate(); err != nil {
			return Outcome{}, err
		}
		a := *o.Anchor
		o.Anchor = &a
	}
	if len(o.Artifacts) == 0 {
		o.Artifacts = nil
	} else {
		o.Artifacts = maps.Clone(o.Artifacts)
	}
	return o, nil
}
