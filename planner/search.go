package planner

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// State of a branch in the search.
type State string

// Branch states. Every forked branch ends explored (expanded or at the
// boundary), pruned or failed.
const (
	StatePending  State = "pending"
	StateRunning  State = "running"
	StateExplored State = "explored"
	StateBoundary State = "boundary"
	StatePruned   State = "pruned"
	StateFailed   State = "failed"
	// StateSideEffect is a branch whose last action asked for a request
	// that would change the site: speculation held it, and the branch
	// ends at that side-effect boundary.
	StateSideEffect State = "side_effect"
)

// Pruning rules, as recorded in branch_pruned events.
const (
	RuleActionFailed  = "action_failed"
	RuleGuardBlocked  = "guard_blocked"
	RuleDeadEnd       = "dead_end"
	RuleHTTPError     = "http_error"
	RuleDuplicate     = "duplicate_state"
	RuleGoalUnmet     = "boundary_goal_unmet"
	RuleGoalFailed    = "goal_failed"
	RuleAuthRequired  = "auth_required"
	RuleStalled       = "stalled"
	RuleLagging       = "lagging"
	RuleStepBudget    = "step_budget"
	RuleNoAffordances = "no_affordances"
	RuleBeamCut       = "beam_cut"
	RuleNotSelected   = "not_selected"
	RuleCostBudget    = "cost_budget"
	RuleUCTBound      = "uct_bound"
	RuleSideEffect    = "side_effect_boundary"
)

// Node is a branch in the search tree.
type Node struct {
	ID       string
	ParentID string
	Parent   *Node `json:"-"`
	Plan     branch.Plan
	Digest   string
	Seed     uint64
	Depth    int
	Prior    float64
	Utility  float64
	Reason   string
	// Guide is the length of the cached plan the branch was forked from
	// (Search.Follow), 0 when the search forked it itself.
	Guide int
	// Named: the goal text asked for this branch's last action by its
	// target (Candidate.Named); Onward: it paged on towards what the goal
	// names (Candidate.Onward).
	Named    bool
	Onward   bool
	Explorer bool
	// Ablation marks a try of the winner's plan without some of its
	// steps (Ablate); nil for the search's own branches.
	Ablation *AblationInfo
	Wave     int
	State    State
	// StepMS is how long the branch's last step is expected to take and
	// Latency its whole plan, in milliseconds, from what earlier runs on
	// the site measured (Search.Learn); 0 when the search learned nothing.
	StepMS, Latency float64
	// Healed counts the steps of the plan whose target had to be healed.
	Healed int

	Outcome *Outcome
	Ever    map[string]bool
	Applied map[string]bool
	Visited map[string]bool
	Score   scoring.Vector
	Cost    float64
	Stall   int
	Lag     int
	Prune   *Prune

	key    float64 // frontier key (strategy-dependent)
	index  int     // position in the frontier heap, -1 outside
	sumJ   float64 // UCT: sum of J over executed branches of the subtree
	visits int     // UCT: executed branches in the subtree
	priors float64 // sum of the children's priors
	// backtracks counts the times the search went back to n's left-out
	// candidates.
	backtracks int
}

// Action returns the node's last action.
func (n *Node) Action() branch.Action { return n.Plan[len(n.Plan)-1] }

// Candidate is the node as a contender for the winner.
func (n *Node) Candidate() scoring.Candidate {
	return scoring.Candidate{BranchID: n.ID, PlanDigest: n.Digest, Score: n.Score, Steps: n.Depth}
}

// Prune says why a branch was cut: the rule and its numbers.
type Prune struct {
	Rule   string         `json:"rule"`
	Detail map[string]any `json:"detail,omitempty"`
}

// CodeNoResult is the code of a branch the search judged without an
// outcome: its executor returned none.
const CodeNoResult branch.Code = "no_result"

