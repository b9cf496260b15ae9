package natstest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// connect opens a client connection to urls that reconnects forever and is
// closed when the test ends.
func connect(t testing.TB, urls string) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(urls, nats.Name(t.Name()), nats.MaxReconnects(-1),
		nats.ReconnectWait(50*time.Millisecond), nats.Timeout(2*time.Second))
	requireNoErr(t, err, "connect")
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	requireNoErr(t, err, "jetstream")
	return js
}

// publishUntil publishes with a store acknowledgement, retrying while the
// stream has no leader, until ctx ends.
func publishUntil(ctx context.Context, t testing.TB, js jetstream.JetStream, subject string, data []byte) *jetstream.PubAck {
	t.Helper()
	var last error
	for {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		ack, err := js.Publish(pctx, subject, data, jetstream.WithMsgID(subject+"/"+string(data)))
		cancel()
		if err == nil {
			return ack
		}
		last = err
		select {
		case <-ctx.Done():
			t.Fatalf("publish %s: %v", subject, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// eventually polls f until it returns nil or the timeout passes.
func eventually(t testing.TB, timeout time.Duration, what string, f func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last error
	for {
		actx, acancel := context.WithTimeout(ctx, 2*time.Second)
		last = f(actx)
		acancel()
		if last == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not within %s: %v", what, timeout, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func requireNoErr(t testing.TB, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func requireErrIs(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want one matching %v", err, target)
	}
}

func requireEqual[T comparable](t testing.TB, got, want T, what string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}
