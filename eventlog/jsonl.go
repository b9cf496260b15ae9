package eventlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// WriteJSONL writes es to w as JSON Lines: one event per line in the JSON
// form of [Event], without HTML escaping. Payloads are written compacted,
// which leaves the canonical payloads of stored events unchanged, so
// [ReadJSONL] gives back events equal to the stored ones that still verify.
// It returns the first write or encoding error.
func WriteJSONL(w io.Writer, es []Event) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range es {
		if err := enc.Encode(&es[i]); err != nil {
			return fmt.Errorf("eventlog: write jsonl: event %d: %w", i, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("eventlog: write jsonl: %w", err)
	}
	return nil
}

// ReadJSONL reads events written by [WriteJSONL]. Each non-blank line must
// hold exactly one JSON object with only the fields of [Event] and be at
// most [MaxEventBytes] long (a trailing "\r" is tolerated). Errors are
// [*LineError] values carrying the 1-based line number. ReadJSONL does not
// verify the chain; pass the result to [VerifyChain].
func ReadJSONL(r io.Reader) ([]Event, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), MaxEventBytes+2) // room for "\r\n"
	var out []Event
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSuffix(sc.Bytes(), []byte{'\r'})
		if len(b) > MaxEventBytes {
			return nil, &LineError{Line: line, Err: fmt.Errorf("line is %d bytes, the limit is %d", len(b), MaxEventBytes)}
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		e, err := decodeEventLine(b)
		if err != nil {
			return nil, &LineError{Line: line, Err: err}
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &LineError{Line: line + 1, Err: fmt.Errorf("line longer than %d bytes", MaxEventBytes)}
		}
		return nil, &LineError{Line: line + 1, Err: err}
	}
	return out, nil
}

// decodeEventLine decodes one JSON Lines record strictly.
func decodeEventLine(b []byte) (Event, error) {
	if t := bytes.TrimLeft(b, " \t"); len(t) == 0 || t[0] != '{' {
		return Event{}, errors.New("not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var e Event
	if err := dec.Decode(&e); err != nil {
		return Event{}, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Event{}, errors.New("unexpected data after the event object")
	}
	if len(e.Artifacts) == 0 {
		e.Artifacts = nil
	}
	return e, nil
}