// Outcome is what the search needs to know of an executed branch.
type Outcome struct {
	OK         bool
	Code       branch.Code
	Msg        string
	Step       int
	Obs        *branch.Observation
	AtBoundary bool
	Blocked    []string
	// Held is the request the branch's last action asked for and
	// speculation held (Code is branch.CodeSideEffect then).
	Held *branch.Held
	// Intent is the business intent read at the boundary.
	Intent map[string]string

	// Actions is how many actions the worker really executed (fewer than
	// the plan when it continued its parent's live context); 0 means the
	// whole plan.
	Actions int
	// Healed counts the actions the worker executed (not replayed) whose
	// target the healing cascade found.
	Healed int
}

// Kinds of search events.
const (
	EventFork  = "fork"
	EventPrune = "prune"
	EventScore = "score"
	EventWidth = "width"
)

// Event is a decision of the search, for the event log. Kind says which
// of the typed details is set: Fork, Prune, Score or Width.
type Event struct {
	Kind  string
	Node  *Node
	Fork  *ForkInfo
	Prune *Prune
	Score *ScoreInfo
	Width *WidthChange
	Guide *GuideInfo
	// Ablation is a judged try of the winner's plan (EventAblation).
	Ablation *AblationResult
}

// ForkInfo is why a branch was forked: its prior, its utility as it
// entered the frontier, and the proposer's reason.
type ForkInfo struct {
	Prior   float64
	Utility float64
	Reason  string
}

// ScoreInfo is a branch's score after its step, the predicates that
// flipped, the progress credited to the step, and the step.
type ScoreInfo struct {
	Score  scoring.Vector
	Flips  []scoring.Flip
	Credit float64
	Action string
}

// WidthChange is the beam narrowing or widening, with the two best J
// that decided it. It is logged as it is.
type WidthChange struct {
	From    int     `json:"from"`
	To      int     `json:"to"`
	BestJ   float64 `json:"best_j"`
	SecondJ float64 `json:"second_j"`
}

// Rule is the pruning rule of a prune event, "" for other kinds.
func (e Event) Rule() string {
	if e.Prune == nil {
		return ""
	}
	return e.Prune.Rule
}

// Decision is the search's verdict after a wave.
type Decision struct {
	// Winners are the branches at the boundary whose goal holds (for a
	// task without commit: whose every success predicate holds), best
	// first by the winner order. Non-empty means: commit, or report.
	Winners []*Node
	// Exhausted names why the search cannot go on ("" while it can).
	Exhausted string
	// Failed counts the branches that ended in a goal.failure predicate,
	// by predicate name, over the whole search.
	Failed map[string]int
	// Definite reports that the search ended, before any budget ran out,
	// with no winner and at least one branch in a definite failure: the
	// site said no, rather than the search running out of room.
	Definite bool
	// AuthRequired counts the branches that landed on the login page
	// (auth.login_page), over the whole search.
	AuthRequired int
}

// Search is the frontier and its policy. Not safe for concurrent use: the
// orchestrator is its single owner.
type Search struct {
	t        *task.Task
	w        Weights
	prop     Menu
	newID    func() string
	digest   string
	origin   string
	width    int
	wave     int
	nodes    []*Node
	byDigest map[string]*Node
	root     *Node
	frontier Frontier
	strategy strategy
	running  []*Node
	seen     map[string]*Node // state key -> first branch that reached it
	known    map[string]bool  // URLs shown by any executed branch
	bounded  []*Node
	effects  []*Node        // branches that ended at a side-effect boundary
	failed   map[string]int // goal.failure predicate -> branches that ended on it
	authReq  int            // branches that landed on the login page
	executed int
	spent    float64 // cost units charged (reserved at dispatch, trued up on completion)
	events   []Event
	guide    *Guide // the cached plan followed, nil once it diverged
	learned  Learned
	// stallLimit is the stall rule's limit (StallLimit).
	stallLimit int
	advisor    Advisor
	advised    map[*Node]advised        // candidates a BatchAdvisor already ordered, until expanded
	subst      map[string]branch.Action // plan digest -> the last action forked instead
	// commuted maps a set of commuting steps (commuteKey) to the branch
	// that reached it first.
	commuted map[string]*Node
}

// Menu is what the search asks of a page: every safe action on it, the
// heuristic's ranking first (Proposer.Propose), and the empty fields an
// Advisor may give values for. *Proposer is the product's.
type Menu interface {
	Propose(obs *branch.Observation, h History) []Candidate
	OpenFields(obs *branch.Observation) []branch.Affordance
}

