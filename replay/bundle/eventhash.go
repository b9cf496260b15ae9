package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// eventCanonical mirrors the hashed form of an event documented by package
// eventlog ("Hash chain (stable format, version 1)"): the same keys in the
// same order, hash empty, time in UTC RFC 3339 with nanoseconds. eventlog
// verifies only whole chains starting at seq 1; a bundle holds a subset of
// a chain, so each event's own hash is recomputed here. Tests pin this
// against eventlog's golden chain and against a real eventlog.Log.
type eventCanonical struct {
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

// eventHash returns the hash e should carry given its PrevHash, and the
// canonical form of its payload. err is non-nil when the payload is not a
// single JSON value.
func eventHash(e *eventlog.Event) (hash string, payload json.RawMessage, err error) {
	payload, err = eventlog.CanonicalPayload(e.Payload)
	if err != nil {
		return "", nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(eventCanonical{
		RunID:        e.RunID,
		Seq:          e.Seq,
		Time:         e.Time.UTC().Format(time.RFC3339Nano),
		VirtualTime:  e.VirtualTime,
		Kind:         e.Kind,
		BranchID:     e.BranchID,
		TraceID:      e.TraceID,
		SpanID:       e.SpanID,
		ParentSpanID: e.ParentSpanID,
		Payload:      payload,
		Artifacts:    e.Artifacts,
		PrevHash:     e.PrevHash,
	}); err != nil {
		return "", nil, err
	}
	h := sha256.New()
	h.Write([]byte(e.PrevHash))
	h.Write([]byte{'\n'})
	h.Write(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}))
	return hex.EncodeToString(h.Sum(nil)), payload, nil
}
