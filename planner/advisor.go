package planner

import (
	"context"
	"fmt"
	"regexp"
	"sort"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Advisor ranks the candidates the proposer found on a page: a language
// model, say. The proposer's candidates are the menu: an advisor reorders
// them and may give values for the open fields (Query.Fields), but can
// never add an action of its own, so it cannot invent a selector, reach
// the commit action or a guarded request. An advisor that fails returns
// the zero Advice (the proposer's order stands) and records why itself.
//
// The search asks it synchronously, in its deterministic expansion order;
// the advisor may do I/O, the search does none.
type Advisor interface {
	Advise(ctx context.Context, q Query) Advice
}

// Query is what an advisor is asked about one branch's page.
type Query struct {
	// BranchID is the branch being expanded; Step is the step its
	// children's new action would be (its depth plus one).
	BranchID string
	Step     int
	Goal     string
	// Site is the origin the task explores: an advisor writes the page's
	// URL relative to it, so the same site served on another port is
	// asked the same question (and a recorded answer still answers it).
	Site string
	// Done describes the branch's actions so far, oldest first.
	Done []string
	Obs  *branch.Observation
	// Menu is the proposer's candidates, best first; an advisor names
	// them by index.
	Menu []Candidate
	// Fields are the page's empty text fields no task input fills: an
	// advisor names them by len(Menu)+index and gives the value to type.
	Fields []branch.Affordance
}

// Advice is an advisor's answer.
type Advice struct {
	// Order names menu entries (and fields, after the menu) best first;
	// the ones it leaves out follow in the proposer's order. Empty keeps
	// the proposer's order.
	Order []int
	// Values holds the value to type for each field Order names.
	Values map[int]string
	// Cost is what the advice cost, in the task's cost units: it is
	// charged to the search's budget.
	Cost float64
	// By names the advisor, for the children's reasons ("the model").
	By string
}

// BatchAdvisor is an Advisor that can answer the questions of a whole
// wave's expansions at once (concurrently, say). AdviseAll returns one
// Advice per query, in the queries' order; the search applies them in
// that order, so the decisions are the ones Advise would give.
type BatchAdvisor interface {
	Advisor
	AdviseAll(ctx context.Context, qs []Query) []Advice
}

// SetAdvisor makes the search ask a for the order of the candidates of
// every branch it expands itself (guided steps of a cached plan are not
// asked about).
func (s *Search) SetAdvisor(a Advisor) { s.advisor = a }

// question is what the search would ask about n: the proposer's
// candidates and the open fields, and the query; ok is false when there
// is nothing to ask (no advisor, nothing on the page).
func (s *Search) question(n *Node) (cands []Candidate, fields []branch.Affordance, q Query, ok bool) {
	h := History{Visited: n.Visited, Applied: n.Applied, Known: s.known, Progress: n.Score.Progress, Done: noops(n)}
	cands = s.prop.Propose(n.Outcome.Obs, h)
	if s.advisor == nil {
		return cands, nil, Query{}, false
	}
	fields = s.prop.OpenFields(n.Outcome.Obs)
	if len(cands)+len(fields) == 0 {
		return cands, nil, Query{}, false
	}
	done := make([]string, len(n.Plan))
	for i, a := range n.Plan {
		done[i] = a.Describe()
	}
	return cands, fields, Query{BranchID: n.ID, Step: n.Depth + 1, Goal: s.t.Goal.Text, Site: s.origin, Done: done, Obs: n.Outcome.Obs,
		Menu: cands, Fields: fields}, true
}

// candidates are the proposer's candidates for n's page, in the order the
// advisor gives when the search has one (asked now, or already by
// adviseAll).
func (s *Search) candidates(ctx context.Context, n *Node) []Candidate {
	if a, ok := s.advised[n]; ok {
		delete(s.advised, n)
		s.spent += a.cost // charged as it is used, as Advise's would be
		return a.cands
	}
	cands, fields, q, ok := s.question(n)
	if !ok {
		return cands
	}
	adv := s.advisor.Advise(ctx, q)
	s.spent += adv.Cost
	return s.w.reorder(cands, fields, adv)
}

// adviseAll asks a BatchAdvisor, at once, about every branch of live the
// search is about to expand with its own candidates (a guided step is
// not asked about), keeping the reordered candidates for candidates.
// The questions are the ones the expansions would ask one by one: what
// they ask depends only on the state EndWave reached before expanding.
func (s *Search) adviseAll(ctx context.Context, live []*Node) {
	b, ok := s.advisor.(BatchAdvisor)
	if !ok {
		return
	}
	type asked struct {
		n      *Node
		cands  []Candidate
		fields []branch.Affordance
	}
	var qs []Query
	var as []asked
	for _, n := range live {
		if s.following(n) && n.Depth < len(s.guide.Plan) {
			continue
		}
		cands, fields, q, ok := s.question(n)
		if !ok {
			continue
		}
		qs = append(qs, q)
		as = append(as, asked{n, cands, fields})
	}
	if len(qs) == 0 {
		return
	}
	advs := b.AdviseAll(ctx, qs)
	if s.advised == nil {
		s.advised = map[*Node]advised{}
	}
	for i, a := range as {
		var adv Advice
		if i < len(advs) {
			adv = advs[i]
		}
		s.advised[a.n] = advised{cands: s.w.reorder(a.cands, a.fields, adv), cost: adv.Cost}
	}
}

// advised is a branch's candidates in the order a batch's advice gave,
// and what that advice cost.
type advised struct {
	cands []Candidate
	cost  float64
}

// reorder applies advice to the proposer's candidates: the entries Order
// names come first, in its order, then the others in the proposer's
// order. The priors stay where they were: the i-th candidate of the new
// order gets the i-th prior of the proposer's, so the advice changes
// which actions the search forks first, not how sure it is of them. A
// field named with a value becomes a typing candidate at its place, with
// the fill prior; a field named without one, an index out of range, or a
// repeated one is skipped (the advisor's parser refuses those before).
// A typed field's fill prior joins the others before they are dealt out.
func (wt *Weights) reorder(menu []Candidate, fields []branch.Affordance, adv Advice) []Candidate {
	if len(adv.Order) == 0 {
		return menu
	}
	by := adv.By
	if by == "" {
		by = "the advisor"
	}
	used := map[int]bool{}
	var out []Candidate
	for rank, i := range adv.Order {
		if used[i] || i < 0 || i >= len(menu)+len(fields) {
			continue
		}
		used[i] = true
		if i < len(menu) {
			c := menu[i]
			c.Reason = fmt.Sprintf("%s (ranked %d by %s)", c.Reason, rank+1, by)
			out = append(out, c)
			continue
		}
		v, ok := adv.Values[i]
		if !ok || v == "" {
			continue
		}
		f := fields[i-len(menu)]
		act, ok := fieldAction(f, v)
		if !ok && (settableKinds[f.Kind] || inputFormats[f.InputType] != nil) {
			continue // not a value the control takes
		}
		if !ok {
			t := f.Target
			act = branch.Action{Kind: branch.KindType, Target: &t, Value: v, Label: fmt.Sprintf("type %q into %s", v, label(f))}
		}
		out = append(out, Candidate{Action: act,
			Prior: wt.FillPrior, Reason: fmt.Sprintf("writes the value %s proposed into %s (ranked %d)", by, label(f), rank+1)})
	}
	for i, c := range menu {
		if !used[i] {
			out = append(out, c)
		}
	}
	priors := make([]float64, len(out))
	for i, c := range out {
		priors[i] = c.Prior
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(priors)))
	for i := range out {
		out[i].Prior = priors[i]
	}
	return out
}

