// Package payload holds the typed payloads of the event kinds that are
// read back: by replay (bundles, analytical replay), by Explain and by the
// CLI. Writer and reader share one struct, so a renamed or retyped key is
// a compile error rather than a silently empty field.
//
// The JSON form of every struct is the one the event log has always
// stored (same keys, same value shapes): the log canonicalizes payloads,
// so field order does not matter, and fields without omitempty are
// written even when zero, as the map payloads before them were. Changing a
// tag changes the on-disk format of new events and what old logs decode
// to; golden fixtures in eventlog/testdata and replay/bundle/testdata
// guard it.
//
// Kinds whose payload nothing reads back (action_start, budget_debit,
// login_*, the committer's ledger rows, ...) stay free-form objects.
package payload

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// ErrKind: the event is not of the kind the payload type belongs to.
var ErrKind = errors.New("payload: event of another kind")

// Payload is the typed payload of one event kind.
type Payload interface {
	// Kind is the event kind (an eventlog.Kind constant) the payload
	// belongs to.
	Kind() string
}

// Decode decodes the payload of e as a T. It returns an error wrapping
// ErrKind when e is not of T's kind, and the JSON error when the payload
// does not decode (an empty payload included); the value then holds what
// decoded before the error.
func Decode[T Payload](e eventlog.Event) (T, error) {
	var v T
	if e.Kind != v.Kind() {
		return v, fmt.Errorf("%w: %q is not %q", ErrKind, e.Kind, v.Kind())
	}
	if err := json.Unmarshal(e.Payload, &v); err != nil {
		return v, fmt.Errorf("payload: %s event %d: %w", e.Kind, e.Seq, err)
	}
	return v, nil
}
