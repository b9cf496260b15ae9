package eventlog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// genesisDomain separates eventlog genesis hashes from any other sha256 use.
const genesisDomain = "multiverse/eventlog/v1\x00"

// Genesis returns the PrevHash of a run's first event:
// hex(sha256("multiverse/eventlog/v1\x00" + runID)).
func Genesis(runID string) string {
	s := sha256.Sum256([]byte(genesisDomain + runID))
	return hex.EncodeToString(s[:])
}

// canonicalForm is the hashed shape of an Event: the same keys in the same
// order, with the time pre-formatted so its encoding does not depend on the
// value's location.
type canonicalForm struct {
	RunID        string          `json:"run_id"`
	Seq          int64           `json:"seq"`
	Time         string          `json:"time"`
	VirtualTime  int64           `json:"virtual_time_ms"`
	Kind         string          `json:"kind"`
	BranchID     string          `json:"branch_id,omitempty"`
	TraceID      string          `json:"trace_id,omitempty"`
	SpanID       string          `json:"span_id,omitempty"`
	ParentSpanID string          `json:"parent_span_id,omitempty"`
	Payload      json.RawMessage `json:"payload,omitempty"`
	Artifacts    []string        `json:"artifacts,omitempty"`
	PrevHash     string          `json:"prev_hash"`
	Hash         string          `json:"hash"`
}

// EventHash returns the hash e should carry given its PrevHash, as the
// package documentation defines it (hex(sha256(PrevHash + "\n" +
// canonical))), and the canonical form of e's payload. It ignores e.Hash
// and does not look at the chain around e: a reader that holds only part
// of a chain (a bundle) checks each event's own hash with it, and the
// payload's canonical form tells whether e's payload was stored in it. An
// error matches [ErrInvalidEvent]: e's payload is not a single JSON
// value.
func EventHash(e *Event) (hash string, payload json.RawMessage, err error) {
	payload, err = CanonicalPayload(e.Payload)
	if err != nil {
		return "", nil, err
	}
	canonical, err := encodeCanonical(e, payload)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrInvalidEvent, err)
	}
	return chainHash(e.PrevHash, canonical), payload, nil
}

// encodeCanonical encodes e with the given (already canonical) payload:
// the only definition of the hashed form, used by Append, verification
// and EventHash.
func encodeCanonical(e *Event, payload json.RawMessage) ([]byte, error) {
	return encodeNoHTML(canonicalForm{
		RunID:        e.RunID,
		Seq:          e.Seq,
		Time:         formatTime(e.Time),
		VirtualTime:  e.VirtualTime,
		Kind:         e.Kind,
		BranchID:     e.BranchID,
		TraceID:      e.TraceID,
		SpanID:       e.SpanID,
		ParentSpanID: e.ParentSpanID,
		Payload:      payload,
		Artifacts:    e.Artifacts,
		PrevHash:     e.PrevHash,
	})
}

// formatTime is the stored and hashed form of an event time.
func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// chainHash returns hex(sha256(prevHash + "\n" + canonical)).
func chainHash(prevHash string, canonical []byte) string {
	h := sha256.New()
	h.Write([]byte(prevHash))
	h.Write([]byte{'\n'})
	h.Write(canonical)
	return hex.EncodeToString(h.Sum(nil))
}

// CanonicalPayload returns the canonical form of a JSON payload: numbers
// kept as written, object keys sorted by their UTF-8 bytes (duplicate keys:
// the last one wins), no insignificant whitespace, no HTML escaping. Empty
// or whitespace-only input and the literal null yield nil. Input that is not
// exactly one JSON value returns an error matching [ErrInvalidEvent].
// The function is idempotent: canonical input is returned unchanged.
func CanonicalPayload(raw []byte) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return nil, nil
	}
	if isCanonical(trimmed) {
		// Already canonical (what this package and its writers produce):
		// decoding and encoding again would return the same bytes.
		return trimmed, nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: payload: %v", ErrInvalidEvent, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: payload: more than one JSON value", ErrInvalidEvent)
	}
	if v == nil {
		return nil, nil
	}
	out, err := encodeNoHTML(v)
	if err != nil {
		return nil, fmt.Errorf("%w: payload: %v", ErrInvalidEvent, err)
	}
	return out, nil
}

// encodeNoHTML is json.Marshal without HTML escaping and without the
// encoder's trailing newline.
func encodeNoHTML(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}
