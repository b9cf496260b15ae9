package engine_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/engine"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/flow"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/sites/patterns"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// taskFile writes sites/patterns' task file name pointed at url into dir.
func taskFile(t *testing.T, dir, name, url string) string {
	t.Helper()
	raw, err := patterns.TaskFile(name, url)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEngineRunsWarm: an engine started once runs two submitted tasks one
// after the other with the same NATS server and Chromium; each gets its
// id at once, is watched to its end, and is found by that id in the
// engine, in the data dir's run list and, after the engine stopped, in
// the report stored in the data dir. A flow plays on the engine too. A
// task file that does not load is refused with the exit code of bad
// input, an unknown id is not found, a request without the engine's token
// is refused, and the engine's data dir refuses a run started apart.
func TestEngineRunsWarm(t *testing.T) {
	site := httptest.NewServer(patterns.New(patterns.Options{}))
	defer site.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	e, err := engine.Start(ctx, engine.Options{DataDir: filepath.Join(dir, "data"), PlayEnv: []string{"MULTIVERSE_NO_SUCH_VAR"}})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			e.Close()
		}
	}()
	srv := httptest.NewServer(e.Handler("s3cret"))
	defer srv.Close()
	c := engine.NewClient(srv.URL, "s3cret")
	below := taskFile(t, dir, "below.yaml", site.URL)

	var ids []string
	for i := range 2 {
		rep, err := c.Submit(ctx, engine.Request{TaskFile: below, Workers: 2})
		if err != nil {
			t.Fatalf("submit %d: %v", i, err)
		}
		if rep.ID == "" || rep.State != engine.StateQueued || rep.Task != "patterns-below" {
			t.Fatalf("submit %d answered %+v, want an id, queued, the task's name", i, rep)
		}
		var seen int
		end, err := c.Watch(ctx, rep.ID, func(orchestrator.Progress) { seen++ })
		if err != nil {
			t.Fatalf("watch %d: %v", i, err)
		}
		if end.State != engine.StateCompleted || end.ExitCode != 0 || end.Summary == nil || end.Summary.RunID != rep.ID ||
			end.Summary.Status != "goal_reached" || end.FirstActionMS <= 0 || seen == 0 {
			t.Fatalf("run %d ended %+v (%d progress lines), want completed, exit 0, goal_reached, run id %s, a first action", i, end, seen, rep.ID)
		}
		if end.Err() != nil {
			t.Fatalf("a completed run's error: %v", end.Err())
		}
		ids = append(ids, rep.ID)
	}
	l, err := eventlog.OpenReadOnly(ctx, filepath.Join(dir, "data", "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	runs, err := l.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, r := range runs {
		found[r.RunID] = true
	}
	if !found[ids[0]] || !found[ids[1]] {
		t.Fatalf("the data dir's runs %v do not hold both engine runs %v", runs, ids)
	}

	// A run cancelled while it waits never starts; the one before it ends
	// as it would.
	first, err := c.Submit(ctx, engine.Request{TaskFile: below, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Submit(ctx, engine.Request{TaskFile: below, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Cancel(ctx, second.ID); err != nil {
		t.Fatal(err)
	}
	if end, err := c.Watch(ctx, second.ID, nil); err != nil || end.State != engine.StateFailed || end.ExitCode != orchestrator.ExitInterrupted ||
		!end.Started.IsZero() || !strings.Contains(end.Error, "cancelled before it started") {
		t.Fatalf("a run cancelled while queued ended %+v (%v), want failed, exit %d", end, err, orchestrator.ExitInterrupted)
	}
	if end, err := c.Watch(ctx, first.ID, nil); err != nil || end.State != engine.StateCompleted {
		t.Fatalf("the run before the cancelled one ended %+v (%v)", end, err)
	}

	// A request a page of another site could send: a form post, JSON from
	// another origin. Both are refused, token or not.
	for _, h := range []map[string]string{{"Content-Type": "text/plain"}, {"Content-Type": "application/json", "Origin": "http://evil.test"}} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/engine/runs", strings.NewReader(`{"task_file":"`+below+`"}`))
		req.Header.Set("Authorization", "Bearer s3cret")
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("a post with %v: %s, want 403", h, resp.Status)
		}
	}

	// A flow played on the engine: the same warm browser, its own id.
	fl, err := flow.Parse("confirm.yaml", []byte("schema_version: 1\nname: confirm the terms\norigin: "+site.URL+"\n"+
		"actions:\n  - {kind: navigate, url: \""+site.URL+"/below\"}\n  - {kind: click, target: {id: confirm, role: button, name: Confirm}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := engine.FlowJSON(fl)
	if err != nil {
		t.Fatal(err)
	}
	prep, err := c.Submit(ctx, engine.Request{Flow: raw})
	if err != nil || prep.Kind != engine.KindPlay || prep.Task != "confirm the terms" {
		t.Fatalf("submit a flow: %+v, %v", prep, err)
	}
	pend, err := c.Watch(ctx, prep.ID, nil)
	if err != nil || pend.State != engine.StateCompleted || pend.Playback == nil || pend.Playback.Executed != 2 || pend.Playback.Failed != 0 {
		t.Fatalf("the playback ended %+v (%v), want completed with 2 actions executed", pend, err)
	}
	if _, err := c.Submit(ctx, engine.Request{Flow: raw, Play: engine.PlayOptions{Values: map[string]string{"1": "env:MULTIVERSE_NO_SUCH_VAR"}}}); !errors.Is(err, engine.ErrBadRequest) ||
		!strings.Contains(err.Error(), "environment has no MULTIVERSE_NO_SUCH_VAR") {
		t.Fatalf("a value from an environment variable the engine lacks: %v", err)
	}
	// A name the engine was not started with is refused, set or not.
	t.Setenv("MULTIVERSE_ENGINE_SECRET", "s3cret")
	if _, err := c.Submit(ctx, engine.Request{Flow: raw, Play: engine.PlayOptions{Values: map[string]string{"1": "env:MULTIVERSE_ENGINE_SECRET"}}}); !errors.Is(err, engine.ErrBadRequest) ||
		!strings.Contains(err.Error(), "MULTIVERSE_ENGINE_SECRET is not one") {
		t.Fatalf("a value from an environment variable the engine does not let flows read: %v", err)
	}

	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("version: 1\nname: x\nstart_url: 7\n"), 0o644)
	if _, err := c.Submit(ctx, engine.Request{TaskFile: bad}); !errors.Is(err, engine.ErrBadRequest) || orchestrator.ExitCode(err) != orchestrator.ExitBadInput {
		t.Fatalf("a bad task file: %v (exit %d), want a bad request, exit %d", err, orchestrator.ExitCode(err), orchestrator.ExitBadInput)
	}
	if _, err := c.Status(ctx, "01JD0000000000000000000000"); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("an unknown id: %v, want not found", err)
	}
	if _, err := engine.NewClient(srv.URL, "").Status(ctx, ids[0]); err == nil {
		t.Fatal("a request without the token was answered")
	}

	// The engine holds its data dir: a run started apart, or a second
	// engine, is refused and names it.
	tk, err := task.Load(below)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: filepath.Join(dir, "data"), Workers: 1}); !errors.Is(err, orchestrator.ErrBadInput) ||
		!strings.Contains(err.Error(), "orchestrator engine") {
		t.Fatalf("a run apart on the engine's data dir: %v, want bad input naming the engine", err)
	}
	if e2, err := engine.Start(ctx, engine.Options{DataDir: filepath.Join(dir, "data")}); err == nil {
		e2.Close()
		t.Fatal("a second engine started on the same data dir")
	}

	e.Close()
	closed = true
	rep, err := engine.Stored(ctx, filepath.Join(dir, "data"), ids[1])
	if err != nil || rep.State != engine.StateCompleted || rep.Summary == nil || rep.Summary.RunID != ids[1] {
		t.Fatalf("the stored report after the engine stopped: %+v, %v", rep, err)
	}
}
