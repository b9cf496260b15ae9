package bus_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/multiverse-orchestrator/multiverse/bus"
)

func TestHeaderCarrier(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		header   nats.Header
		setKey   string
		setValue string
		getKey   string
		want     string
		wantKeys []string
	}{
		{"empty", nats.Header{}, "", "", "traceparent", "", nil},
		{"exact key", nats.Header{"traceparent": {"a"}}, "", "", "traceparent", "a", []string{"traceparent"}},
		{"other case", nats.Header{"Traceparent": {"b"}}, "", "", "traceparent", "b", []string{"Traceparent"}},
		{"set replaces case variants", nats.Header{"TraceParent": {"old"}}, "traceparent", "new", "TRACEPARENT", "new", []string{"traceparent"}},
		{"set keeps other keys", nats.Header{"X-A": {"1"}}, "tracestate", "k=v", "tracestate", "k=v", []string{"X-A", "tracestate"}},
		{"empty values ignored", nats.Header{"traceparent": {}}, "", "", "traceparent", "", []string{"traceparent"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := bus.HeaderCarrier(tc.header)
			if tc.setKey != "" {
				c.Set(tc.setKey, tc.setValue)
			}
			requireEqual(t, c.Get(tc.getKey), tc.want, "Get")
			keys := c.Keys()
			slices.Sort(keys)
			if !slices.Equal(keys, tc.wantKeys) {
				t.Fatalf("Keys() = %v, want %v", keys, tc.wantKeys)
			}
		})
	}
}

// TestTraceContextRoundTrip injects a span context into a job, extracts it in
// the handler and finds it again on the result.
func TestTraceContextRoundTrip(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	c := connect(t, srv.ClientURL())
	prop := propagation.TraceContext{}

	traceID, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	spanID, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID, TraceFlags: trace.FlagsSampled})
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), sc)
	hdr := nats.Header{}
	prop.Inject(ctx, bus.HeaderCarrier(hdr))

	seen := make(chan trace.SpanContext, 1)
	work(t, c, bus.WorkerConfig{}, func(ctx context.Context, job bus.Job) ([]byte, error) {
		seen <- trace.SpanContextFromContext(prop.Extract(ctx, bus.HeaderCarrier(job.Header)))
		return nil, nil
	})
	res := results(t, c, "run-trace")
	pctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	requireNoErr(t, c.PublishJob(pctx, "run-trace", "b1", nil, hdr))

	select {
	case got := <-seen:
		requireEqual(t, got.TraceID(), traceID, "trace id in the worker")
		requireEqual(t, got.SpanID(), spanID, "parent span id in the worker")
		requireEqual(t, got.IsSampled(), true, "sampled flag")
	case <-time.After(5 * time.Second):
		t.Fatal("job not delivered")
	}
	r := nextResult(t, res, 5*time.Second)
	back := trace.SpanContextFromContext(prop.Extract(context.Background(), bus.HeaderCarrier(r.Header)))
	requireEqual(t, back.TraceID(), traceID, "trace id on the result")
}
