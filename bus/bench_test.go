package bus_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/bus"
)

// BenchmarkJobRoundTrip measures one orchestrator step's bus overhead on
// loopback: PublishJob (stored, acked) -> worker handler -> result stored ->
// result read by the orchestrator. It reports the median and p99 latency.
//
// The store syncs every write, so on a real disk the numbers are dominated by
// fsync latency; the "tmpfs" case (when /dev/shm exists) shows the bus's own
// overhead.
func BenchmarkJobRoundTrip(b *testing.B) {
	stores := []struct{ name, parent string }{{"disk", ""}}
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		stores = append(stores, struct{ name, parent string }{"tmpfs", "/dev/shm"})
	}
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			dir := b.TempDir()
			if st.parent != "" {
				var err error
				dir, err = os.MkdirTemp(st.parent, "mv-bus-bench-")
				requireNoErr(b, err)
				b.Cleanup(func() { _ = os.RemoveAll(dir) })
			}
			benchRoundTrip(b, startServerIn(b, dir))
		})
	}
}

func benchRoundTrip(b *testing.B, srv *bus.Server) {
	orch := connect(b, srv.ClientURL(), bus.WithName("orchestrator"))
	wk := connect(b, srv.ClientURL(), bus.WithName("worker"))
	work(b, wk, bus.WorkerConfig{}, func(ctx context.Context, job bus.Job) ([]byte, error) {
		return job.Data, nil
	})
	res := results(b, orch, "run-bench")
	ctx := context.Background()
	payload := []byte(`{"action":"click","target":{"testid":"buy"}}`)

	var lat []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		if err := orch.PublishJob(ctx, "run-bench", "b"+strconv.Itoa(i), payload, nil); err != nil {
			b.Fatal(err)
		}
		nextResult(b, res, 10*time.Second)
		lat = append(lat, time.Since(start))
		i++
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