// NewSearch creates a search for the task over a page menu (a
// *Proposer). newID names branches; the search never invents ids itself.
func NewSearch(t *task.Task, prop Menu, newID func() string, opts ...Option) *Search {
	s := &Search{t: t, prop: prop, newID: newID, digest: t.Digest(), origin: t.Origin(), w: weightsOf(opts),
		width: t.Search.BeamWidth, byDigest: map[string]*Node{}, seen: map[string]*Node{}, known: map[string]bool{},
		failed: map[string]int{}, commuted: map[string]*Node{}, stallLimit: t.Search.StallLimit}
	s.strategy = strategyFor(t.Search.Strategy)
	s.width = s.strategy.initialWidth(s)
	return s
}

// Root forks the root branch: navigate to the start URL.
func (s *Search) Root() *Node {
	plan := branch.Plan{{Kind: branch.KindNavigate, URL: s.t.StartURL, Label: "open the start page"}}
	s.root = s.fork(nil, plan, Candidate{Prior: 1, Reason: "the task's start page"})
	if s.guide != nil {
		s.root.Guide = len(s.guide.Plan)
	}
	return s.root
}

func (s *Search) fork(parent *Node, plan branch.Plan, c Candidate) *Node {
	prior, reason := c.Prior, c.Reason
	d := plan.Digest(s.digest, s.origin)
	if with, ok := s.subst[d]; ok && len(plan) > 0 {
		reason += fmt.Sprintf(" (swapped: %s instead of %s)", with.Describe(), plan[len(plan)-1].Describe())
		plan = plan[:len(plan)-1].Extend(with)
		d = plan.Digest(s.digest, s.origin)
	}
	if _, dup := s.byDigest[d]; dup {
		return nil
	}
	n := &Node{ID: s.newID(), Parent: parent, Plan: plan, Digest: d, Seed: branch.SeedFor(s.t.Seed, d),
		Depth: len(plan), Prior: prior, Reason: reason, Named: c.Named, Onward: c.Onward, State: StatePending, Wave: s.wave + 1,
		Ever: map[string]bool{}, Applied: map[string]bool{}, Visited: map[string]bool{}}
	for _, a := range plan {
		n.Cost += s.t.Prices[a.Kind]
	}
	if parent != nil {
		n.ParentID = parent.ID
		n.Utility = parent.Score.J + s.w.PriorWeight*prior
		for k, v := range parent.Ever {
			n.Ever[k] = v
		}
		for k := range parent.Applied {
			n.Applied[k] = true
		}
		for k := range parent.Visited {
			n.Visited[k] = true
		}
	} else {
		n.Utility = prior
	}
	n.index = -1
	if parent != nil {
		parent.priors += prior
		if k := commuteKey(parent, plan[len(plan)-1]); k != "" && s.commuted[k] == nil {
			s.commuted[k] = n
		}
	}
	n.Utility -= s.softPenalty(n)
	s.setLatency(n)
	s.nodes = append(s.nodes, n)
	s.byDigest[d] = n
	n.key = s.strategy.key(s, n)
	s.frontier.Push(n)
	s.events = append(s.events, Event{Kind: EventFork, Node: n, Fork: &ForkInfo{Prior: round3(prior), Utility: round3(n.Utility), Reason: reason}})
	return n
}

// Substitution is a step a counterfactual search forks otherwise: With
// in place of Plan's last action (see Search.Substitute).
type Substitution struct {
	Plan branch.Plan
	With branch.Action
}

// Substitute makes the search fork with in place of plan's last action
// whenever it would fork plan: a counterfactual ("what if this step had
// clicked that instead"). The branch's reason says so; its descendants
// are the search's own.
func (s *Search) Substitute(plan branch.Plan, with branch.Action) {
	if s.subst == nil {
		s.subst = map[string]branch.Action{}
	}
	s.subst[plan.Digest(s.digest, s.origin)] = with
}

// Width is the current beam width.
func (s *Search) Width() int { return s.width }

// Executed counts branches sent for execution.
func (s *Search) Executed() int { return s.executed }

