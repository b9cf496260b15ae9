package ledger

import (
	"crypto/rand"
	"fmt"
	"io"
	"time"
)

// Option configures Open. Options validate their argument and make Open fail
// with an error wrapping ErrInvalid when it is unusable.
type Option func(*options) error

type options struct {
	now         func() time.Time
	busyTimeout time.Duration
	entropy     io.Reader
}

func defaultOptions() options {
	return options{now: time.Now, busyTimeout: 10 * time.Second, entropy: rand.Reader}
}

// WithEntropy sets the source of the random part of entry ULIDs (default
// crypto/rand), so that fixtures can be reproduced byte for byte with
// WithClock. r must not be nil and must not run dry.
func WithEntropy(r io.Reader) Option {
	return func(o *options) error {
		if r == nil {
			return fmt.Errorf("%w: WithEntropy: nil reader", ErrInvalid)
		}
		o.entropy = r
		return nil
	}
}

// WithClock sets the clock that stamps CreatedAt, UpdatedAt and transition
// times (and the time part of entry ULIDs). The default is time.Now. Times
// are stored in UTC with nanosecond precision. now must not be nil.
func WithClock(now func() time.Time) Option {
	return func(o *options) error {
		if now == nil {
			return fmt.Errorf("%w: WithClock: nil clock", ErrInvalid)
		}
		o.now = now
		return nil
	}
}

// WithBusyTimeout sets how long a write waits for another connection or
// process holding the SQLite write lock before failing with SQLITE_BUSY. The
// default is 10s; d must be at least 1ms.
func WithBusyTimeout(d time.Duration) Option {
	return func(o *options) error {
		if d < time.Millisecond {
			return fmt.Errorf("%w: WithBusyTimeout: %v is below 1ms", ErrInvalid, d)
		}
		o.busyTimeout = d
		return nil
	}
}
