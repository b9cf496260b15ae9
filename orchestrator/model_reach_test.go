package orchestrator_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/llm"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// knowingModel is a chat-completions endpoint that knows what the goal's
// words do not say: it ranks first the menu entry whose line holds
// entry, and gives value to the empty field whose line holds field.
func knowingModel(t *testing.T, entry, field, value string) *httptest.Server {
	line := regexp.MustCompile(`(?m)^\[(\d+)\] (.*)$`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string                     `json:"model"`
			Messages []struct{ Content string } `json:"messages"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) != 2 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		user := req.Messages[1].Content
		menu, fields, _ := strings.Cut(user, "\nEmpty fields")
		ranking, values := []int{}, []map[string]any{}
		for _, l := range line.FindAllStringSubmatch(menu, -1) {
			var id int
			fmt.Sscan(l[1], &id)
			if entry != "" && strings.Contains(l[2], entry) {
				ranking = append(ranking, id)
			}
		}
		for _, l := range line.FindAllStringSubmatch(fields, -1) {
			var id int
			fmt.Sscan(l[1], &id)
			if field != "" && strings.Contains(l[2], field) {
				ranking = append(ranking, id)
				values = append(values, map[string]any{"id": id, "value": value})
			}
		}
		content, _ := json.Marshal(map[string]any{"ranking": ranking, "values": values})
		c, _ := json.Marshal(string(content))
		fmt.Fprintf(w, `{"id":"x","object":"chat.completion","model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":10,"total_tokens":110}}`,
			req.Model, c)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// reachSite serves a directory whose goal page is linked last, in the
// footer, by words the goal does not use, and a sign-up form whose
// company the goal describes without naming it.
func reachSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		var links strings.Builder
		for _, n := range []string{"Products", "Solutions", "Customers", "Careers", "Blog", "Events", "Partners", "Press"} {
			fmt.Fprintf(&links, `<li><a href="/%s">%s</a></li>`, strings.ToLower(n), n)
		}
		fmt.Fprintf(w, `<!doctype html><title>Orbit</title><nav><ul>%s</ul></nav><main><h1>Orbit</h1><p>Welcome.</p></main>
<footer><a href="/ir">Investor relations</a></footer>`, links.String())
	})
	mux.HandleFunc("/ir", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Investor relations</title><main><h1>Annual report 2026</h1></main>`)
	})
	for _, n := range []string{"products", "solutions", "customers", "careers", "blog", "events", "partners", "press"} {
		mux.HandleFunc("/"+n, func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `<!doctype html><title>%s</title><main><h1>%s</h1><p>Nothing here.</p></main>`, n, n)
		})
	}
	mux.HandleFunc("/signup", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Sign up</title><main><h1>Sign up</h1>
<label>Company <input id=company></label> <button id=go>Continue</button><p id=out></p></main>
<script>document.getElementById('go').onclick = () => {
  const v = document.getElementById('company').value;
  document.getElementById('out').textContent = v === 'Acme Robotics' ? 'Registered Acme Robotics' : 'Unknown company';
};</script>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// reachTask is a task without commit on site, with a budget too small for
// the heuristic to try everything: one child per branch, a beam of one.
func reachTask(t *testing.T, site, path, goal, success string, model *httptest.Server) *task.Task {
	t.Helper()
	src := fmt.Sprintf(`start_url: %s%s
goal:
  text: %q
  success:
    - %s
budgets: {wall_clock: 2m, steps_per_branch: 3, total_branches: 3}
search: {strategy: beam, beam_width: 1, min_beam_width: 1, max_children: 1, workers: 1}
`, site, path, goal, success)
	if model != nil {
		src += fmt.Sprintf("planner: {proposer: llm, model: knowing-1, base_url: %q, timeout: 10s}\n", model.URL+"/v1")
	}
	tk, err := task.Parse("reach.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// TestModelPlannerReachesBeyondTheHeuristic: the model planner, asked
// through a real chat-completions endpoint, reaches a goal in real
// Chromium that the heuristic alone does not within the same budget,
// when the model ranks first an element the heuristic puts last, and when
// it supplies a field value the goal text does not quote.
func TestModelPlannerReachesBeyondTheHeuristic(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	site := reachSite(t)
	cases := []struct {
		name, path, goal, success string
		model                     *httptest.Server
	}{
		{"ranks the last entry first", "/", "Find this year's annual report.", "{name: report, url_matches: /ir$}",
			knowingModel(t, "Investor relations", "", "")},
		{"supplies a value the goal does not quote", "/signup", "Sign up the robot maker we met in Lisbon.",
			`{name: registered, text: {selector: "#out", equals: "Registered Acme Robotics"}}`,
			knowingModel(t, "", "Company", "Acme Robotics")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, withModel := range []bool{false, true} {
				var m *httptest.Server
				if withModel {
					m = c.model
				}
				tk := reachTask(t, site.URL, c.path, c.goal, c.success, m)
				sum, err := runModel(t, tk, t.TempDir(), llm.ModeLive, "")
				reached := err == nil && sum.Status == "goal_reached"
				if withModel && !reached {
					t.Fatalf("with the model: status %v, err %v (exit %d)", statusOf(sum), err, orchestrator.ExitCode(err))
				}
				if !withModel && reached {
					t.Fatalf("the heuristic alone reached the goal within the budget: the case does not test the model's reach")
				}
				if withModel && (sum.Model == nil || sum.Model.Answered == 0) {
					t.Fatalf("the model was not asked: %+v", sum.Model)
				}
			}
		})
	}
}

func statusOf(s *orchestrator.Summary) string {
	if s == nil {
		return "(no summary)"
	}
	return s.Status
}
