package bus

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// JetStream API error codes of a store that is out of space: the
// server's storage limit, and a stream's share of it.
const (
	errCodeInsufficientResources        jetstream.ErrorCode = 10023
	errCodeStorageResourcesExceeded     jetstream.ErrorCode = 10047
	errCodeAccountStorageLimitsExceeded jetstream.ErrorCode = 10002
)

// store runs publish, which stores one message in JetStream, and reports
// a store out of space as an error wrapping [ErrStorageFull]. With an
// embedded server ([WithServer]) it also stops waiting as soon as that
// server reports its storage full: a write that failed on a full disk is
// never answered.
func (c *Client) store(ctx context.Context, publish func(context.Context) error) error {
	if s := c.opts.server; s != nil {
		if err := s.StorageErr(); err != nil {
			return err
		}
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(s.full, func() { cancel(s.StorageErr()) })
		defer stop()
	}
	err := publish(ctx)
	if err == nil {
		return nil
	}
	if cause := context.Cause(ctx); errors.Is(cause, ErrStorageFull) {
		return cause
	}
	var api *jetstream.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode {
		case errCodeInsufficientResources, errCodeStorageResourcesExceeded, errCodeAccountStorageLimitsExceeded:
			if s := c.opts.server; s != nil && s.StorageErr() != nil {
				return s.StorageErr()
			}
			return fmt.Errorf("%w: %w", ErrStorageFull, err)
		}
	}
	return err
}
