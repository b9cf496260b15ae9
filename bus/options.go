package bus

import (
	"fmt"
	"log/slog"
	"time"
)

// Defaults of the client options.
const (
	DefaultAckWait    = 30 * time.Second
	DefaultMaxDeliver = 4
	DefaultReplicas   = 1
	// MaxReplicas is the most replicas a JetStream stream can have.
	MaxReplicas = 5

	minAckWait = 100 * time.Millisecond
)

// defaultBackoff is the redelivery delay after a failed handler when
// WithBackoff is not given.
var defaultBackoff = [...]time.Duration{500 * time.Millisecond, 2 * time.Second, 5 * time.Second}

// Option configures a [Client]. Every option validates its argument and
// returns an error wrapping [ErrInvalidOption] when it cannot be used.
type Option func(*options) error

type options struct {
	name       string
	ackWait    time.Duration
	maxDeliver int
	backoff    []time.Duration
	replicas   int
	// replicasSet is true when WithReplicas was given: only then does
	// Connect change an existing stream's replicas (an operator's R3
	// stream is never quietly lowered to the default).
	replicasSet bool
	logger      *slog.Logger
	server      *Server // the embedded server, when the client uses one
	// publish is how PublishJob waits out a server that is away
	// (WithPublishRetry); the zero value makes one attempt.
	publish publishRetry
}

// publishRetry bounds PublishJob's attempts: each one by timeout (0: the
// caller's context alone), the n-th retry after n times backoff.
type publishRetry struct {
	attempts         int
	timeout, backoff time.Duration
}

func defaultOptions() options {
	return options{
		name:       "multiverse",
		ackWait:    DefaultAckWait,
		maxDeliver: DefaultMaxDeliver,
		backoff:    append([]time.Duration(nil), defaultBackoff[:]...),
		replicas:   DefaultReplicas,
		logger:     slog.New(slog.DiscardHandler),
	}
}

// WithPublishRetry makes PublishJob wait out a server that is away (a
// restart, a cluster election): up to attempts in all, each bounded by
// timeout, the n-th retry after n times backoff. A restarting server
// refuses publishes outright (no responders, a closed connection) as
// well as leaving them unanswered; both are retried. The job's message
// id makes a retry safe: a job that did land is de-duplicated. A full
// store (ErrStorageFull) and the caller's context ending are not
// retried. Without it, PublishJob makes one attempt.
func WithPublishRetry(attempts int, timeout, backoff time.Duration) Option {
	return func(o *options) error {
		if attempts < 1 || timeout <= 0 || backoff < 0 {
			return fmt.Errorf("%w: publish retry of %d attempts, timeout %s, backoff %s", ErrInvalidOption, attempts, timeout, backoff)
		}
		o.publish = publishRetry{attempts: attempts, timeout: timeout, backoff: backoff}
		return nil
	}
}

// WithName sets the connection name the server shows for this client
// (default "multiverse"). It must not be empty.
func WithName(name string) Option {
	return func(o *options) error {
		if name == "" {
			return fmt.Errorf("%w: empty connection name", ErrInvalidOption)
		}
		o.name = name
		return nil
	}
}

// WithAckWait sets how long the server waits for an ack or a heartbeat before
// it redelivers a job (default 30s, at least 100ms). Workers send in-progress
// heartbeats every AckWait/3. It applies to the durable consumer [Client.Work]
// creates or updates; the last worker to start wins when they disagree.
func WithAckWait(d time.Duration) Option {
	return func(o *options) error {
		if d < minAckWait {
			return fmt.Errorf("%w: ack wait %s is below %s", ErrInvalidOption, d, minAckWait)
		}
		o.ackWait = d
		return nil
	}
}

// WithMaxDeliver sets how many times a job is delivered before it is given up
// and reported by [Client.DeadJobs] (default 4, at least 1).
func WithMaxDeliver(n int) Option {
	return func(o *options) error {
		if n < 1 {
			return fmt.Errorf("%w: max deliver %d is below 1", ErrInvalidOption, n)
		}
		o.maxDeliver = n
		return nil
	}
}

// WithBackoff sets the redelivery delays after a failed handler: the n-th
// failure of a job waits d[n-1] before the job is delivered again, the last
// value repeating (default 500ms, 2s, 5s). At least one delay is needed and none may be negative; a
// zero delay redelivers at once. The delays are applied by the worker (a
// delayed nak), not by the consumer configuration, so AckWait keeps governing
// heartbeats and crashed workers.
func WithBackoff(d ...time.Duration) Option {
	return func(o *options) error {
		if len(d) == 0 {
			return fmt.Errorf("%w: backoff needs at least one delay", ErrInvalidOption)
		}
		for _, v := range d {
			if v < 0 {
				return fmt.Errorf("%w: negative backoff delay %s", ErrInvalidOption, v)
			}
		}
		o.backoff = append([]time.Duration(nil), d...)
		return nil
	}
}

// WithReplicas sets the replica count of the streams Connect creates or
// updates (default 1; 1 to 5, and never more than the cluster has servers).
func WithReplicas(n int) Option {
	return func(o *options) error {
		if n < 1 || n > MaxReplicas {
			return fmt.Errorf("%w: replicas %d not in 1..%d", ErrInvalidOption, n, MaxReplicas)
		}
		o.replicas, o.replicasSet = n, true
		return nil
	}
}

// WithLogger sets the logger for connection events and worker failures
// (default: discard). It must not be nil.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error {
		if l == nil {
			return fmt.Errorf("%w: nil logger", ErrInvalidOption)
		}
		o.logger = l
		return nil
	}
}

// backoffFor returns the delay before the next delivery after the given
// failed attempt (1-based).
func (o *options) backoffFor(attempt int) time.Duration {
	if len(o.backoff) == 0 {
		return 0
	}
	i := attempt - 1
	if i < 0 {
		i = 0
	}
	if i >= len(o.backoff) {
		i = len(o.backoff) - 1
	}
	return o.backoff[i]
}

// WithServer tells the client it talks to this embedded server: when the
// server reports its storage full (the disk under its store, or its
// storage limit), publishing fails at once with an error wrapping
// [ErrStorageFull] that names the store, instead of waiting for an answer
// a server that cannot write never sends. It must not be nil.
func WithServer(s *Server) Option {
	return func(o *options) error {
		if s == nil {
			return fmt.Errorf("%w: nil server", ErrInvalidOption)
		}
		o.server = s
		return nil
	}
}