// Spent is the cost units spent by executed branches (each replays its
// whole plan).
func (s *Search) Spent() float64 { return s.spent }

// Nodes returns every forked branch in fork order.
func (s *Search) Nodes() []*Node { return s.nodes }

// Pending returns the number of branches forked but not yet executed.
func (s *Search) Pending() int { return s.frontier.Len() }

// Drain returns the decisions recorded since the last call.
func (s *Search) Drain() []Event {
	ev := s.events
	s.events = nil
	return ev
}

// NextWave selects the branches to execute next: the best by the
// strategy's key, with a share of the beam reserved for branches from
// parents the rest does not cover (forced diversification). It reserves
// each branch's worst-case cost (replaying its whole plan) against the
// cost budget, so spending can never pass the cap. An empty wave means
// nothing is left to run.
func (s *Search) NextWave() []*Node {
	if len(s.running) > 0 {
		return nil
	}
	s.strategy.rekey(s)
	w := s.width
	if left := s.t.Budgets.TotalBranches - s.executed; left < w {
		w = max(left, 0)
	}
	if w == 0 {
		return nil
	}
	reserve := 0
	if s.t.Search.Diversity > 0 && w >= 2 && s.strategy.diversify() {
		reserve = max(1, int(float64(w)*s.t.Search.Diversity))
	}
	// Look at the best few times w candidates; put back what is not taken.
	var look []*Node
	for s.frontier.Len() > 0 && len(look) < s.w.LookFactor*w+s.w.LookExtra {
		look = append(look, s.frontier.Pop())
	}
	var pick []*Node
	taken := map[*Node]bool{}
	parents := map[string]bool{}
	budget := s.spent
	try := func(n *Node, explorer bool) bool {
		if taken[n] || !s.fits(budget, n) {
			return false
		}
		n.Explorer = explorer
		pick = append(pick, n)
		taken[n] = true
		parents[n.ParentID] = true
		budget += n.Cost
		return true
	}
	for _, n := range look {
		if len(pick) >= w-reserve {
			break
		}
		try(n, false)
	}
	for _, n := range look {
		if len(pick) >= w {
			break
		}
		if !parents[n.ParentID] {
			try(n, true)
		}
	}
	for _, n := range look { // unused diversity slots go by key
		if len(pick) >= w {
			break
		}
		try(n, false)
	}
	for _, n := range look {
		if !taken[n] {
			s.frontier.Push(n)
		}
	}
	if len(pick) == 0 {
		return nil
	}
	s.wave++
	sortByDigest(pick)
	for _, n := range pick {
		n.State = StateRunning
		n.Wave = s.wave
		s.executed++
		s.spent += n.Cost
	}
	s.running = pick
	return pick
}

// fits reports whether running n keeps spending within the cost budget.
func (s *Search) fits(spent float64, n *Node) bool {
	return s.t.Budgets.Cost <= 0 || spent+n.Cost <= s.t.Budgets.Cost
}

// softPenalty is the utility a branch loses as budgets run low: it grows
// steeply (cubically) as the branch's worst-case cost approaches what is
// left of the cost budget, and as the branch budget is used up for
// low-prior (exploratory) branches. Hard limits are enforced elsewhere.
func (s *Search) softPenalty(n *Node) float64 {
	p := 0.0
	if c := s.t.Budgets.Cost; c > 0 {
		used := (s.spent + n.Cost) / c
		p += s.w.SoftPenalty * used * used * used
	}
	if tb := s.t.Budgets.TotalBranches; tb > 0 {
		used := float64(s.executed) / float64(tb)
		p += s.w.SoftPenalty * used * used * used * (1 - n.Prior)
	}
	return p
}

// Complete records the outcome of a running branch. Outcomes are folded
// at EndWave in digest order, so arrival order does not matter. The cost
// reserved at dispatch is trued up to the actions really executed.
func (s *Search) Complete(n *Node, o Outcome) {
	n.Outcome = &o
	if o.Actions > 0 && o.Actions < len(n.Plan) {
		actual := 0.0
		for _, a := range n.Plan[len(n.Plan)-o.Actions:] {
			actual += s.t.Prices[a.Kind]
		}
		s.spent -= n.Cost - actual
	}
}

