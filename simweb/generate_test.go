package simweb

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/planner"
	"github.com/multiverse-orchestrator/multiverse/scoring"
)

// fingerprint is a site's structure with its seed and origin left out.
func fingerprint(t testing.TB, s *Site) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	out := strings.ReplaceAll(string(b), s.Origin, "{origin}")
	return strings.ReplaceAll(out, `"Seed":`+itoa(int(s.Seed)), `"Seed":0`)
}

func TestGenerateIsDeterministic(t *testing.T) {
	for _, seed := range []int64{1, 2, 42, -7, 1 << 40} {
		a, b := Generate(seed, DefaultConfig()), Generate(seed, DefaultConfig())
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("seed %d: two generations differ", seed)
		}
		if string(a.TaskYAML("beam")) != string(b.TaskYAML("beam")) {
			t.Fatalf("seed %d: task files differ", seed)
		}
		if a.Origin != "http://sim-"+itoa(int(seed))+".test" {
			t.Fatalf("seed %d: origin %s", seed, a.Origin)
		}
	}
	distinct := map[string]bool{}
	for seed := int64(1); seed <= 50; seed++ {
		distinct[fingerprint(t, Generate(seed, DefaultConfig()))] = true
	}
	if len(distinct) < 50 {
		t.Fatalf("50 seeds gave only %d distinct site structures", len(distinct))
	}
}

func TestConfig(t *testing.T) {
	count := func(cfg Config) (traps, paid int) {
		for seed := int64(0); seed < 400; seed++ {
			s := Generate(seed, cfg)
			if s.Trap {
				traps++
			}
			for _, p := range s.Pages {
				for _, l := range p.Links {
					if l.Cost > 1 {
						paid++
						break
					}
				}
			}
		}
		return traps, paid
	}
	cases := []struct {
		name               string
		cfg                Config
		minTraps, maxTraps int
		paid               bool
	}{
		{"zero value", Config{}, 0, 0, false},
		{"default", DefaultConfig(), 160, 240, true},
		{"every site", Config{Traps: true, TrapRate: 1}, 400, 400, false},
		{"traps off", Config{Traps: false, TrapRate: 1, PaidLinks: true}, 0, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			traps, paid := count(c.cfg)
			if traps < c.minTraps || traps > c.maxTraps {
				t.Errorf("%d of 400 sites have traps, want %d..%d", traps, c.minTraps, c.maxTraps)
			}
			if (paid > 0) != c.paid {
				t.Errorf("%d sites with a paid link, want some: %v", paid, c.paid)
			}
		})
	}
	s := Generate(3, Config{MinLatencyMS: 500, MaxLatencyMS: 100})
	for _, p := range s.Pages {
		if p.LatencyMS != 500 {
			t.Fatalf("latency %d with min 500 and a lower max", p.LatencyMS)
		}
	}
}

// edges returns the paths a page leads to, for a structural search.
// Dead ends lead nowhere: the agent is stopped there.
func edges(s *Site, p *Page) []string {
	if p.DeadEnd != "" {
		return nil
	}
	var out []string
	add := func(href string) {
		if href == "" {
			return
		}
		u, err := url.Parse(href)
		if err != nil {
			return
		}
		path := u.Path
		if s.Pages[path] == nil {
			path = "/404"
		}
		out = append(out, path)
	}
	for _, l := range p.Links {
		add(l.Href)
	}
	for _, f := range p.Forms {
		add(f.Action)
	}
	if p.Kind == KindSearch {
		add(s.Hub)
	}
	return out
}

func reachable(s *Site, from string) map[string]bool {
	seen := map[string]bool{from: true}
	queue := []string{from}
	for len(queue) > 0 {
		p := s.Pages[queue[0]]
		queue = queue[1:]
		for _, next := range edges(s, p) {
			if !seen[next] {
				seen[next] = true
				queue = append(queue, next)
			}
		}
	}
	return seen
}

// walkTopRanked follows the proposer's first candidate from the start
// page, as a sequential agent does, and reports whether it reached the
// boundary with the goal holding.
func walkTopRanked(t *testing.T, s *Site, prop *planner.Proposer) (bool, string) {
	t.Helper()
	tk, err := s.Task()
	if err != nil {
		t.Fatal(err)
	}
	plan := branch.Plan{{Kind: branch.KindNavigate, URL: s.StartURL()}}
	r := s.newRun(SpecOf(tk))
	visited, applied := map[string]bool{}, map[string]bool{}
	var trail []string
	for len(plan) <= TaskStepsPerBranch {
		r.advance(plan)
		res, _ := r.clone().result(plan)
		if res.Status != "ok" {
			return false, "failed: " + res.ErrMsg
		}
		if res.AtBoundary {
			return tk.Goal.Satisfied(res.Obs.Predicates), strings.Join(trail, " / ")
		}
		if len(res.Obs.DeadEnds) > 0 {
			return false, "dead end after " + strings.Join(trail, " / ")
		}
		visited[res.Obs.URL] = true
		cands := prop.Propose(res.Obs, planner.History{Visited: visited, Applied: applied})
		if len(cands) == 0 {
			return false, "nothing to do after " + strings.Join(trail, " / ")
		}
		a := cands[0].Action
		if a.Input != "" {
			applied[a.Input] = true
		}
		trail = append(trail, a.Describe())
		plan = plan.Extend(a)
	}
	return false, "step budget used: " + strings.Join(trail, " / ")
}

