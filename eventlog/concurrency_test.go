package eventlog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// appendLoop appends n events to each run, alternating single appends and
// small batches, and reports the first error.
func appendLoop(ctx context.Context, l *eventlog.Log, who string, runs []string, n int) error {
	for i := 0; i < n; {
		if i%3 == 0 && i+2 <= n {
			var batch []eventlog.Event
			for _, r := range runs {
				for k := range 2 {
					batch = append(batch, ev(r, eventlog.KindMetricUpdate, i+k, fmt.Sprintf(`{"who":%q,"i":%d}`, who, i+k)))
				}
			}
			if _, err := l.AppendBatch(ctx, batch); err != nil {
				return err
			}
			i += 2
			continue
		}
		for _, r := range runs {
			if _, err := l.Append(ctx, ev(r, eventlog.KindNav, i, fmt.Sprintf(`{"who":%q,"i":%d}`, who, i))); err != nil {
				return err
			}
		}
		i++
	}
	return nil
}

func TestConcurrentAppenders(t *testing.T) {
	ctx := context.Background()
	l, path := openLog(t)
	// A second *Log on the same file has its own pool and its own mutex:
	// only SQLite's locking keeps the two apart.
	l2, err := eventlog.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()

	runs := []string{"shared-1", "shared-2"}
	const goroutines, perGoroutine = 8, 15
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		log := l
		if g%2 == 1 {
			log = l2
		}
		wg.Go(func() {
			if err := appendLoop(ctx, log, "g"+strconv.Itoa(g), runs, perGoroutine); err != nil {
				errs <- err
			}
		})
	}
	// Readers run alongside the writers.
	wg.Go(func() {
		for range 20 {
			if _, err := l.Runs(ctx); err != nil {
				errs <- err
				return
			}
			if err := l.Verify(ctx, runs[0]); err != nil && !errors.Is(err, eventlog.ErrRunNotFound) {
				errs <- err
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, r := range runs {
		requireDense(t, mustEvents(t, l, r, eventlog.Query{}), r, goroutines*perGoroutine)
		if err := l2.Verify(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
}

// helperEnv makes a re-executed test binary act as a second appending process.
const helperEnv = "EVENTLOG_TEST_HELPER_DB"

// TestHelperProcess is not a real test: it is the body of the child process
// started by TestTwoProcessesAppend.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper process only")
	}
	ctx := context.Background()
	l, err := eventlog.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := appendLoop(ctx, l, "child-"+strconv.Itoa(os.Getpid()), []string{"xproc"}, 60); err != nil {
		t.Fatal(err)
	}
}

func TestTwoProcessesAppend(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	ctx := context.Background()
	l, path := openLog(t)
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperEnv+"="+path)
		out := new(bytes.Buffer)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	if err := appendLoop(ctx, l, "parent", []string{"xproc"}, 60); err != nil {
		t.Fatal(err)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v\n%s", i, err, outs[i])
		}
	}
	es := mustEvents(t, l, "xproc", eventlog.Query{})
	requireDense(t, es, "xproc", 3*60)
	writers := map[string]int{}
	for _, e := range es {
		var p struct{ Who string }
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			t.Fatal(err)
		}
		writers[p.Who]++
	}
	if len(writers) != 3 {
		t.Fatalf("events by writer %v, want 3 writers with 60 each", writers)
	}
	for w, n := range writers {
		if n != 60 {
			t.Fatalf("writer %s appended %d events, want 60", w, n)
		}
	}
	if err := l.Verify(ctx, "xproc"); err != nil {
		t.Fatal(err)
	}
}