// reached reports whether a branch is done exploring: at the commit
// boundary, or, for a task without commit, wherever its every success
// predicate holds.
func reached(t *task.Task, o *Outcome) bool {
	if t.HasCommit() {
		return o.AtBoundary
	}
	return len(t.Goal.Success) > 0 && t.Goal.Satisfied(o.Obs.Predicates)
}

// firing names the failure predicates that hold now, in task order.
func firing(failure []scoring.Predicate, now map[string]bool) []string {
	var out []string
	for _, p := range failure {
		if now[p.Name] {
			out = append(out, p.Name)
		}
	}
	return out
}

// Running returns the branches of the current wave.
func (s *Search) Running() []*Node { return s.running }

// backup adds an executed branch's J to its own and its ancestors' subtree
// statistics (used by UCT).
func (s *Search) backup(n *Node) {
	for a := n; a != nil; a = a.Parent {
		a.sumJ += n.Score.J
		a.visits++
	}
}

// Stop ends the search (a wall clock ran out, say): pending branches are
// pruned as not selected.
func (s *Search) Stop() { s.finish() }

func (s *Search) finish() {
	var rest []*Node
	for s.frontier.Len() > 0 {
		rest = append(rest, s.frontier.Pop())
	}
	for _, n := range rest {
		s.prune(n, RuleNotSelected, map[string]any{"utility": round3(n.Utility)})
	}
}

func (s *Search) winners() []*Node {
	cs := make([]scoring.Candidate, len(s.bounded))
	byID := map[string]*Node{}
	for i, n := range s.bounded {
		cs[i] = n.Candidate()
		byID[n.ID] = n
	}
	if s.t.Search.Selection == "pareto" {
		scoring.RankPareto(cs)
	} else {
		scoring.Rank(cs)
	}
	out := make([]*Node, len(cs))
	for i, c := range cs {
		out[i] = byID[c.BranchID]
	}
	return out
}

func (s *Search) prune(n *Node, rule string, detail map[string]any) {
	if n.State != StateFailed && n.State != StateSideEffect {
		n.State = StatePruned
	}
	n.Prune = &Prune{Rule: rule, Detail: detail}
	s.events = append(s.events, Event{Kind: EventPrune, Node: n, Prune: n.Prune})
}

// expand forks the proposer's best children of n: up to max_children
// with a prior of at least MinPrior (the root's first expansion is wider,
// to fill the first beam, and ignores the floor). Links to a page another
// child already leads to are one idea and forked once.
func (s *Search) expand(ctx context.Context, n *Node) {
	if s.expandGuided(ctx, n) {
		return
	}
	cands := s.candidates(ctx, n)
	k, floor := s.strategy.children(s, n)
	dests := map[string]bool{}
	forked := 0
	for _, c := range cands {
		if forked >= k || c.Prior < floor {
			break
		}
		if s.forkUnlike(n, c, dests) {
			forked++
		}
	}
	for _, c := range cands {
		if forked > 0 || k == 0 {
			break
		}
		// Nothing clears the floor (a popup's controls, say, that the
		// goal's words do not name): the best of them is still a way on.
		c.Reason += " (the best of what the page offers, below the floor)"
		if s.forkUnlike(n, c, dests) {
			forked++
		}
	}
	if forked == 0 {
		s.prune(n, RuleNoAffordances, map[string]any{"url": n.Outcome.Obs.URL, "candidates": len(cands)})
	}
}

// forkUnlike forks c below n unless it is a permutation of a set of steps
// the tree holds or a link to a destination (dests) another child of n
// already leads to, and reports whether it forked.
func (s *Search) forkUnlike(n *Node, c Candidate, dests map[string]bool) bool {
	if s.permutation(n, c.Action) {
		return false
	}
	if d := destination(n.Outcome.Obs, c.Action); d != "" {
		if dests[d] {
			return false
		}
		dests[d] = true
	}
	return s.fork(n, n.Plan.Extend(c.Action), c) != nil
}

