package dashboard_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/dashboard"
)

// sseEvent is one server-sent event.
type sseEvent struct {
	kind string
	data string
}

// readSSE delivers the events of an event stream until it ends.
func readSSE(t testing.TB, resp *http.Response) <-chan sseEvent {
	ch := make(chan sseEvent, 64)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.kind != "" {
					ch <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "event: "):
				ev.kind = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data += strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	return ch
}

// next waits for the next event of the given kind, skipping others.
func next(t testing.TB, ch <-chan sseEvent, kind string, v any) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("the stream ended before a %q event", kind)
			}
			if ev.kind != kind {
				continue
			}
			if err := json.Unmarshal([]byte(ev.data), v); err != nil {
				t.Fatalf("%s event: %v: %s", kind, err, ev.data)
			}
			return
		case <-deadline:
			t.Fatalf("no %q event within 10s", kind)
		}
	}
}

// TestStreamFollowsAnotherWriter: a run written by another handle (as by
// another process) streams its snapshot, then each branch as it is
// forked and scored, then its end, after which the stream closes.
func TestStreamFollowsAnotherWriter(t *testing.T) {
	s := newSynthLog(t)
	r := s.start(t, "live")
	r.forks(t, 2)
	ts := serve(t, openStores(t, s.dir), dashboard.WithPollInterval(20*time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/runs/"+r.id+"/stream", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	ch := readSSE(t, resp)
	var snap dashboard.RunDetail
	next(t, ch, "snapshot", &snap)
	if len(snap.Branches) != 2 || snap.Run.Outcome != dashboard.OutcomeRunning || snap.Run.Task != "live" {
		t.Fatalf("snapshot %+v", snap)
	}

	r.forks(t, 1)
	var b dashboard.Branch
	next(t, ch, "branch", &b)
	if b.ID != r.ids[2] || b.Status != dashboard.StatusOpen {
		t.Errorf("first update %+v, want the new branch %s open", b, r.ids[2])
	}
	next(t, ch, "branch", &b)
	if b.ID != r.ids[2] || !b.Scored || b.Status != dashboard.StatusExplored {
		t.Errorf("second update %+v, want %s scored", b, r.ids[2])
	}
	var run dashboard.Run
	next(t, ch, "run", &run)
	if run.Branches != 3 {
		t.Errorf("run %+v, want 3 branches", run)
	}

	r.end(t, "no_boundary")
	next(t, ch, "end", &run)
	if run.Outcome != "no_boundary" {
		t.Errorf("end %+v", run)
	}
	select {
	case _, ok := <-ch:
		if ok {
			t.Errorf("an event after end")
		}
	case <-time.After(5 * time.Second):
		t.Errorf("the stream stayed open after the run ended")
	}
}

func TestStreamUnknownRun(t *testing.T) {
	getJSON(t, serve(t, syntheticStores(t)).URL+"/api/runs/01NOSUCHRUN/stream", http.StatusNotFound, nil)
}
