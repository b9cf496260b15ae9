package evidence

import "errors"

// Errors callers branch on.
var (
	// ErrNoKey: the data dir has no evidence key.
	ErrNoKey = errors.New("evidence: no evidence key")
	// ErrNotSealed: the bytes are not a sealed artifact.
	ErrNotSealed = errors.New("evidence: not a sealed artifact")
	// ErrWrongKey: the artifact was sealed with another data dir's key.
	ErrWrongKey = errors.New("evidence: sealed with another key")
	// ErrTampered: the sealed artifact does not authenticate under the key.
	ErrTampered = errors.New("evidence: the sealed artifact does not authenticate (tampered)")
	// ErrNoEvidence: the ledger row holds no evidence by that name.
	ErrNoEvidence = errors.New("evidence: no such evidence")
	// ErrMismatch: the evidence does not hash to the digest the ledger
	// records.
	ErrMismatch = errors.New("evidence: digest mismatch")
)
