package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/task"
)

const testTask = `start_url: http://shop.test/
seed: 3
goal:
  text: Buy the Team plan for 10 seats
  milestones:
    - {name: pricing, url_matches: /pricing}
    - {name: checkout, url_matches: /checkout}
  success:
    - {name: seats, value: {selector: '#seats', equals: '10'}}
inputs:
  seats: '10'
search: {beam_width: 3, min_beam_width: 2, max_children: 2, stall_limit: 3}
budgets: {total_branches: 40, steps_per_branch: 8}
commit:
  boundary: {url_matches: /review}
  intent: {total: '#total'}
  action: {click: {role: button, name: Place order}}
  idempotency: {form_field: '#ref'}
  guard: [{method: POST, url: /orders}]
  confirm: {success: {url_matches: /done}, token: '#id'}
`

func loadTask(t *testing.T) *task.Task {
	t.Helper()
	tk, err := task.Parse("test.yaml", []byte(testTask))
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func link(name, href string) branch.Affordance {
	return branch.Affordance{Kind: "link", Href: "http://shop.test" + href, Region: "main", Form: -1,
		Target: branch.Target{Role: "link", Name: name, CSS: "a[href='" + href + "']"}}
}

// page is a tiny site model: what each URL offers.
var pages = map[string][]branch.Affordance{
	"/":            {link("Pricing", "/pricing"), link("Docs", "/docs"), link("Careers", "/careers"), link("Contact sales", "/contact")},
	"/docs":        {link("Docs home", "/docs/a"), link("Getting started", "/docs/b")},
	"/docs/a":      {link("More docs", "/docs/c")},
	"/docs/b":      {link("More docs", "/docs/c")},
	"/docs/c":      {link("Docs home", "/docs/a")},
	"/careers":     {},
	"/contact":     {},
	"/pricing":     {link("Choose Team", "/checkout"), link("Choose Business", "/checkout-b"), {Kind: "button", Region: "main", Form: -1, Target: branch.Target{Role: "button", Name: "Place order now", CSS: "#danger"}}},
	"/checkout-b":  {},
	"/checkout":    {},
	"/checkout#10": {},
	"/review":      {},
}

// simulate executes a plan against the model and returns the outcome the
// worker would report.
func simulate(p branch.Plan) Outcome {
	url := "/"
	seats := "1"
	for _, a := range p[1:] {
		switch a.Kind {
		case branch.KindClick:
			if strings.HasPrefix(a.Target.CSS, "a[href='") {
				url = strings.TrimSuffix(strings.TrimPrefix(a.Target.CSS, "a[href='"), "']")
			} else if a.Target.Name == "Continue" {
				url = "/review"
			} else {
				return Outcome{Code: "selector_not_found", Msg: "no such element", Step: len(p)}
			}
		case branch.KindType:
			seats = "10"
		}
	}
	obs := &branch.Observation{URL: "http://shop.test" + url, DOMHash: fmt.Sprintf("%s|%s", url, seats),
		Predicates: map[string]bool{"pricing": url == "/pricing", "checkout": url == "/checkout", "seats": seats == "10" && url == "/review"}}
	obs.Affordances = append(obs.Affordances, pages[url]...)
	if url == "/checkout" {
		obs.Affordances = append(obs.Affordances,
			branch.Affordance{Kind: "number", Form: 0, Value: seats, Target: branch.Target{Role: "spinbutton", Name: "Seats", ID: "seats", CSS: "#seats"}},
			branch.Affordance{Kind: "button", Form: 0, Submit: true, Target: branch.Target{Role: "button", Name: "Continue", CSS: "#go"}})
		if seats == "10" {
			obs.Affordances[0].Holds = "seats"
		}
	}
	if url == "/contact" {
		obs.DeadEnds = []string{"contact_sales"}
	}
	return Outcome{OK: true, Obs: obs, AtBoundary: url == "/review"}
}

type decisionLog []string

func runSearch(t *testing.T, reverse bool, opts ...Option) (decisionLog, *Decision) {
	t.Helper()
	tk := loadTask(t)
	prop, err := NewProposer(tk, opts...)
	if err != nil {
		t.Fatal(err)
	}
	id := 0
	s := NewSearch(tk, prop, func() string { id++; return fmt.Sprintf("b%03d", id) }, opts...)
	s.Root()
	var log decisionLog
	for i := 0; i < 20; i++ {
		wave := s.NextWave()
		if len(wave) == 0 {
			break
		}
		order := append([]*Node{}, wave...)
		if reverse { // results arrive in another order
			for l, r := 0, len(order)-1; l < r; l, r = l+1, r-1 {
				order[l], order[r] = order[r], order[l]
			}
		}
		for _, n := range order {
			s.Complete(n, simulate(n.Plan))
		}
		d := s.EndWave(context.Background())
		for _, e := range s.Drain() {
			if e.Node != nil {
				log = append(log, e.Kind+" "+e.Node.Digest[:12]+" "+e.Rule())
			}
		}
		if len(d.Winners) > 0 || d.Exhausted != "" {
			return log, &d
		}
	}
	t.Fatal("search did not finish")
	return nil, nil
}

func TestSearchFindsBoundaryAndIsDeterministic(t *testing.T) {
	a, da := runSearch(t, false)
	b, db := runSearch(t, true)
	if len(da.Winners) == 0 {
		t.Fatalf("no winner: %s", da.Exhausted)
	}
	w := da.Winners[0]
	var steps []string
	for _, act := range w.Plan {
		steps = append(steps, act.Describe())
	}
	got := strings.Join(steps, " / ")
	if !strings.Contains(got, "Choose Team") || !strings.Contains(got, "input seats") || !strings.Contains(got, "Continue") {
		t.Fatalf("winner plan = %s", got)
	}
	if db.Winners[0].Digest != w.Digest {
		t.Fatal("arrival order changed the winner")
	}
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("arrival order changed the decisions:\n%s\n---\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	joined := strings.Join(a, "\n")
	if !strings.Contains(joined, "prune") || !strings.Contains(joined, RuleDeadEnd) {
		t.Fatalf("expected a dead-end prune among:\n%s", joined)
	}
}

func TestProposerSafety(t *testing.T) {
	prop, err := NewProposer(loadTask(t))
	if err != nil {
		t.Fatal(err)
	}
	obs := simulate(branch.Plan{{Kind: branch.KindNavigate, URL: "http://shop.test/"},
		{Kind: branch.KindClick, Target: &branch.Target{CSS: "a[href='/pricing']"}}}).Obs
	obs.Affordances = append(obs.Affordances, branch.Affordance{Kind: "button", Form: 1, Submit: true,
		Target: branch.Target{Role: "button", Name: "Place order", TestID: "place-order"}})
	for _, c := range prop.Propose(obs, History{}) {
		name := c.Action.Target.Name
		if strings.Contains(strings.ToLower(name), "place order") {
			t.Fatalf("proposed a risky action: %+v", c.Action)
		}
	}
	if cands := prop.Propose(obs, History{}); len(cands) == 0 || cands[0].Action.Target.Name != "Choose Team" {
		t.Fatalf("best candidate = %+v", cands)
	}
}

func TestProposerFillsThenSubmits(t *testing.T) {
	prop, _ := NewProposer(loadTask(t))
	base := branch.Plan{{Kind: branch.KindNavigate, URL: "http://shop.test/"},
		{Kind: branch.KindClick, Target: &branch.Target{CSS: "a[href='/checkout']"}}}
	c := prop.Propose(simulate(base).Obs, History{})
	if len(c) == 0 || c[0].Action.Kind != branch.KindType || c[0].Action.Input != "seats" || c[0].Action.Value != "" {
		t.Fatalf("first candidate should type the seats input by name, got %+v", c)
	}
	filled := simulate(base.Extend(c[0].Action)).Obs
	c2 := prop.Propose(filled, History{})
	if len(c2) == 0 || c2[0].Action.Target.Name != "Continue" {
		t.Fatalf("after filling, the best candidate should submit, got %+v", c2)
	}
	for _, x := range c2 {
		if x.Action.Kind == branch.KindType {
			t.Fatalf("proposed to refill a held field: %+v", x)
		}
	}
}

func TestStrategiesMatchTask(t *testing.T) {
	if strings.Join(Strategies, ",") != strings.Join(task.Strategies, ",") {
		t.Fatalf("planner strategies %v, task accepts %v", Strategies, task.Strategies)
	}
}

// TestEveryStrategyFinishes runs each strategy on the toy site: the search
// strategies find the boundary, and every strategy ends with a decision.
func TestEveryStrategyFinishes(t *testing.T) {
	for _, name := range Strategies {
		t.Run(name, func(t *testing.T) {
			tk := loadTask(t)
			tk.Search.Strategy = name
			prop, _ := NewProposer(tk)
			id := 0
			s := NewSearch(tk, prop, func() string { id++; return fmt.Sprintf("b%03d", id) })
			s.Root()
			for i := 0; i < 50; i++ {
				wave := s.NextWave()
				if len(wave) == 0 {
					return
				}
				for _, n := range wave {
					s.Complete(n, simulate(n.Plan))
				}
				d := s.EndWave(context.Background())
				s.Drain()
				if len(d.Winners) > 0 {
					return
				}
				if d.Exhausted != "" {
					if name == StrategyBeam || name == StrategyUCT {
						t.Fatalf("%s exhausted: %s", name, d.Exhausted)
					}
					return
				}
			}
			t.Fatal("no decision after 50 waves")
		})
	}
}

// TestProposerStaysSafe: the menu never offers a link to another origin
// (unless explore.origins lists it), a destructive or session-ending
// control, or a control named like the commit action in its own role; a
// link named like the commit button is offered. A default risk pattern
// the goal's own text matches is lifted.
func TestProposerStaysSafe(t *testing.T) {
	obs := simulate(branch.Plan{{Kind: branch.KindNavigate, URL: "http://shop.test/"},
		{Kind: branch.KindClick, Target: &branch.Target{CSS: "a[href='/pricing']"}}}).Obs
	extra := []branch.Affordance{
		{Kind: "link", Href: "https://partner.example/pricing", Region: "main", Form: -1, Target: branch.Target{Role: "link", Name: "Partner pricing"}},
		{Kind: "link", Href: "https://accounts.shop.test/plans", Region: "main", Form: -1, Target: branch.Target{Role: "link", Name: "Account plans"}},
		{Kind: "button", Region: "header", Form: -1, Target: branch.Target{Role: "button", Name: "Log out"}},
		{Kind: "button", Region: "main", Form: 2, Submit: true, Target: branch.Target{Role: "button", Name: "Block user"}},
		{Kind: "link", Href: "http://shop.test/members/new", Region: "main", Form: -1, Target: branch.Target{Role: "link", Name: "Add member"}},
		{Kind: "button", Region: "main", Form: 3, Submit: true, Target: branch.Target{Role: "button", Name: "Add member"}},
	}
	obs.Affordances = append(obs.Affordances, extra...)
	names := func(tk *task.Task) map[string]bool {
		prop, err := NewProposer(tk)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, c := range prop.Propose(obs, History{}) {
			if c.Action.Target != nil {
				out[c.Action.Target.Name] = true
				out[c.Action.Target.Role+":"+c.Action.Target.Name] = true
			}
		}
		return out
	}
	base := loadTask(t)
	base.Commit.Action.Target = &branch.Target{Role: "button", Name: "Add member"}
	got := names(base)
	for _, bad := range []string{"Partner pricing", "Account plans", "Log out", "Block user"} {
		if got[bad] {
			t.Errorf("proposed %q", bad)
		}
	}
	if !got["link:Add member"] || got["button:Add member"] {
		t.Errorf("the commit button must not be offered, a link named like it must: offered %v", got)
	}
	tk := loadTask(t)
	tk.Explore.Origins = []string{"https://accounts.shop.test"}
	tk.Goal.Text = "Log out of the shop"
	got = names(tk)
	if !got["Account plans"] || got["Partner pricing"] {
		t.Errorf("explore.origins: offered %v", got)
	}
	if !got["Log out"] || got["Block user"] {
		t.Errorf("a goal that asks to log out lifts that pattern only: offered %v", got)
	}
}
