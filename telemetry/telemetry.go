// Package telemetry sets up OpenTelemetry tracing for Multiverse
// processes. Spans follow the run: run > branch > step, and commit; the
// trace context crosses processes in NATS message headers (W3C
// traceparent), so one trace shows the orchestrator and every worker. The
// event log records the same trace and span ids.
//
// Spans are always created (their ids are what the event log records);
// they are exported with OTLP over HTTP only when
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set.
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES describe the process
// (Resource). Span names say what ran ("run TASK", `branch click link
// "Pricing"`, "step click", "commit TASK"); a failed or pruned branch, a
// failed step, commit or run has status Error with its code or rule, any
// other ended one Ok.
package telemetry

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// TracerName is the instrumentation scope of Multiverse's spans.
const TracerName = "github.com/multiverse-orchestrator/multiverse"

var (
	mu       sync.Mutex
	provider *sdktrace.TracerProvider
)

// Setup installs the process's tracer provider and the W3C propagator. It
// exports with OTLP/HTTP when the standard environment variables name an
// endpoint; extra exporters (an in-memory one in tests) are added too.
// The returned function flushes and shuts the provider down. Setup is
// idempotent: a second call returns the existing provider's shutdown.
func Setup(ctx context.Context, service string, extra ...sdktrace.SpanExporter) (func(context.Context) error, error) {
	mu.Lock()
	defer mu.Unlock()
	if provider != nil {
		return func(context.Context) error { return nil }, nil
	}
	res, err := Resource(ctx, service)
	if err != nil {
		return nil, err
	}
	opts := []sdktrace.TracerProviderOption{
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithResource(res),
	}
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" {
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("telemetry: OTLP exporter: %w", err)
		}
		opts = append(opts, sdktrace.WithBatcher(exp))
	}
	for _, e := range extra {
		opts = append(opts, sdktrace.WithSyncer(e))
	}
	provider = sdktrace.NewTracerProvider(opts...)
	otel.SetTracerProvider(provider)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	p := provider
	return func(ctx context.Context) error {
		mu.Lock()
		if provider == p {
			provider = nil
		}
		mu.Unlock()
		return p.Shutdown(ctx)
	}, nil
}

// Resource describes the process to the telemetry backend: service.name
// (service unless OTEL_SERVICE_NAME says otherwise), service.version (the
// module's version), the SDK, and whatever OTEL_RESOURCE_ATTRIBUTES adds
// (deployment.environment=ci, say). A malformed OTEL_RESOURCE_ATTRIBUTES
// is an error that names it.
func Resource(ctx context.Context, service string) (*resource.Resource, error) {
	version := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		version = bi.Main.Version
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", service), attribute.String("service.version", version)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(), // last: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win
	)
	if err != nil {
		return nil, fmt.Errorf("telemetry: the resource (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES): %w", err)
	}
	return res, nil
}

// End ends span with the status err says: Error with its text, or Ok.
func End(span trace.Span, err error) {
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	} else {
		span.SetStatus(codes.Ok, "")
	}
	span.End()
}

// Tracer returns Multiverse's tracer from the global provider.
func Tracer() trace.Tracer { return otel.Tracer(TracerName) }

// IDs returns the hex trace and span ids of the span in ctx ("" when
// none).
func IDs(ctx context.Context) (traceID, spanID string) {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return "", ""
	}
	return sc.TraceID().String(), sc.SpanID().String()
}