// TestSiteInvariants checks the structure of 500 generated sites: the
// task parses, the boundary is reachable (the solution gets there with
// the goal holding), trap regions have no route to the boundary, dead
// ends fire a detector and live pages none, and on trap sites the
// proposer's first choice at every trap step is a trap, so an agent that
// always takes it never reaches the boundary.
func TestSiteInvariants(t *testing.T) {
	seeds := 500
	if testing.Short() {
		seeds = 100
	}
	var trapSites, caught atomic.Int64
	const chunk = 50
	t.Run("seeds", func(t *testing.T) {
		for first := 1; first <= seeds; first += chunk {
			t.Run(fmt.Sprintf("%d-%d", first, first+chunk-1), func(t *testing.T) {
				t.Parallel()
				for seed := int64(first); seed < int64(first+chunk) && seed <= int64(seeds); seed++ {
					traps, got := checkSite(t, seed)
					if traps {
						trapSites.Add(1)
					}
					if got {
						caught.Add(1)
					}
				}
			})
		}
	})
	if n := trapSites.Load(); n < int64(seeds/3) {
		t.Fatalf("only %d of %d sites have traps", n, seeds)
	}
	t.Logf("%d trap sites of %d; the top-ranked agent was caught on %d", trapSites.Load(), seeds, caught.Load())
}

// checkSite checks one site; it reports whether the site has traps and
// whether the top-ranked agent was caught there.
func checkSite(t *testing.T, seed int64) (traps, caught bool) {
	detectors := scoring.DefaultDetectors()
	s := Generate(seed, DefaultConfig())
	tk, err := s.Task()
	if err != nil {
		t.Fatalf("site %d: task: %v\n%s", seed, err, s.TaskYAML(""))
	}
	spec := SpecOf(tk)
	plan, err := s.Solution()
	if err != nil {
		t.Fatal(err)
	}
	res, _ := s.Execute(plan, spec)
	if res.Status != "ok" || !res.AtBoundary || !tk.Goal.Satisfied(res.Obs.Predicates) {
		t.Fatalf("site %d: the solution ends %s at %s, boundary %v, predicates %v", seed, res.Status, res.Obs.URL, res.AtBoundary, res.Obs.Predicates)
	}
	if !reachable(s, s.Start)[s.Review] {
		t.Fatalf("site %d: no structural route from the start to the review page", seed)
	}
	for _, path := range s.Paths() {
		p := s.Pages[path]
		if p.Trap && reachable(s, path)[s.Review] {
			t.Fatalf("site %d: trap page %s leads to the boundary", seed, path)
		}
		if p.Trap && reachable(s, path)[s.Checkout] {
			t.Fatalf("site %d: trap page %s leads to the checkout", seed, path)
		}
		if p.Kind == KindOrder || p.Kind == KindReview || p.Kind == KindCheckout || p.Kind == KindDetails {
			continue // need a query (or a POST) to make sense
		}
		v, ok := s.load(s.Origin + path)
		if !ok {
			t.Fatalf("site %d: cannot open %s", seed, path)
		}
		fired := 0
		for _, d := range detectors {
			if d.Fires(v.url, v.title, v.innerText()) {
				fired++
			}
		}
		if (p.DeadEnd != "") != (fired > 0) {
			t.Fatalf("site %d: page %s (dead end %q) fires %d detectors", seed, path, p.DeadEnd, fired)
		}
	}
	if !s.Trap {
		if len(s.TrapSteps) > 0 {
			t.Fatalf("site %d has trap steps but no traps", seed)
		}
		return false, false
	}
	if len(s.TrapSteps) == 0 {
		t.Fatalf("trap site %d has no trap step", seed)
	}
	prop, err := planner.NewProposer(tk)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range s.TrapSteps {
		obs := s.observeOnSolution(t, plan, spec, step)
		cands := prop.Propose(obs, planner.History{Visited: map[string]bool{obs.URL: true}})
		if len(cands) == 0 {
			t.Fatalf("site %d: nothing proposed at trap step %s", seed, step)
		}
		top := cands[0]
		href := ""
		for _, a := range obs.Affordances {
			if top.Action.Target != nil && a.Target.CSS == top.Action.Target.CSS {
				href = a.Href
			}
		}
		u, _ := url.Parse(href)
		if u == nil || s.Pages[u.Path] == nil || !s.Pages[u.Path].Trap {
			t.Errorf("site %d: at trap step %s the top candidate is %s (prior %.2f), not a trap; runner-up %v",
				seed, step, top.Action.Describe(), top.Prior, describe(cands[1:min(3, len(cands))]))
		}
	}
	ok, trail := walkTopRanked(t, s, prop)
	if ok {
		t.Errorf("site %d: an agent taking the top-ranked action reached the boundary: %s", seed, trail)
	}
	return true, !ok
}

func describe(cs []planner.Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Action.Describe()+" "+strconv.FormatFloat(c.Prior, 'f', 2, 64))
	}
	return out
}

// observeOnSolution executes the shortest prefix of the solution that
// ends on path and returns its observation.
func (s *Site) observeOnSolution(t *testing.T, plan branch.Plan, spec *job.Spec, path string) *branch.Observation {
	t.Helper()
	r := s.newRun(spec)
	for i := 1; i <= len(plan); i++ {
		r.advance(plan[:i])
		res, _ := r.result(plan[:i])
		if res.Obs == nil {
			continue
		}
		if u, _ := url.Parse(res.Obs.URL); u.Path == path {
			return res.Obs
		}
	}
	t.Fatalf("site %d: the solution never shows %s", s.Seed, path)
	return nil
}