// acceptSibling forks, beside a step whose native question (a confirm, a
// prompt, leaving the page) was answered no, the same step answering
// yes: both answers are branches worth trying, and only the step's
// result tells that it asks.
func (s *Search) acceptSibling(n *Node) {
	a := n.Action()
	if n.Parent == nil || a.Dialog != "" {
		return
	}
	for _, d := range n.Outcome.Obs.Dialogs {
		if !d.Refused() {
			continue
		}
		if a.Label != "" {
			a.Label += ", accepting its dialog"
		}
		a.Dialog = branch.DialogAccept
		s.fork(n.Parent, n.Parent.Plan.Extend(a), Candidate{Prior: n.Prior, Named: n.Named, Onward: n.Onward,
			Reason: fmt.Sprintf("accepts the %s dialog %q that %s raised", d.Type, d.Message, n.Action().Describe())})
		return
	}
}

// backtrack forks, when no branch is pending and budget is left, the
// candidates that the first expansions left out of the branches where a
// choice ended in the task's failure: at most a beam's width in all, best
// branch first (by J, then digest), and at most BacktrackLimit times per
// branch. Lookalike candidates that the goal cannot tell apart (mirrors,
// free slots, sellers) are tried in turn this way once the first ones
// were refused; a search that merely ran dry elsewhere ends as before.
func (s *Search) backtrack(ctx context.Context) {
	refused := map[*Node]bool{} // parents of branches the task's failure ended
	for _, n := range s.nodes {
		if n.Parent != nil && n.Prune != nil && n.Prune.Rule == RuleGoalFailed {
			refused[n.Parent] = true
		}
	}
	var open []*Node
	for _, n := range s.nodes {
		if refused[n] && n.backtracks < s.w.BacktrackLimit && n.State == StateExplored && n.Outcome != nil && n.Outcome.Obs != nil {
			open = append(open, n)
		}
	}
	sort.SliceStable(open, func(i, j int) bool {
		if open[i].Score.J != open[j].Score.J {
			return open[i].Score.J > open[j].Score.J
		}
		return open[i].Digest < open[j].Digest
	})
	room := max(s.width, 1)
	for _, n := range open {
		if room == 0 {
			return
		}
		n.backtracks++
		room -= s.expandNext(ctx, n, room)
	}
}

// reopen forks, below each parent of a branch whose action failed (a
// timeout, a detached or covered element), the next candidate its first
// expansion left out: the failed one is no answer to what the page
// offers, so a sibling takes its place. Each parent is reopened at most
// BacktrackLimit times, in digest order.
func (s *Search) reopen(ctx context.Context, parents []*Node) {
	sortByDigest(parents)
	for i, p := range parents {
		if i > 0 && parents[i-1] == p {
			continue
		}
		if p.State != StateExplored || p.Outcome == nil || p.Outcome.Obs == nil || p.backtracks >= s.w.BacktrackLimit {
			continue
		}
		p.backtracks++
		s.expandNext(ctx, p, 1)
	}
}

// expandNext forks up to k candidates of n that are not children of n yet
// (nor links to a page a child already leads to) and returns how many it
// forked.
func (s *Search) expandNext(ctx context.Context, n *Node, k int) int {
	dests := map[string]bool{}
	for _, c := range s.nodes {
		if c.Parent == n {
			if d := destination(n.Outcome.Obs, c.Action()); d != "" {
				dests[d] = true
			}
		}
	}
	cands := s.candidates(ctx, n)
	forked := 0
	for _, c := range cands {
		if forked >= k {
			break
		}
		if d := destination(n.Outcome.Obs, c.Action); d != "" && dests[d] {
			continue
		}
		if s.permutation(n, c.Action) {
			continue
		}
		c.Reason += " (tried after the first choices here ended)"
		if s.fork(n, n.Plan.Extend(c.Action), c) != nil {
			forked++
		}
	}
	return forked
}

// goalStep reports whether a branch whose page did not change is still a
// step towards the goal: an action the goal asked for by name (a button
// of a sequence, say, whose effect the page keeps to itself), taken once
// on that state. It is explored on; noops keeps it from being proposed
// again there.
func goalStep(n *Node) bool {
	if !n.Named || n.Parent == nil || !sameState(n.Parent, n) {
		return false
	}
	return !noops(n.Parent)[string(branch.Plan{n.Action()}.Canonical())]
}

