package eventlog_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

func Example() {
	dir, err := os.MkdirTemp("", "eventlog-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	log, err := eventlog.Open(ctx, filepath.Join(dir, "events.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer log.Close()

	const run = "01HZX3K5V7Q8R9S0T1U2V3W4X5"
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	_, err = log.AppendBatch(ctx, []eventlog.Event{
		{RunID: run, Kind: eventlog.KindRunStart, Time: at, Payload: []byte(`{"seed": 42}`)},
		{RunID: run, Kind: eventlog.KindNav, Time: at.Add(time.Second), BranchID: "01HZX3K6000000000000000001",
			Payload: []byte(`{"url": "https://vendor.example/pricing", "status": 200}`)},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	events, err := log.Events(ctx, run, eventlog.Query{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range events {
		fmt.Println(eventlog.Pretty(e))
	}
	fmt.Println("verify:", log.Verify(ctx, run))
	// Output:
	// 2026-03-01T10:00:00.000Z #1 run_start     seed=42
	// 2026-03-01T10:00:01.000Z #2 nav           br:…00000001 status=200 url=https://vendor.example/pricing
	// verify: <nil>
}
