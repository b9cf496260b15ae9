package bus

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// TestRetryAPI: an unanswered API request (a cluster electing leaders) is
// asked again; a refusal is returned at once; the caller's deadline ends
// the retries.
func TestRetryAPI(t *testing.T) {
	refused := errors.New("stream name already in use with a different configuration")
	tests := []struct {
		name      string
		errs      []error // what successive calls return; nil after the list
		timeout   time.Duration
		wantCalls int
		wantErr   error
	}{
		{"answers at once", nil, time.Minute, 1, nil},
		{"unanswered twice", []error{fmt.Errorf("info: %w", context.DeadlineExceeded), nats.ErrTimeout}, time.Minute, 3, nil},
		{"refused", []error{refused}, time.Minute, 1, refused},
		{"never answered", []error{context.DeadlineExceeded, context.DeadlineExceeded, context.DeadlineExceeded, context.DeadlineExceeded,
			context.DeadlineExceeded, context.DeadlineExceeded, context.DeadlineExceeded, context.DeadlineExceeded}, 600 * time.Millisecond, 0, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			calls := 0
			err := retryAPI(ctx, func(actx context.Context) error {
				if _, ok := actx.Deadline(); !ok {
					t.Error("an attempt has no deadline")
				}
				calls++
				if calls <= len(tt.errs) {
					return tt.errs[calls-1]
				}
				return nil
			})
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.wantCalls > 0 && calls != tt.wantCalls {
				t.Fatalf("%d calls, want %d", calls, tt.wantCalls)
			}
			if tt.wantCalls == 0 && (calls < 2 || calls >= len(tt.errs)) {
				t.Fatalf("%d calls before the deadline; want a few", calls)
			}
		})
	}
}
