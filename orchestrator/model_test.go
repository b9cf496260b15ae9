package orchestrator_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	pl "github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/llm"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/rerun"
	"github.com/multiverse-orchestrator/multiverse/scrub"
	"github.com/multiverse-orchestrator/multiverse/sites"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// scriptedModel is a chat-completions endpoint that answers like a
// careful model, deterministically: it ranks the menu entries by how many
// of the goal's words they share (ties in menu order) and proposes the
// best three. With failing set it answers 500 (or failStatus when set:
// a status the client does not ask again about); with hanging set it
// answers nothing until the client gives up.
type scriptedModel struct {
	srv        *httptest.Server
	calls      atomic.Int32
	failing    atomic.Bool
	failStatus atomic.Int32
	hanging    atomic.Bool
}

var (
	menuLine = regexp.MustCompile(`(?m)^\[(\d+)\] (.*)$`)
	goalLine = regexp.MustCompile(`(?m)^Goal: (.*)$`)
)

func newScriptedModel(t *testing.T) *scriptedModel {
	m := &scriptedModel{}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.calls.Add(1)
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		if m.hanging.Load() {
			io.Copy(io.Discard, r.Body) // the server notices the client leave only once the body is read
			<-r.Context().Done()
			return
		}
		if m.failing.Load() {
			status := int(m.failStatus.Load())
			if status == 0 {
				status = http.StatusInternalServerError
			}
			w.WriteHeader(status)
			io.WriteString(w, `{"error":{"message":"the model is overloaded"}}`)
			return
		}
		var req struct {
			Model    string                     `json:"model"`
			Messages []struct{ Content string } `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) != 2 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		user := req.Messages[1].Content
		goal := map[string]bool{}
		if g := goalLine.FindStringSubmatch(user); g != nil {
			for _, w := range strings.Fields(strings.ToLower(g[1])) {
				goal[strings.Trim(w, ".,")] = true
			}
		}
		type entry struct{ id, score int }
		var entries []entry
		for _, l := range menuLine.FindAllStringSubmatch(strings.SplitN(user, "\nEmpty fields", 2)[0], -1) {
			var id int
			fmt.Sscan(l[1], &id)
			s := 0
			for _, w := range strings.Fields(strings.ToLower(l[2])) {
				if goal[strings.Trim(w, `".,`)] {
					s++
				}
			}
			entries = append(entries, entry{id, s})
		}
		sort.SliceStable(entries, func(i, j int) bool { return entries[i].score > entries[j].score })
		ranking := []int{}
		for i := 0; i < len(entries) && i < 3; i++ {
			ranking = append(ranking, entries[i].id)
		}
		content, _ := json.Marshal(map[string]any{"ranking": ranking, "values": []any{}})
		c, _ := json.Marshal(string(content))
		fmt.Fprintf(w, `{"id":"x","object":"chat.completion","model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
			req.Model, c, len(user)/4, 12, len(user)/4+12)
	}))
	t.Cleanup(m.srv.Close)
	return m
}

// modelSite serves the demo site with a short latency: the model tests
// check what the planner asks and decides, which the site's response
// time does not change, and their narrow searches run wave after wave.
func modelSite(t *testing.T) *site {
	return startSite(t, sites.Knobs{Latency: 5 * time.Millisecond})
}

// modelTask is the demo task with a model planner on m.
func modelTask(t *testing.T, s *site, m *scriptedModel) *task.Task {
	tk := narrowDemoTask(t, s)
	seed := int64(11)
	tk.Planner = task.Planner{Proposer: task.ProposerLLM, Model: "scripted-1", BaseURL: m.srv.URL + "/v1", Temperature: 0, Seed: &seed,
		MaxTokens: 256, Timeout: task.Duration(10 * time.Second), PricePrompt1K: 0.01, PriceCompletion1K: 0.03,
		Profiles: tk.Planner.Profiles}
	return tk
}

// narrowDemoTask is the demo task with a narrow search (two children a
// branch, a beam of two): the model tests need a run that asks questions
// and reaches the commit boundary, not the demo's whole tree.
func narrowDemoTask(t *testing.T, s *site) *task.Task {
	tk := demoTask(t, s.URL())
	tk.Search.BeamWidth, tk.Search.MinBeamWidth, tk.Search.MaxChildren = 2, 1, 2
	return tk
}

func runModel(t *testing.T, tk *task.Task, dir string, mode llm.Mode, cassettes string) (*orchestrator.Summary, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	return orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: dir, Workers: 4, NoScreenshots: true, ExploreOnly: true,
		NoCache: true, LLM: mode, Cassettes: cassettes})
}

func decisionsOf(t *testing.T, dir, runID string) []rerun.Decision {
	t.Helper()
	ds, err := rerun.Decisions(events(t, dir, runID))
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestModelPlannerRecordReplay: a model planner's run recorded to a
// cassette replays with the endpoint gone to the same decisions; every
// question is an llm_request / llm_response pair whose tokens are charged;
// a changed prompt is a miss that names the branch, step and fingerprint.
func TestModelPlannerRecordReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	s := modelSite(t)
	m := newScriptedModel(t)
	cassettes := filepath.Join(t.TempDir(), "cassettes")
	recDir := t.TempDir()
	rec, err := runModel(t, modelTask(t, s, m), recDir, llm.ModeRecord, cassettes)
	if err != nil {
		t.Fatalf("recording run: %v", err)
	}
	asked := int(m.calls.Load())
	if asked == 0 {
		t.Fatal("the model was never asked")
	}
	evs := events(t, recDir, rec.RunID)
	checkModelEvents(t, evs, asked)
	if mi := rec.Model; mi == nil || mi.Mode != "record" || mi.Asked != asked || mi.Answered != asked || mi.FellBack != 0 {
		t.Errorf("summary model counts = %+v, asked %d", mi, asked)
	}
	start, _ := pl.Decode[pl.RunStart](evs[0])
	if start.Proposer != "llm" || start.Model == nil || start.Model.Model != "scripted-1" || start.Model.Mode != "record" ||
		start.Model.PromptVersion == "" || start.Model.Seed == nil || *start.Model.Seed != 11 {
		t.Errorf("manifest model route = %+v (proposer %q)", start.Model, start.Proposer)
	}

	m.srv.Close() // replay never asks the endpoint
	repDir := t.TempDir()
	rep, err := runModel(t, modelTask(t, s, m), repDir, llm.ModeReplay, cassettes)
	if err != nil {
		t.Fatalf("replayed run: %v", err)
	}
	want, got := decisionsOf(t, recDir, rec.RunID), decisionsOf(t, repDir, rep.RunID)
	if c := rerun.Compare(want, got); !c.Same {
		var b strings.Builder
		c.Print(&b, 10)
		t.Fatalf("replayed decisions differ:\n%s", b.String())
	}
	if rep.Winner.PlanDigest != rec.Winner.PlanDigest {
		t.Fatalf("winner %s, recorded %s", rep.Winner.PlanDigest, rec.Winner.PlanDigest)
	}
	for _, e := range events(t, repDir, rep.RunID) {
		if e.Kind == eventlog.KindLLMResponse {
			if r, _ := pl.Decode[pl.LLMResponse](e); !r.FromCassette {
				t.Fatalf("a replayed answer did not come from the cassette: %s", e.Payload)
			}
		}
	}

	// Another goal text is another question: the cassette misses, and
	// the run says where.
	changed := modelTask(t, s, m)
	changed.Goal.Text += " Quickly."
	_, err = runModel(t, changed, t.TempDir(), llm.ModeReplay, cassettes)
	var miss *orchestrator.ModelMissError
	if !errors.As(err, &miss) || orchestrator.ExitCode(err) != orchestrator.ExitModelMiss || miss.Step != 2 || miss.Fingerprint == "" ||
		!errors.Is(err, llm.ErrMiss) {
		t.Fatalf("changed prompt: err = %v (exit %d)", err, orchestrator.ExitCode(err))
	}
	if !strings.Contains(err.Error(), "step 2") || !strings.Contains(err.Error(), miss.Fingerprint) {
		t.Errorf("the miss does not say where: %v", err)
	}

	// An entry that does not read stops the run like a miss, naming its
	// file and fingerprint; it never leaves the heuristic's order.
	checkUnreadableEntry(t, s, m, recDir, rec.RunID, cassettes)

	// A full rerun of the recorded run, the site and the model both
	// gone, asks the same questions and makes the same decisions.
	s.Server.Close(context.Background())
	checkFullRerun(t, recDir, rec, modelTask(t, s, m))
}

// checkModelEvents: each question has its answer, with tokens and a cost
// charged to the budget as a model debit.
func checkModelEvents(t *testing.T, evs []eventlog.Event, asked int) {
	t.Helper()
	reqs, resps, debits := map[string]int{}, 0, 0.0
	cost := 0.0
	for _, e := range evs {
		switch e.Kind {
		case eventlog.KindLLMRequest:
			q, err := pl.Decode[pl.LLMRequest](e)
			if err != nil || q.Fingerprint == "" || q.RequestSHA256 == "" || q.Menu == 0 || q.Mode != "record" {
				t.Fatalf("llm_request %s: %v", e.Payload, err)
			}
			reqs[q.Fingerprint]++
		case eventlog.KindLLMResponse:
			r, err := pl.Decode[pl.LLMResponse](e)
			if err != nil || reqs[r.Fingerprint] == 0 || r.PromptTokens == 0 || r.Cost <= 0 || len(r.Ranking) == 0 || r.Fallback != "" {
				t.Fatalf("llm_response %s: %v", e.Payload, err)
			}
			resps++
			cost += r.Cost
		case eventlog.KindBudgetDebit:
			var d map[string]any
			json.Unmarshal(e.Payload, &d)
			if d["what"] == "model" {
				debits += d["cost"].(float64)
			}
		}
	}
	if resps != asked {
		t.Errorf("%d answers recorded, the model was asked %d times", resps, asked)
	}
	if fmt.Sprintf("%.6f", debits) != fmt.Sprintf("%.6f", cost) || cost == 0 {
		t.Errorf("model debits %.6f, answers cost %.6f", debits, cost)
	}
}

// checkUnreadableEntry spoils the cassette entry of the recorded run's
// first question (restored after) and replays: the run stops with exit
// 9, naming the entry's file and the fingerprint.
func checkUnreadableEntry(t *testing.T, s *site, m *scriptedModel, recDir, runID, cassettes string) {
	t.Helper()
	var fp string
	for _, e := range events(t, recDir, runID) {
		if e.Kind == eventlog.KindLLMRequest {
			q, _ := pl.Decode[pl.LLMRequest](e)
			fp = q.Fingerprint
			break
		}
	}
	file := filepath.Join(cassettes, fp+".json")
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	defer os.WriteFile(file, good, 0o644)
	if err := os.WriteFile(file, good[:len(good)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := runModel(t, modelTask(t, s, m), t.TempDir(), llm.ModeReplay, cassettes)
	var miss *orchestrator.ModelMissError
	if !errors.As(err, &miss) || orchestrator.ExitCode(err) != orchestrator.ExitModelMiss || !errors.Is(err, llm.ErrCassette) {
		t.Fatalf("unreadable entry: err = %v (exit %d)", err, orchestrator.ExitCode(err))
	}
	if miss.Fingerprint != fp || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "fingerprint "+fp) {
		t.Errorf("the error does not name the entry's file and fingerprint %s: %v", fp, err)
	}
	if sum == nil || sum.Model == nil || sum.Model.FellBack != 0 {
		t.Errorf("summary = %+v", sum)
	}
}

// TestModelDownStops: a model endpoint that gives no answer (an error
// status after retries, or nothing within planner.timeout) stops the run
// with exit 11, naming the branch, the step and the cause, instead of
// going on in the heuristic's order.
func TestModelDownStops(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	s := modelSite(t)
	cases := []struct {
		name  string
		spoil func(*scriptedModel)
		want  string
		calls int32
	}{
		{"500", func(m *scriptedModel) { m.failing.Store(true) }, "endpoint answered 500: the model is overloaded", llm.DefaultAttempts},
		{"timeout", func(m *scriptedModel) { m.hanging.Store(true) }, "no answer within 1s", 1},
		{"refused", func(m *scriptedModel) { m.srv.Close() }, "connection refused", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newScriptedModel(t)
			tk := modelTask(t, s, m)
			tk.Planner.Timeout = task.Duration(time.Second)
			c.spoil(m)
			sum, err := runModel(t, tk, t.TempDir(), llm.ModeLive, "")
			var down *orchestrator.ModelDownError
			if !errors.As(err, &down) || orchestrator.ExitCode(err) != orchestrator.ExitModelDown || !errors.Is(err, llm.ErrNoAnswer) {
				t.Fatalf("err = %v (exit %d)", err, orchestrator.ExitCode(err))
			}
			if down.Step == 0 || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "planner.fallback: heuristic") {
				t.Errorf("the error does not say what and where: %v", err)
			}
			if got := m.calls.Load(); got != c.calls {
				t.Errorf("the endpoint was asked %d times, want %d", got, c.calls)
			}
			if mi := sum.Model; mi == nil || mi.Asked != 1 || mi.Answered != 0 || mi.FellBack != 0 {
				t.Errorf("summary model counts = %+v", mi)
			}
		})
	}
}

// TestModelErrorFallsBack: with planner.fallback: heuristic, a model
// that answers an error leaves the heuristic's order: the run finds the same
// winner as without a model, every answer records the fallback, and the
// summary counts them.
func TestModelErrorFallsBack(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	s := modelSite(t)
	m := newScriptedModel(t)
	m.failing.Store(true)
	// 422 is not asked again (TestModelDownStops covers the retries of a
	// 500): each question falls back after one call, without waiting.
	m.failStatus.Store(http.StatusUnprocessableEntity)
	dir := t.TempDir()
	tk := modelTask(t, s, m)
	tk.Planner.Fallback = task.FallbackHeuristic
	sum, err := runModel(t, tk, dir, llm.ModeLive, "")
	if err != nil {
		t.Fatalf("run with a failing model: %v", err)
	}
	plain, err := runTask(t, narrowDemoTask(t, s), t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Winner.PlanDigest != plain.Winner.PlanDigest || !reflect.DeepEqual(sum.Explored, plain.Explored) {
		t.Errorf("the fallback searched otherwise than the heuristic: winner %s vs %s", sum.Winner.PlanDigest, plain.Winner.PlanDigest)
	}
	n := 0
	for _, e := range events(t, dir, sum.RunID) {
		if e.Kind == eventlog.KindLLMResponse {
			r, _ := pl.Decode[pl.LLMResponse](e)
			if !strings.Contains(r.Fallback, "heuristic order") || !strings.Contains(r.Fallback, "422") || r.Cost != 0 {
				t.Fatalf("answer %s does not record the fallback", e.Payload)
			}
			n++
		}
	}
	if n == 0 || n != int(m.calls.Load()) {
		t.Fatalf("%d fallbacks recorded, %d calls (one each)", n, m.calls.Load())
	}
	if mi := sum.Model; mi == nil || mi.Asked != n || mi.FellBack != n || mi.Unanswered != n || mi.Answered != 0 {
		t.Errorf("summary model counts = %+v, %d fallbacks", mi, n)
	}
}

// checkFullRerun reruns a recorded run in full (the cassette of its
// manifest, its recorded world) and wants every decision again.
func checkFullRerun(t *testing.T, dir string, sum *orchestrator.Summary, tk *task.Task) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	el, err := eventlog.OpenReadOnly(ctx, filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer el.Close()
	store, err := artifacts.OpenFS(filepath.Join(dir, "artifacts"))
	if err != nil {
		t.Fatal(err)
	}
	key, err := scrub.ReadKey(dir, sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := rerun.Run(ctx, rerun.Options{Source: replay.Source{Events: el, Store: store}, RunID: sum.RunID, Mode: rerun.ModeFull,
		Task: tk, OutDir: t.TempDir(), Workers: 4, ScrubKey: key})
	if err != nil {
		var b strings.Builder
		if rep != nil {
			rep.Compared.Print(&b, 10)
		}
		t.Fatalf("full rerun of the model run: %v\n%s", err, b.String())
	}
	if !rep.Compared.Same || rep.Compared.Original == 0 || len(rep.Misses) > 0 {
		var b strings.Builder
		rep.Compared.Print(&b, 10)
		t.Fatalf("full rerun of the model run differs:\n%s", b.String())
	}
	// Its decisions include every question (Decisions lists them as
	// "ask"): the same questions, in the same order, answered from the
	// cassette.
	evs, _ := el.Events(ctx, sum.RunID, eventlog.Query{Kinds: []string{eventlog.KindLLMRequest}})
	if len(evs) == 0 {
		t.Fatal("the recorded run asked nothing")
	}
}
