package eventlog_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// benchEvent is a typical action_end event.
func benchEvent(i int) eventlog.Event {
	e := ev("bench-run", eventlog.KindActionEnd, i,
		fmt.Sprintf(`{"status":"ok","action":"click","selector":"[data-testid=buy]","duration_ms":%d,"url":"https://vendor.example/pricing"}`, i%500))
	e.BranchID = "01HZX3K6000000000000000001"
	e.TraceID, e.SpanID = traceID, spanID
	return e
}

func BenchmarkAppend(b *testing.B) {
	ctx := context.Background()
	l, _ := openLog(b)
	i := 0
	for b.Loop() {
		i++
		if _, err := l.Append(ctx, benchEvent(i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendBatch100 appends batches of 100 events; ns/event is the
// amortized cost of one event.
func BenchmarkAppendBatch100(b *testing.B) {
	ctx := context.Background()
	l, _ := openLog(b)
	batch := make([]eventlog.Event, 100)
	n := 0
	for b.Loop() {
		for j := range batch {
			n++
			batch[j] = benchEvent(n)
		}
		if _, err := l.AppendBatch(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/event")
}

func BenchmarkVerify1000(b *testing.B) {
	ctx := context.Background()
	l, _ := openLog(b)
	batch := make([]eventlog.Event, 1000)
	for j := range batch {
		batch[j] = benchEvent(j)
	}
	if _, err := l.AppendBatch(ctx, batch); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := l.Verify(ctx, "bench-run"); err != nil {
			b.Fatal(err)
		}
	}
}