// noops holds the canonical forms of the actions that led to n without
// changing what the page shows or holds: proposing them again on the same
// state would only repeat a step that did nothing.
func noops(n *Node) map[string]bool {
	var done map[string]bool
	for m := n; m.Parent != nil && sameState(m.Parent, m); m = m.Parent {
		if done == nil {
			done = map[string]bool{}
		}
		done[string(branch.Plan{m.Action()}.Canonical())] = true
	}
	return done
}

// sameState reports whether two executed nodes observed the same page
// state.
func sameState(a, b *Node) bool {
	if a.Outcome == nil || b.Outcome == nil || a.Outcome.Obs == nil || b.Outcome.Obs == nil {
		return false
	}
	return stateKey(a.Outcome.Obs) == stateKey(b.Outcome.Obs)
}

// trackingParams are query parameters that say where a link was, not
// where it goes.
var trackingParams = words.TrackingParams.set()

// destination is the URL a link action leads to, without fragment and
// tracking parameters ("" for anything else): two links with the same
// destination are one idea.
func destination(obs *branch.Observation, a branch.Action) string {
	if a.Kind != branch.KindClick || a.Target == nil {
		return ""
	}
	for _, af := range obs.Affordances {
		if af.Target.CSS == a.Target.CSS && af.Href != "" {
			u, err := url.Parse(af.Href)
			if err != nil {
				return ""
			}
			q := u.Query()
			for k := range q {
				if trackingParams[strings.ToLower(k)] || strings.HasPrefix(strings.ToLower(k), "utm_") {
					q.Del(k)
				}
			}
			u.RawQuery, u.Fragment = q.Encode(), ""
			return u.String()
		}
	}
	return ""
}

// trimPool prunes the weakest pending branches beyond the pool bound.
func (s *Search) trimPool() {
	limit := s.width * s.t.Search.MaxChildren * s.w.PoolFactor
	if s.frontier.Len() <= limit {
		return
	}
	var keep []*Node
	for len(keep) < limit {
		keep = append(keep, s.frontier.Pop())
	}
	cutoff := keep[len(keep)-1].key
	for s.frontier.Len() > 0 {
		n := s.frontier.Pop()
		s.prune(n, RuleBeamCut, map[string]any{"utility": round3(n.Utility), "key": round3(n.key), "cutoff": round3(cutoff), "pool": limit})
	}
	for _, n := range keep {
		s.frontier.Push(n)
	}
}

// floorWidth is the narrowest the beam gets: the task's min_beam_width,
// but never below its compute budget (search.workers), so the planned
// parallelism is used. It depends on the task, never on how many workers a
// particular run has, so decisions are the same with 1 worker or 40.
func (s *Search) floorWidth() int {
	return min(s.t.Search.BeamWidth, max(s.t.Search.MinBeamWidth, s.t.Search.Workers))
}

// adjustWidth narrows the beam as scores separate and widens it again
// when they bunch up.
func (s *Search) adjustWidth(live []*Node) {
	if len(live) < 2 {
		return
	}
	js := make([]float64, len(live))
	for i, n := range live {
		js[i] = n.Score.J
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(js)))
	if !s.strategy.dynamicWidth() {
		return
	}
	old := s.width
	switch {
	case js[0]-js[1] >= s.w.SeparationMargin && s.width > s.floorWidth():
		s.width--
	case js[0]-js[len(js)-1] < s.w.SeparationMargin/4 && s.width < s.t.Search.BeamWidth:
		s.width++
	}
	if s.width != old {
		s.events = append(s.events, Event{Kind: EventWidth, Width: &WidthChange{From: old, To: s.width, BestJ: js[0], SecondJ: js[1]}})
	}
}

func stateKey(o *branch.Observation) string {
	var t []string
	for k, v := range o.Predicates {
		if v {
			t = append(t, k)
		}
	}
	sort.Strings(t)
	return o.DOMHash + "|" + strings.Join(t, ",")
}

func sortByDigest(ns []*Node) {
	sort.Slice(ns, func(i, j int) bool { return ns[i].Digest < ns[j].Digest })
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5*sign(x))) / 1000 }

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}
