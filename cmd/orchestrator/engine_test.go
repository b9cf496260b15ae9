package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/sites/patterns"
)

// syncBuffer is a buffer a command writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestEngineCommands: `orchestrator engine` on a free port runs a task
// `run --engine` submits: the run's id is said at once, the summary is
// printed as a run here prints it and the exit code is the run's;
// `status ID` reports it completed, from the engine and from the data dir
// once the engine stopped; `play --engine` plays a flow on it; a flag the
// engine owns is refused with --engine, and an unknown id is bad input.
func TestEngineCommands(t *testing.T) {
	site := httptest.NewServer(patterns.New(patterns.Options{}))
	defer site.Close()
	dir := t.TempDir()
	raw, err := patterns.TaskFile("below.yaml", site.URL)
	if err != nil {
		t.Fatal(err)
	}
	taskPath := filepath.Join(dir, "below.yaml")
	os.WriteFile(taskPath, raw, 0o644)
	data := filepath.Join(dir, "data")

	ctx, cancel := context.WithCancel(context.Background())
	out, errOut := &syncBuffer{}, &syncBuffer{}
	done := make(chan int)
	go func() { done <- run(ctx, []string{"engine", "--addr", "127.0.0.1:0", "--data-dir", data}, out, errOut) }()
	addrRE := regexp.MustCompile(`at http://([0-9.:]+)/`)
	var addr string
	for deadline := time.Now().Add(time.Minute); addr == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m := addrRE.FindStringSubmatch(out.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		cancel()
		t.Fatalf("the engine did not say where it listens: %s %s", out, errOut)
	}

	var stdout, stderr bytes.Buffer
	if code := runCLI([]string{"run", "--engine", addr, "--workers", "2", taskPath}, &stdout, &stderr); code != 0 {
		cancel()
		t.Fatalf("run --engine exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	m := regexp.MustCompile(`run (\w{26}) submitted to the engine`).FindStringSubmatch(stderr.String())
	if m == nil || !strings.Contains(stdout.String(), "Multiverse run "+m[1]) || !strings.Contains(stdout.String(), "goal_reached") {
		cancel()
		t.Fatalf("run --engine said:\n%s\n%s", stdout.String(), stderr.String())
	}
	id := m[1]
	stdout.Reset()
	if code := runCLI([]string{"status", "--engine", addr, id}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "completed") {
		cancel()
		t.Fatalf("status --engine: exit %d\n%s", code, stdout.String())
	}
	dashboardSubmits(t, ctx, addr, data, taskPath)
	stdout.Reset()
	stderr.Reset()
	if code := runCLI([]string{"run", "--engine", addr, "--data-dir", dir, taskPath}, &stdout, &stderr); code != orchestrator.ExitBadInput ||
		!strings.Contains(stderr.String(), "--data-dir with --engine") {
		cancel()
		t.Fatalf("run --engine --data-dir: exit %d: %s", code, stderr.String())
	}

	flowPath := filepath.Join(dir, "confirm.yaml")
	os.WriteFile(flowPath, []byte("schema_version: 1\nname: confirm the terms\norigin: "+site.URL+"\n"+
		"actions:\n  - {kind: navigate, url: \""+site.URL+"/below\"}\n  - {kind: click, target: {id: confirm, role: button, name: Confirm}}\n"), 0o644)
	stdout.Reset()
	stderr.Reset()
	if code := runCLI([]string{"play", "--engine", addr, flowPath}, &stdout, &stderr); code != 0 ||
		!regexp.MustCompile(`playback \w{26} of "confirm the terms": completed`).MatchString(stdout.String()) {
		cancel()
		t.Fatalf("play --engine: exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	stderr.Reset()
	if code := runCLI([]string{"play", "--engine", addr, "--shots", dir, flowPath}, &stdout, &stderr); code != orchestrator.ExitBadInput ||
		!strings.Contains(stderr.String(), "--shots with --engine") {
		cancel()
		t.Fatalf("play --engine --shots: exit %d: %s", code, stderr.String())
	}

	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("the engine exited %d: %s", code, errOut)
	}
	stdout.Reset()
	if code := runCLI([]string{"status", "--data-dir", data, id}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "run "+id+": completed") ||
		!strings.Contains(stdout.String(), "exit 0, goal_reached") {
		t.Fatalf("status from the data dir: exit %d\n%s", code, stdout.String())
	}
	stderr.Reset()
	if code := runCLI([]string{"status", "--data-dir", data, "01JD0000000000000000000000"}, &stdout, &stderr); code != orchestrator.ExitBadInput ||
		!strings.Contains(stderr.String(), "no run 01JD0000000000000000000000") {
		t.Fatalf("status of an unknown id: exit %d: %s", code, stderr.String())
	}
}

// dashboardSubmits serves the engine's data dir with a dashboard that
// submits to the engine, and submits the task as the dashboard's page
// does: the run is queued, then runs to completion on the engine, and the
// dashboard shows it from the data dir the engine holds.
func dashboardSubmits(t *testing.T, ctx context.Context, engineAddr, data, taskPath string) {
	t.Helper()
	sctx, stop := context.WithCancel(ctx)
	out, errOut := &syncBuffer{}, &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(sctx, []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", data, "--engine", engineAddr}, out, errOut)
	}()
	defer func() {
		stop()
		if code := <-done; code != 0 {
			t.Errorf("serve exited %d: %s", code, errOut)
		}
	}()
	addrRE := regexp.MustCompile(`at (http://[0-9.:]+)/`)
	var base string
	for deadline := time.Now().Add(30 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m := addrRE.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
	}
	if base == "" {
		t.Fatalf("serve did not say where it listens: %s %s", out, errOut)
	}
	call := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Origin", base)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		json.NewDecoder(resp.Body).Decode(&v)
		return resp.StatusCode, v
	}
	code, rep := call("POST", "/api/engine/runs", `{"task_file":`+strconv.Quote(taskPath)+`}`)
	id, _ := rep["id"].(string)
	if code != http.StatusAccepted && code != http.StatusOK || id == "" {
		t.Fatalf("submit through the dashboard: %d %v", code, rep)
	}
	for deadline := time.Now().Add(2 * time.Minute); rep["state"] != "completed" && rep["state"] != "failed"; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("run %s did not end: %v", id, rep)
		}
		if code, rep = call("GET", "/api/engine/runs/"+id, ""); code != http.StatusOK {
			t.Fatalf("status through the dashboard: %d %v", code, rep)
		}
	}
	if rep["state"] != "completed" || rep["exit_code"] != 0.0 {
		t.Fatalf("run %s through the dashboard: %v", id, rep)
	}
	if code, v := call("GET", "/api/runs/"+id, ""); code != http.StatusOK || fmt.Sprint(v["run"]) == "<nil>" || !strings.Contains(fmt.Sprint(v["run"]), "goal_reached") {
		t.Errorf("the dashboard does not show run %s: %d %v", id, code, v)
	}
	if code, rep := call("POST", "/api/engine/runs", `{"task_file":"no-such-task.yaml"}`); code != http.StatusBadRequest || !strings.Contains(fmt.Sprint(rep["error"]), "no-such-task.yaml") {
		t.Errorf("a missing task file through the dashboard: %d %v", code, rep)
	}
}
