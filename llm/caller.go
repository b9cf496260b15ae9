package llm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Mode says where answers come from.
type Mode string

// Modes of a Caller.
const (
	// ModeLive asks the endpoint and keeps nothing.
	ModeLive Mode = "live"
	// ModeRecord asks the endpoint and records every answer.
	ModeRecord Mode = "record"
	// ModeReplay answers from the cassette only: a request it does not
	// hold is a *MissError, one whose entry does not read is ErrCassette
	// (naming the entry's file), and the endpoint is never asked.
	ModeReplay Mode = "replay"
)

// ParseMode reads a mode name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeLive, ModeRecord, ModeReplay:
		return m, nil
	}
	return "", fmt.Errorf("llm: mode %q: want live, record or replay", s)
}

// ErrMiss: a replay asked for a fingerprint the cassette does not hold.
var ErrMiss = errors.New("llm: cassette miss")

// MissError is a replayed request the cassette does not hold.
type MissError struct {
	Fingerprint   string
	Model         string
	PromptVersion string
	Dir           string
	// Recorded lists the prompt versions the cassette holds entries of:
	// when the request's is not among them, the prompt changed since the
	// cassette was recorded.
	Recorded []string
}

func (e *MissError) Error() string {
	msg := fmt.Sprintf("llm: cassette miss: %s holds no answer for fingerprint %s (model %s, prompt version %s)",
		e.Dir, e.Fingerprint, e.Model, short(e.PromptVersion))
	if len(e.Recorded) > 0 && !slices.Contains(e.Recorded, e.PromptVersion) {
		vs := make([]string, len(e.Recorded))
		for i, v := range e.Recorded {
			vs[i] = short(v)
		}
		msg += fmt.Sprintf("; it was recorded with prompt version %s: the prompt changed since, record it again", strings.Join(vs, ", "))
	}
	return msg
}

// Unwrap makes errors.Is(err, ErrMiss) hold.
func (e *MissError) Unwrap() error { return ErrMiss }

// Caller asks through a cassette in one mode. Client is needed for live
// and record, Cassette for record and replay.
type Caller struct {
	Client   *Client
	Cassette *Cassette
	Mode     Mode
	// Scrub, when set, is applied to the canonical request a cassette
	// entry keeps (the fingerprint is of the request as sent).
	Scrub func([]byte) []byte
}

// Reply is an answer and where it came from.
type Reply struct {
	*Response
	Fingerprint string
	// Request is the canonical request, scrubbed by Caller.Scrub.
	Request      []byte
	FromCassette bool
	Latency      time.Duration
}

// Call answers req according to the caller's mode. The error of a failed
// call still comes with the fingerprint (in the Reply, whose Response is
// nil) so the caller can record what it asked. In live and record mode an
// endpoint that gives no answer is a *NoAnswerError (ErrNoAnswer).
func (c *Caller) Call(ctx context.Context, req Request) (*Reply, error) {
	canon, err := req.Canonical()
	if err != nil {
		return nil, err
	}
	fp, _ := req.Fingerprint()
	rep := &Reply{Fingerprint: fp, Request: canon}
	if c.Scrub != nil {
		rep.Request = c.Scrub(canon)
	}
	start := time.Now()
	defer func() { rep.Latency = time.Since(start) }()
	switch c.Mode {
	case ModeReplay:
		if c.Cassette == nil {
			return rep, fmt.Errorf("llm: replay mode needs a cassette")
		}
		e, ok, err := c.Cassette.Get(ctx, fp)
		if err != nil {
			return rep, err
		}
		if !ok {
			return rep, &MissError{Fingerprint: fp, Model: req.Model, PromptVersion: req.PromptVersion, Dir: c.Cassette.Dir(),
				Recorded: c.Cassette.PromptVersions(ctx)}
		}
		resp, err := Decode(e.Response)
		if err != nil {
			return rep, fmt.Errorf("%w: %s: %v", ErrCassette, c.Cassette.path(fp), err)
		}
		rep.Response, rep.FromCassette = resp, true
		return rep, nil
	case ModeLive, ModeRecord, "":
	default:
		return rep, fmt.Errorf("llm: mode %q: want live, record or replay", c.Mode)
	}
	if c.Client == nil {
		return rep, fmt.Errorf("llm: %s mode needs an endpoint", c.Mode)
	}
	resp, err := c.Client.Complete(ctx, req)
	if err != nil {
		return rep, err
	}
	rep.Response = resp
	if c.Mode == ModeRecord {
		if c.Cassette == nil {
			return rep, fmt.Errorf("llm: record mode needs a cassette")
		}
		if err := c.Cassette.Put(Entry{Fingerprint: fp, PromptVersion: req.PromptVersion, Model: req.Model,
			Request: rep.Request, Response: resp.Body}); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func short(v string) string {
	if len(v) > 12 {
		return v[:12]
	}
	return v
}
