package bundle

import (
	"errors"
	"fmt"
	"strconv"
)

var (
	// ErrSchema reports a manifest whose schema is not [Schema]. It is
	// matched (errors.Is) by every [*SchemaError].
	ErrSchema = errors.New("bundle: unsupported schema")
	// ErrUnsafePath reports an archive entry the reader refuses to take:
	// an absolute or non-clean path, "..", a backslash, a colon or NUL in
	// the name, a duplicate path, or anything but a regular file (symlink,
	// hard link, device, directory, FIFO). Carried by an [*EntryError].
	ErrUnsafePath = errors.New("bundle: unsafe archive entry")
	// ErrTooLarge reports an archive over one of the [Limits] (entries,
	// bytes of one entry, total bytes), or a bundle that Write refuses
	// because a reader with default limits could not read it back.
	ErrTooLarge = errors.New("bundle: too large")
	// ErrCorrupt is matched by every integrity failure of [Read]: a
	// compressed stream that does not decompress ([*StreamError]), a tar
	// archive that does not decode or trailing data ([*EntryError]), and
	// every [Problem] validation finds ([*CorruptError]).
	ErrCorrupt = errors.New("bundle: corrupt")
	// ErrInvalid reports a Bundle that [Write] refuses to write because the
	// result would not validate ([*InvalidError]).
	ErrInvalid = errors.New("bundle: invalid bundle")
)

// Problem is one integrity finding of [Validate]. Path names the exact
// file inside the bundle ("steps/0003.json", "events.jsonl",
// "bodies/<sha256>"); Line is the 1-based line for JSON Lines files (0
// otherwise); Seq is the event sequence number when the problem concerns
// an event (0 otherwise).
type Problem struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
	Seq  int64  `json:"seq,omitempty"`
	Msg  string `json:"msg"`
}

// String renders the problem as "path[:line]: msg".
func (p Problem) String() string {
	loc := p.Path
	if p.Line > 0 {
		loc += ":" + strconv.Itoa(p.Line)
	}
	return loc + ": " + p.Msg
}

// SchemaError reports a manifest written for a schema this build does not
// read. Found is the manifest's value, Supported the one this build reads.
type SchemaError struct {
	Found     string
	Supported string
}

// Error implements error.
func (e *SchemaError) Error() string {
	return fmt.Sprintf("bundle: unsupported schema %q: this build reads %q", e.Found, e.Supported)
}

// Is reports whether target is ErrSchema.
func (e *SchemaError) Is(target error) bool { return target == ErrSchema }

// EntryError reports an archive entry the reader refused. Entry is the
// entry's name as found in the archive (possibly empty or hostile: print it
// quoted); Err is ErrUnsafePath, ErrTooLarge or ErrCorrupt.
type EntryError struct {
	Entry  string
	Err    error
	Reason string
}

// Error implements error.
func (e *EntryError) Error() string {
	return fmt.Sprintf("%v: entry %q: %s", e.Err, e.Entry, e.Reason)
}

// Unwrap returns the sentinel the refusal matches.
func (e *EntryError) Unwrap() error { return e.Err }

// StreamError reports a bundle file whose zstd stream does not decompress:
// a damaged, truncated or foreign compressed stream. The damage is in the
// file as a whole, not in any archive entry; no entry was checked and none
// can be trusted. Offset is how many bytes of the file the decoder had
// consumed when it failed (the damage lies at or before it; 0 when the
// frame header was refused). It matches ErrCorrupt.
type StreamError struct {
	Offset int64
	Err    error
}

// Error implements error.
func (e *StreamError) Error() string {
	return fmt.Sprintf("bundle: corrupt: the file's zstd stream does not decompress (%v, within its first %d bytes): the file is damaged or not a bundle; no entry was checked", e.Err, e.Offset)
}

// Is reports whether target is ErrCorrupt.
func (e *StreamError) Is(target error) bool { return target == ErrCorrupt }

// Unwrap returns the decoder's error.
func (e *StreamError) Unwrap() error { return e.Err }

// CorruptError reports the integrity problems that made [Read] fail.
// Problems holds every problem found, in check order; the first is the one
// the message names.
type CorruptError struct {
	Problems []Problem
}

// Error implements error.
func (e *CorruptError) Error() string { return "bundle: corrupt: " + summarize(e.Problems) }

// Is reports whether target is ErrCorrupt.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// InvalidError reports why [Write] refused a Bundle: the problems a reader
// would find in the written file.
type InvalidError struct {
	Problems []Problem
}

// Error implements error.
func (e *InvalidError) Error() string { return "bundle: invalid bundle: " + summarize(e.Problems) }

// Is reports whether target is ErrInvalid.
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

func summarize(ps []Problem) string {
	switch len(ps) {
	case 0:
		return "no problems recorded"
	case 1:
		return ps[0].String()
	default:
		return fmt.Sprintf("%s (and %d more)", ps[0], len(ps)-1)
	}
}
