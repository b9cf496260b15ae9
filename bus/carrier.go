package bus

import (
	"strings"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/propagation"
)

// HeaderCarrier adapts nats.Header to propagation.TextMapCarrier so W3C trace
// context can be injected into a job's headers by the orchestrator and
// extracted by the worker:
//
//	hdr := nats.Header{}
//	otel.GetTextMapPropagator().Inject(ctx, bus.HeaderCarrier(hdr))
//	...
//	ctx = otel.GetTextMapPropagator().Extract(ctx, bus.HeaderCarrier(job.Header))
//
// The conversion shares the map: Set writes into the original header, which
// must not be nil. Get matches keys case-insensitively (NATS headers are case
// sensitive, trace context keys are not); Set replaces every case variant of
// the key.
type HeaderCarrier nats.Header

var _ propagation.TextMapCarrier = HeaderCarrier(nil)

// Get returns the first value of key, or "".
func (h HeaderCarrier) Get(key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	for k, v := range h {
		if len(v) > 0 && strings.EqualFold(k, key) {
			return v[0]
		}
	}
	return ""
}

// Set stores value as the only value of key.
func (h HeaderCarrier) Set(key, value string) {
	for k := range h {
		if k != key && strings.EqualFold(k, key) {
			delete(h, k)
		}
	}
	h[key] = []string{value}
}

// Keys lists the keys present.
func (h HeaderCarrier) Keys() []string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	return keys
}
