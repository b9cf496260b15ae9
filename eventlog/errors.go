package eventlog

import (
	"errors"
	"fmt"
)

var (
	// ErrInvalidEvent reports an event Append refuses: missing run id or
	// kind, malformed trace ids, a payload that is not JSON, a time outside
	// years 0–9999. Nothing of the call is stored.
	ErrInvalidEvent = errors.New("eventlog: invalid event")
	// ErrRunNotFound reports a run with no events.
	ErrRunNotFound = errors.New("eventlog: run not found")
	// ErrCorrupt is matched (errors.Is) by every [*CorruptionError].
	ErrCorrupt = errors.New("eventlog: corrupt chain")
	// ErrSchemaVersion is matched (errors.Is) by every [*SchemaVersionError].
	ErrSchemaVersion = errors.New("eventlog: unsupported schema version")
	// ErrClosed reports a call on a closed Log.
	ErrClosed = errors.New("eventlog: log is closed")
	// ErrReadOnly reports an append to a Log opened with [OpenReadOnly].
	ErrReadOnly = errors.New("eventlog: log is opened read-only")
)

// Reasons carried by a CorruptionError.
const (
	ReasonHashMismatch    = "hash mismatch"              // the event's content does not hash to its Hash
	ReasonBrokenLink      = "broken prev link"           // PrevHash is not the previous event's Hash (or Genesis)
	ReasonSeqGap          = "gap in seq"                 // an event is missing, duplicated or out of order
	ReasonRunMismatch     = "wrong run"                  // the event belongs to another run
	ReasonPayloadForm     = "payload not canonical"      // the stored payload bytes are not in canonical form
	ReasonSummaryMismatch = "summary disagrees with log" // the run summary's head differs from the last event
	ReasonUnreadable      = "unreadable row"             // a stored row cannot be decoded
)

// CorruptionError reports the first event at which a run's chain fails to
// verify. Want and Got hold the expected and the found value of whatever
// Reason names: hashes for hash and link errors, sequence numbers (decimal)
// for gaps, run ids for a wrong run, payload text for a non-canonical
// payload.
type CorruptionError struct {
	RunID  string
	Seq    int64 // the position at which the chain breaks
	Want   string
	Got    string
	Reason string // one of the Reason constants
}

// Error implements error.
func (e *CorruptionError) Error() string {
	return fmt.Sprintf("eventlog: run %s: event %d: %s: want %s, got %s", e.RunID, e.Seq, e.Reason, e.Want, e.Got)
}

// Is reports whether target is ErrCorrupt.
func (e *CorruptionError) Is(target error) bool { return target == ErrCorrupt }

// SchemaVersionError reports an events database written by a newer (or
// unknown) schema than this build supports. The file is left untouched.
type SchemaVersionError struct {
	Path      string
	Found     int64
	Supported int64
}

// Error implements error.
func (e *SchemaVersionError) Error() string {
	return fmt.Sprintf("eventlog: %s has schema version %d, this build supports up to %d: use a newer multiverse to read it", e.Path, e.Found, e.Supported)
}

// Is reports whether target is ErrSchemaVersion.
func (e *SchemaVersionError) Is(target error) bool { return target == ErrSchemaVersion }

// LineError reports a bad line of a JSON Lines stream read by ReadJSONL.
type LineError struct {
	Line int // 1-based
	Err  error
}

// Error implements error.
func (e *LineError) Error() string { return fmt.Sprintf("eventlog: jsonl line %d: %v", e.Line, e.Err) }

// Unwrap returns the underlying error.
func (e *LineError) Unwrap() error { return e.Err }
