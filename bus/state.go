package bus

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
)

// A run's session state (the cookies and local storage its scripted login
// produced) reaches workers by core NATS request/reply on
// mv.state.<run_id>: it is never stored in a stream, so no JetStream file
// on disk holds the session's tokens. The orchestrator answers while the
// run lasts; a worker asks when it starts a branch of a run that logged in.

// statePrefix is the subject prefix of session-state requests.
const statePrefix = "mv.state."

// stateTimeout bounds one state request when ctx has no deadline.
const stateTimeout = 10 * time.Second

// ErrNoState: nobody answered a run's session-state request (its
// orchestrator is gone, or the run never logged in).
var ErrNoState = errors.New("bus: no session state for the run")

// ServeState answers the run's session-state requests with what get
// returns, until stop is called.
func (c *Client) ServeState(runID string, get func() []byte) (stop func(), err error) {
	if err := validateID("run", runID); err != nil {
		return nil, err
	}
	sub, err := c.nc.Subscribe(statePrefix+runID, func(m *nats.Msg) {
		if m.Reply != "" {
			_ = m.Respond(get())
		}
	})
	if err != nil {
		return nil, fmt.Errorf("bus: serving the state of %s: %w", runID, err)
	}
	if err := c.nc.Flush(); err != nil {
		_ = sub.Unsubscribe()
		return nil, fmt.Errorf("bus: serving the state of %s: %w", runID, err)
	}
	return func() { _ = sub.Unsubscribe() }, nil
}

// FetchState asks the run's orchestrator for its session state.
func (c *Client) FetchState(ctx context.Context, runID string) ([]byte, error) {
	if err := validateID("run", runID); err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, stateTimeout)
		defer cancel()
	}
	m, err := c.nc.RequestWithContext(ctx, statePrefix+runID, nil)
	if err != nil {
		if errors.Is(err, nats.ErrNoResponders) || errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%w %s: %v", ErrNoState, runID, err)
		}
		return nil, fmt.Errorf("bus: fetching the state of %s: %w", runID, err)
	}
	return m.Data, nil
}
