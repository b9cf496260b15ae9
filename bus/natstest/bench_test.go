package natstest

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// BenchmarkPublishSyncAlways measures one acknowledged publish to a file
// stream of an external server with sync_interval always: the cost of the
// fsync every write pays before its acknowledgement. Multiverse pays it
// twice per branch step (the job and its result), so this bounds the step
// rate one stream leader sustains on the disk under test.
func BenchmarkPublishSyncAlways(b *testing.B) {
	for _, size := range []struct {
		name  string
		bytes int
	}{{"1KiB", 1 << 10}, {"64KiB", 64 << 10}} {
		b.Run(size.name, func(b *testing.B) {
			s := Start(b)
			js := connect(b, s.URL)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			_, err := js.CreateStream(ctx, jetstream.StreamConfig{
				Name: "BENCH", Subjects: []string{"bench"}, Storage: jetstream.FileStorage,
			})
			requireNoErr(b, err, "create stream")
			payload := make([]byte, size.bytes)
			b.SetBytes(int64(size.bytes))
			for b.Loop() {
				if _, err := js.Publish(ctx, "bench", payload); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
