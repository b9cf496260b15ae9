package dashboard_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/multiverse-orchestrator/multiverse/dashboard"
)

// seen is a request the stand-in engine received.
type seen struct {
	method, path, query, auth, origin, cookie, ctype, body string
}

// TestEngineForwarding: the dashboard forwards the engine's three
// requests after its own checks, as the engine's own client sends them
// (the engine's token, none of the browser's credentials, origin or
// query), refuses what its guard refuses without forwarding it, and says
// so when there is no engine or it does not answer. The engine end to end
// is TestEngineCommands (cmd/orchestrator).
func TestEngineForwarding(t *testing.T) {
	var mu sync.Mutex
	var got []seen
	eng := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"), r.Header.Get("Origin"),
			r.Header.Get("Cookie"), r.Header.Get("Content-Type"), string(b)})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"01JD0000000000000000000001","state":"queued"}`)
	}))
	defer eng.Close()
	st := syntheticStores(t)
	dash := serve(t, st, dashboard.WithToken("dash-token"), dashboard.WithEngine(eng.Listener.Addr().String(), "engine-token"))
	plain := serve(t, st)

	do := func(method, url, body string, hdr map[string]string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	browser := map[string]string{"Authorization": "Bearer dash-token", "Origin": dash.URL, "Cookie": "a=b", "Content-Type": "application/json"}
	if code, body := do("POST", dash.URL+"/api/engine/runs?token=dash-token", `{"task_file":"t.yaml"}`, browser); code != 200 || !strings.Contains(body, `"queued"`) {
		t.Fatalf("submit: %d %s", code, body)
	}
	if code, _ := do("GET", dash.URL+"/api/engine/runs/01JD0000000000000000000001", "", map[string]string{"Authorization": "Bearer dash-token"}); code != 200 {
		t.Fatalf("status: %d", code)
	}
	if code, _ := do("POST", dash.URL+"/api/engine/runs/01JD0000000000000000000001/cancel", "", browser); code != 200 {
		t.Fatalf("cancel: %d", code)
	}
	// Refused by the dashboard: never forwarded.
	if code, _ := do("POST", dash.URL+"/api/engine/runs", `{"task_file":"t.yaml"}`, map[string]string{"Authorization": "Bearer dash-token", "Origin": "http://evil.example"}); code != 403 {
		t.Errorf("cross-origin submit: %d, want 403", code)
	}
	if code, _ := do("POST", dash.URL+"/api/engine/runs", `{"task_file":"t.yaml"}`, nil); code != 401 {
		t.Errorf("submit without the dashboard's token: %d, want 401", code)
	}
	if code, _ := do("DELETE", dash.URL+"/api/engine/runs/x", "", map[string]string{"Authorization": "Bearer dash-token"}); code != 405 {
		t.Errorf("a request the engine's API does not have: %d, want 405", code)
	}
	want := []seen{
		{"POST", "/api/engine/runs", "", "Bearer engine-token", "", "", "application/json", `{"task_file":"t.yaml"}`},
		{"GET", "/api/engine/runs/01JD0000000000000000000001", "", "Bearer engine-token", "", "", "", ""},
		{"POST", "/api/engine/runs/01JD0000000000000000000001/cancel", "", "Bearer engine-token", "", "", "application/json", ""},
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != len(want) {
		t.Fatalf("the engine received %d requests, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("request %d: %+v, want %+v", i+1, got[i], want[i])
		}
	}

	var in dashboard.Info
	_, body := do("GET", dash.URL+"/api/info", "", map[string]string{"Authorization": "Bearer dash-token"})
	if err := json.Unmarshal([]byte(body), &in); err != nil || !in.Engine || !in.ReadOnly {
		t.Errorf("info with an engine: %s %v", body, err)
	}
	if code, body := do("POST", plain.URL+"/api/engine/runs", `{}`, map[string]string{"Content-Type": "application/json"}); code != 404 || !strings.Contains(body, "--engine") {
		t.Errorf("no engine: %d %s", code, body)
	}
	eng.Close()
	if code, body := do("GET", dash.URL+"/api/engine/runs/x", "", map[string]string{"Authorization": "Bearer dash-token"}); code != 502 || !strings.Contains(body, "does not answer") {
		t.Errorf("the engine away: %d %s", code, body)
	}
	if _, err := dashboard.New(st, dashboard.WithEngine("ftp://x", "")); !errors.Is(err, dashboard.ErrInvalidOption) {
		t.Errorf("an ftp engine address: %v", err)
	}
}

// TestUIEngineSubmit: with an engine, the runs page has a form that
// submits a task file; a file the engine refuses says why there, and an
// accepted run is followed while queued and opened once the data dir
// shows it (the stand-in engine answers with a run the stores hold).
func TestUIEngineSubmit(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	st := syntheticStores(t)
	var list dashboard.RunList
	getJSON(t, serve(t, st).URL+"/api/runs", http.StatusOK, &list)
	if len(list.Runs) == 0 {
		t.Fatal("no synthetic runs")
	}
	id := list.Runs[0].RunID
	var mu sync.Mutex
	polls := 0
	eng := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		var req struct {
			TaskFile string `json:"task_file"`
		}
		switch {
		case r.Method == "POST" && json.NewDecoder(r.Body).Decode(&req) == nil && req.TaskFile == "missing.yaml":
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":"engine: bad request: task file missing.yaml: no such file","code":2}`)
		case r.Method == "POST":
			w.WriteHeader(http.StatusAccepted)
			json.NewEncoder(w).Encode(map[string]string{"id": id, "state": "queued"})
		default:
			mu.Lock()
			polls++
			state := "queued"
			if polls > 2 {
				state = "running"
			}
			mu.Unlock()
			json.NewEncoder(w).Encode(map[string]string{"id": id, "state": state})
		}
	}))
	defer eng.Close()
	ts := serve(t, st, dashboard.WithEngine(eng.URL, ""))
	page := newPage(t)
	if _, err := page.Goto(ts.URL + "/#/"); err != nil {
		t.Fatal(err)
	}
	field := page.GetByLabel("Task file on the engine's machine")
	must(t, field.Fill("missing.yaml"))
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Run", Exact: playwright.Bool(true)}).Click())
	refused := page.Locator("#engine-status.error")
	must(t, refused.WaitFor())
	if msg, _ := refused.TextContent(); !strings.Contains(msg, "missing.yaml: no such file") {
		t.Errorf("a refused task file says %q", msg)
	}
	must(t, field.Fill("tasks/good.yaml"))
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Run", Exact: playwright.Bool(true)}).Click())
	must(t, page.Locator("button.node").First().WaitFor())
	if !strings.HasSuffix(page.URL(), "#/runs/"+id) {
		t.Errorf("after the run started the page is %s", page.URL())
	}
	mu.Lock()
	defer mu.Unlock()
	if polls < 3 {
		t.Errorf("the page opened the run after %d status polls, before the engine started it", polls)
	}
}