// OpenFields returns the page's empty text fields that no task input
// fills, in page order: an advisor may say what to type there. Password
// fields and obscured ones are never open.
func (p *Proposer) OpenFields(obs *branch.Observation) []branch.Affordance {
	if obs == nil {
		return nil
	}
	var out []branch.Affordance
	for _, a := range obs.Affordances {
		switch {
		case a.Kind.TakesText():
		case settableKinds[a.Kind] || inputFormats[a.InputType] != nil:
			// A slider, a date or a time: it always holds a value.
			if a.Region == branch.RegionObscured || secretField(a) {
				continue
			}
			if _, ok := p.ruleFor(a); !ok {
				out = append(out, a)
			}
			continue
		default:
			continue
		}
		if a.Value != "" || a.Region == branch.RegionObscured || secretField(a) {
			continue
		}
		if _, ok := p.ruleFor(a); ok {
			continue
		}
		out = append(out, a)
	}
	return out
}

// secretWords name a field whose value is a credential: never open, a
// model may not type there.
var secretWords = regexp.MustCompile(`(?i)pass|pin\b|secret|token|otp|cvv|cvc|card`)

func secretField(a branch.Affordance) bool {
	for _, s := range []string{a.Target.Name, a.Target.Field, a.Target.ID, a.Target.AriaLabel, a.Target.Hint} {
		if secretWords.MatchString(s) {
			return true
		}
	}
	return false
}

// FieldLabel names a field as the proposer's action labels do: its
// quoted name, else a description of its target.
func FieldLabel(a branch.Affordance) string { return label(a) }
