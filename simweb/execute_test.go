package simweb

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// findSite returns the first generated site (default config, seeds from
// 1) that has the property.
func findSite(t testing.TB, what string, ok func(*Site) bool) *Site {
	t.Helper()
	for seed := int64(1); seed <= 2000; seed++ {
		if s := Generate(seed, DefaultConfig()); ok(s) {
			return s
		}
	}
	t.Fatalf("no site with %s among 2000 seeds", what)
	return nil
}

func hasRoute(s *Site, r string) bool {
	for _, x := range s.Routes {
		if x == r {
			return true
		}
	}
	return false
}

func mustSpec(t testing.TB, s *Site) *job.Spec {
	t.Helper()
	spec, err := s.Spec()
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func mustSolution(t testing.TB, s *Site) branch.Plan {
	t.Helper()
	p, err := s.Solution()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func nav(s *Site, path string) branch.Action {
	return branch.Action{Kind: branch.KindNavigate, URL: s.Origin + path}
}

func click(tgt branch.Target) branch.Action {
	return branch.Action{Kind: branch.KindClick, Target: &tgt}
}

func affordance(t *testing.T, obs *branch.Observation, testid string) branch.Affordance {
	t.Helper()
	for _, a := range obs.Affordances {
		if a.Target.TestID == testid {
			return a
		}
	}
	t.Fatalf("no affordance %q on %s", testid, obs.URL)
	return branch.Affordance{}
}

func TestExecuteSolution(t *testing.T) {
	s := findSite(t, "a two-step checkout", func(s *Site) bool { return s.Details != "" })
	spec := mustSpec(t, s)
	plan := mustSolution(t, s)
	res, cost := s.Execute(plan, spec)
	if res.Status != job.ResultOK || !res.AtBoundary || res.Obs == nil {
		t.Fatalf("result %s %s %s, boundary %v", res.Status, res.ErrCode, res.ErrMsg, res.AtBoundary)
	}
	tk, _ := s.Task()
	if !tk.Goal.Satisfied(res.Obs.Predicates) || !res.Obs.Predicates["review_reached"] || res.Obs.Predicates["hub_reached"] {
		t.Errorf("predicates at the boundary: %v", res.Obs.Predicates)
	}
	if len(res.Steps) != len(plan) || cost.Actions != len(plan) {
		t.Fatalf("%d steps, %d actions for a plan of %d", len(res.Steps), cost.Actions, len(plan))
	}
	var sum int64
	for i, st := range res.Steps {
		if st.Step != i+1 || st.Status != branch.StatusOK || st.Replayed != (i < len(plan)-1) {
			t.Errorf("step %d: %+v", i+1, st)
		}
		if i == 0 && !st.Start.Equal(task.DefaultClock) {
			t.Errorf("the simulated clock starts at %v, want the pinned clock", st.Start)
		}
		if i > 0 && !st.Start.Equal(res.Steps[i-1].End) {
			t.Errorf("step %d starts at %v, the previous ended at %v", i+1, st.Start, res.Steps[i-1].End)
		}
		sum += st.End.Sub(st.Start).Milliseconds()
	}
	if sum != cost.SimMS || res.Timing.Total != cost.SimMS || cost.Units != float64(len(plan)) {
		t.Fatalf("step time %d, timing %+v, cost %+v", sum, res.Timing, cost)
	}
	if len(res.Requests) == 0 || res.Requests[len(res.Requests)-1].Method != "GET" || len(res.Net) != 1 {
		t.Fatalf("requests %v, last-step net %v", res.Requests, res.Net)
	}
	if res.Intent["plan"] != s.Want.Plan || res.Intent["seats"] != itoa(s.Want.Seats) || res.Intent["total"] == "" {
		t.Fatalf("intent %v", res.Intent)
	}
	again, _ := s.Execute(plan, spec)
	a, _ := json.Marshal(res)
	b, _ := json.Marshal(again)
	if string(a) != string(b) {
		t.Fatal("two executions of the same plan differ")
	}
	// A run advanced step by step gives the result of a full replay.
	r := s.newRun(spec)
	for i := 1; i <= len(plan); i++ {
		r = r.clone()
		r.advance(plan[:i])
		inc, _ := r.result(plan[:i])
		full, _ := s.Execute(plan[:i], spec)
		x, _ := json.Marshal(inc)
		y, _ := json.Marshal(full)
		if string(x) != string(y) {
			t.Fatalf("prefix %d: incremental and full results differ:\n%s\n%s", i, x, y)
		}
	}
}

func TestExecuteFailures(t *testing.T) {
	s := findSite(t, "a menu route", func(s *Site) bool { return hasRoute(s, RouteMenu) })
	spec := mustSpec(t, s)
	start := nav(s, "/")
	cases := []struct {
		name     string
		plan     branch.Plan
		code     branch.Code
		step     int
		observed bool
	}{
		{"unknown testid", branch.Plan{start, click(branch.Target{TestID: "no-such-thing"})}, branch.CodeSelectorNotFound, 2, true},
		{"hidden menu link", branch.Plan{start, click(branch.Target{TestID: "menu-pricing"})}, branch.CodeElementHidden, 2, true},
		{"prefix diverges", branch.Plan{start, click(branch.Target{TestID: "no-such-thing"}), click(branch.Target{TestID: "nav-docs"})},
			branch.CodeSelectorNotFound, 2, false},
		{"off-site navigation", branch.Plan{{Kind: branch.KindNavigate, URL: "http://elsewhere.test/"}}, branch.CodePageError, 1, false},
		{"script", branch.Plan{start, {Kind: branch.KindEval, Value: "1"}}, branch.CodeUnsupported, 2, true},
		{"missing input", branch.Plan{start, {Kind: branch.KindType, Target: &branch.Target{TestID: "brand"}, Input: "nope"}}, branch.CodeInputMissing, 2, true},
		{"redacted value", branch.Plan{start, {Kind: branch.KindType, Target: &branch.Target{TestID: "brand"}, Value: branch.RedactedPlaceholder}},
			branch.CodeRedactedValue, 2, true},
		{"type into a link", branch.Plan{start, {Kind: branch.KindType, Target: &branch.Target{TestID: "brand"}, Value: "x"}}, branch.CodePageError, 2, true},
		{"click before any page", branch.Plan{click(branch.Target{TestID: "brand"})}, branch.CodeSelectorNotFound, 1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, cost := s.Execute(c.plan, spec)
			if res.Status != job.ResultFailed || res.ErrCode != c.code || res.ErrStep != c.step {
				t.Fatalf("status %s code %s step %d (%s), want failed %s at %d", res.Status, res.ErrCode, res.ErrStep, res.ErrMsg, c.code, c.step)
			}
			if (res.Obs != nil) != c.observed {
				t.Fatalf("observed %v, want %v", res.Obs != nil, c.observed)
			}
			if len(res.Steps) != c.step || cost.Actions != c.step || res.Steps[c.step-1].Status != branch.StatusFailed {
				t.Fatalf("steps %+v, cost %+v", res.Steps, cost)
			}
			if c.step < len(c.plan) && !strings.Contains(res.ErrMsg, "replaying the prefix diverged") {
				t.Fatalf("message %q does not say the prefix diverged", res.ErrMsg)
			}
		})
	}

	// A wrong first strategy that a later one repairs is a healed step.
	open := branch.Plan{start, {Kind: branch.KindClick, Target: &branch.Target{TestID: "stale-id", Role: "button", Name: "Menu"}}}
	res, _ := s.Execute(open, spec)
	if res.Status != job.ResultOK || res.Steps[1].Status != branch.StatusHealed || res.Steps[1].Strategy != "role" {
		t.Fatalf("healed click: %s %+v", res.Status, res.Steps[1])
	}
	menu := affordance(t, res.Obs, "menu-pricing")
	if menu.Region != branch.RegionNav || menu.Href != s.Origin+s.Hub+"?ref=menu" {
		t.Fatalf("menu link %+v", menu)
	}
}

func TestExecuteForms(t *testing.T) {
	s := findSite(t, "a one-step checkout with a search", func(s *Site) bool { return s.Details == "" && hasRoute(s, RouteSearch) })
	spec := mustSpec(t, s)
	sol := mustSolution(t, s)
	submit := len(sol) - 1 // the last action submits the checkout
	checkout := 0
	for i, a := range sol {
		if a.Kind == branch.KindClick && strings.HasPrefix(a.Target.TestID, "plan-") {
			checkout = i + 1
		}
	}

	t.Run("required fields stop the submit", func(t *testing.T) {
		plan := append(append(branch.Plan{}, sol[:checkout]...), sol[submit])
		before, _ := s.Execute(sol[:checkout], spec)
		after, _ := s.Execute(plan, spec)
		if after.Status != job.ResultOK || after.Obs.URL != before.Obs.URL || after.Obs.DOMHash != before.Obs.DOMHash {
			t.Fatalf("an empty required form was submitted: %s -> %s", before.Obs.URL, after.Obs.URL)
		}
	})
	t.Run("typing changes the state and marks the input held", func(t *testing.T) {
		var typed branch.Plan
		for i := checkout; i < submit; i++ {
			if sol[i].Input == "email" {
				typed = append(append(branch.Plan{}, sol[:checkout]...), sol[i])
			}
		}
		before, _ := s.Execute(sol[:checkout], spec)
		after, _ := s.Execute(typed, spec)
		if before.Obs.DOMHash == after.Obs.DOMHash || before.Obs.URL != after.Obs.URL {
			t.Fatal("typing did not change the DOM hash, or moved the page")
		}
		found := false
		for _, a := range after.Obs.Affordances {
			if a.Holds == "email" {
				found = true
				if strings.Contains(a.Value, s.Want.Email) || !strings.HasPrefix(a.Value, "tok_") {
					t.Fatalf("the email field's value is not scrubbed: %q", a.Value)
				}
			}
		}
		if !found {
			t.Fatal("no field holds the email input")
		}
	})
	t.Run("select by value or text, not a missing option", func(t *testing.T) {
		var sel branch.Action
		for i := checkout; i < submit; i++ {
			if sol[i].Kind == branch.KindSelect {
				sel = sol[i]
			}
		}
		if sel.Kind == "" {
			sel = branch.Action{Kind: branch.KindSelect, Target: &branch.Target{ID: s.Params[RoleCountry]}, Value: s.CountryOptions[0].Value}
		}
		byText := sel
		byText.Value = optionText(append(append([]branch.Option{}, s.CountryOptions...), s.BillingOptions...), sel.Value)
		for _, a := range []branch.Action{sel, byText} {
			res, _ := s.Execute(append(append(branch.Plan{}, sol[:checkout]...), a), spec)
			if res.Status != job.ResultOK {
				t.Fatalf("select %q: %s", a.Value, res.ErrMsg)
			}
		}
		bad := sel
		bad.Value = "Atlantis"
		res, _ := s.Execute(append(append(branch.Plan{}, sol[:checkout]...), bad), spec)
		if res.ErrCode != branch.CodeTimeout {
			t.Fatalf("selecting a missing option: %s %s", res.Status, res.ErrCode)
		}
	})
	t.Run("the search finds the hub", func(t *testing.T) {
		res, _ := s.Execute(branch.Plan{nav(s, "/search?q=plans+and+prices")}, spec)
		hit := affordance(t, res.Obs, "search-result-pricing")
		if u, _ := url.Parse(hit.Href); u.Path != s.Hub {
			t.Fatalf("search result leads to %s", hit.Href)
		}
		res, _ = s.Execute(branch.Plan{nav(s, "/search?q=careers")}, spec)
		for _, a := range res.Obs.Affordances {
			if a.Target.TestID == "search-result-pricing" {
				t.Fatal("a search for careers finds the pricing hub")
			}
		}
	})
	t.Run("unknown pages answer 404", func(t *testing.T) {
		res, _ := s.Execute(branch.Plan{nav(s, "/no/such/page")}, spec)
		if res.Status != job.ResultOK || res.Obs.Status != 404 || len(res.Obs.DeadEnds) == 0 || res.Obs.DeadEnds[0] != "not_found" {
			t.Fatalf("404 page: status %d, dead ends %v", res.Obs.Status, res.Obs.DeadEnds)
		}
	})
}

func TestExecutePlaceOrder(t *testing.T) {
	s := Generate(7, DefaultConfig())
	spec := mustSpec(t, s)
	sol := mustSolution(t, s)
	order := click(branch.Target{Role: "button", Name: s.CommitLabel})
	plan := sol.Extend(order)

	res, _ := s.Execute(plan, spec)
	want := "POST " + s.Origin + s.Orders
	if res.Status != job.ResultOK || len(res.Blocked) != 1 || res.Blocked[0] != want {
		t.Fatalf("guarded order: status %s, blocked %v, want [%s]", res.Status, res.Blocked, want)
	}
	if !res.AtBoundary || len(res.Net) != 1 || !res.Net[0].Blocked {
		t.Fatalf("the page left the review, or the blocked request is not recorded: %v", res.Net)
	}

	open := *spec
	open.Guard = nil
	res, _ = s.Execute(plan, &open)
	if res.Status != job.ResultOK || len(res.Blocked) != 0 || !strings.Contains(res.Obs.URL, s.Orders+"/ORD-") {
		t.Fatalf("unguarded order: %s at %s, blocked %v", res.Status, res.Obs.URL, res.Blocked)
	}
	if n := len(res.Net); n != 2 || res.Net[0].Method != "POST" || res.Net[0].Status != 303 {
		t.Fatalf("order requests %+v", res.Net)
	}
}

func TestExecuteNilSpec(t *testing.T) {
	s := Generate(1, Config{})
	res, cost := s.Execute(branch.Plan{nav(s, "/")}, nil)
	if res.Status != job.ResultOK || res.AtBoundary || len(res.Obs.Predicates) != 0 || cost.Actions != 1 {
		t.Fatalf("nil spec: %+v %+v", res, cost)
	}
	res, _ = s.Execute(nil, nil)
	if res.Status != job.ResultFailed {
		t.Fatal("an empty plan is not a failure")
	}
}

func TestPaidLinkCostsMore(t *testing.T) {
	s := findSite(t, "a paid link", func(s *Site) bool { return s.Pages["/quote"] != nil })
	spec := mustSpec(t, s)
	plain, c1 := s.Execute(branch.Plan{nav(s, s.Hub)}, spec)
	paid := affordance(t, plain.Obs, "instant-quote")
	res, c2 := s.Execute(branch.Plan{nav(s, s.Hub), click(paid.Target)}, spec)
	if res.Status != job.ResultOK || c2.Units-c1.Units != PaidCost*s.Prices[branch.KindClick] {
		t.Fatalf("paid link cost %g units, want %g", c2.Units-c1.Units, PaidCost*s.Prices[branch.KindClick])
	}
	if len(res.Obs.DeadEnds) == 0 {
		t.Fatal("the paid quote is not a dead end")
	}
}

// TestExecuteSetFocusHover: the simulated web takes set as the browser
// does (a number field only a number, a select its option, a text field
// its text; a button holds no value), and focus and hover change nothing
// on a control that is there.
func TestExecuteSetFocusHover(t *testing.T) {
	s := findSite(t, "a one-step checkout", func(s *Site) bool { return s.Details == "" })
	spec := mustSpec(t, s)
	sol := mustSolution(t, s)
	checkout := 0
	for i, a := range sol {
		if a.Kind == branch.KindClick && strings.HasPrefix(a.Target.TestID, "plan-") {
			checkout = i + 1
		}
	}
	at := append(branch.Plan{}, sol[:checkout]...)
	base, _ := s.Execute(at, spec)
	if base.Status != job.ResultOK {
		t.Fatalf("reaching the checkout: %s", base.ErrMsg)
	}
	byKind := map[branch.ElementKind]branch.Affordance{}
	for _, a := range base.Obs.Affordances {
		if _, ok := byKind[a.Kind]; !ok {
			byKind[a.Kind] = a
		}
	}
	for _, k := range []branch.ElementKind{branch.ElemNumber, branch.ElemTextbox, branch.ElemButton} {
		if _, ok := byKind[k]; !ok {
			t.Fatalf("the checkout has no %s: %+v", k, base.Obs.Affordances)
		}
	}
	set := func(k branch.ElementKind, v string) branch.Action {
		tgt := byKind[k].Target
		return branch.Action{Kind: branch.KindSet, Target: &tgt, Value: v}
	}
	valueOf := func(obs *branch.Observation, k branch.ElementKind) string {
		for _, a := range obs.Affordances {
			if a.Target.CSS == byKind[k].Target.CSS {
				return a.Value
			}
		}
		return "<gone>"
	}
	cases := []struct {
		name string
		a    branch.Action
		code branch.Code
		kind branch.ElementKind // the affordance whose value is checked
		want string
	}{
		{"a number into a number field", set("number", "12"), "", "number", "12"},
		{"words into a number field", set("number", "twelve"), branch.CodeValueNotSet, "number", byKind["number"].Value},
		{"text into a text field", set("textbox", "Globex"), "", "textbox", "Globex"},
		{"a button holds no value", set("button", "1"), branch.CodeUnsupported, "", ""},
		{"no value at all", branch.Action{Kind: branch.KindSet, Target: &branch.Target{ID: "no-such-field"}, Value: "1"}, branch.CodeSelectorNotFound, "", ""},
	}
	for _, tc := range cases {
		res, _ := s.Execute(append(append(branch.Plan{}, at...), tc.a), spec)
		if tc.code != "" {
			if res.ErrCode != tc.code {
				t.Errorf("%s: %s %s, want %s", tc.name, res.Status, res.ErrCode, tc.code)
			}
			continue
		}
		if res.Status != job.ResultOK {
			t.Errorf("%s: %s %s %s", tc.name, res.Status, res.ErrCode, res.ErrMsg)
			continue
		}
		if got := valueOf(res.Obs, tc.kind); got != tc.want && !strings.HasPrefix(got, "tok_") {
			t.Errorf("%s: the field holds %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, kind := range []string{branch.KindFocus, branch.KindHover} {
		tgt := byKind["textbox"].Target
		res, _ := s.Execute(append(append(branch.Plan{}, at...), branch.Action{Kind: kind, Target: &tgt}), spec)
		if res.Status != job.ResultOK || res.Obs.DOMHash != base.Obs.DOMHash || res.Obs.URL != base.Obs.URL {
			t.Errorf("%s: %s %s %s; the page changed: %v", kind, res.Status, res.ErrCode, res.ErrMsg, res.Obs != nil && res.Obs.DOMHash != base.Obs.DOMHash)
		}
		res, _ = s.Execute(append(append(branch.Plan{}, at...), branch.Action{Kind: kind, Target: &branch.Target{ID: "no-such-field"}}), spec)
		if res.ErrCode != branch.CodeSelectorNotFound {
			t.Errorf("%s of a missing control: %s %s", kind, res.Status, res.ErrCode)
		}
	}
}
