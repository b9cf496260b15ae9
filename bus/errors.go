package bus

import (
	"errors"
	"fmt"
)

var (
	// ErrInvalidOption is wrapped by every error an [Option] returns.
	ErrInvalidOption = errors.New("bus: invalid option")

	// ErrInvalidConfig is wrapped by errors about a [ServerConfig] or a
	// [WorkerConfig] that cannot be used.
	ErrInvalidConfig = errors.New("bus: invalid config")

	// ErrInvalidID is wrapped by errors about a run or branch id that is not a
	// single NATS subject token.
	ErrInvalidID = errors.New("bus: invalid id")

	// ErrMalformedMessage is wrapped by every [*DecodeError].
	ErrMalformedMessage = errors.New("bus: malformed message")

	// ErrRunCancelled is the context cause a handler observes
	// (context.Cause(ctx)) when its run was cancelled with [Client.Cancel].
	ErrRunCancelled = errors.New("bus: run cancelled")

	// ErrStorageFull is wrapped by errors of publishing a job or a result
	// that JetStream could not store because its storage is full: the
	// disk under the store, or the server's storage limit. Retrying does
	// not help until space is freed.
	ErrStorageFull = errors.New("bus: JetStream storage is full")

	// ErrServerStart is wrapped by errors of [StartEmbedded] when the server
	// itself failed (listen error, store error) rather than the configuration.
	ErrServerStart = errors.New("bus: embedded server failed to start")

	// ErrListen is wrapped (with [ErrServerStart]) by errors of
	// [StartEmbedded] when the server cannot listen on the address it was
	// given: the port is taken, the host is not this machine's, or binding
	// it is not allowed. The caller's address is at fault, not the server.
	ErrListen = errors.New("bus: cannot listen on the address")
)

// DecodeError reports a message on one of the bus subjects that does not have
// the shape this package writes: a job, a result, a control message or a
// max-deliveries advisory. It unwraps to [ErrMalformedMessage].
type DecodeError struct {
	Kind    string // "job", "result", "control" or "advisory"
	Subject string // the message subject, when known
	Reason  string // what is wrong, for people
}

// Error describes the message and what is wrong with it.
func (e *DecodeError) Error() string {
	if e.Subject == "" {
		return fmt.Sprintf("bus: malformed %s message: %s", e.Kind, e.Reason)
	}
	return fmt.Sprintf("bus: malformed %s message on %q: %s", e.Kind, e.Subject, e.Reason)
}

// Unwrap returns [ErrMalformedMessage].
func (e *DecodeError) Unwrap() error { return ErrMalformedMessage }
