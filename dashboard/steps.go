package dashboard

import (
	"fmt"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/explain"
	"github.com/multiverse-orchestrator/multiverse/scoring"
)

// Step is one action of a branch's plan. Step k was executed, and
// observed, by the k-th branch of the chain from the root (BranchID); the
// branch itself executed only its last step and replayed the others.
type Step struct {
	Index    int    `json:"index"`
	BranchID string `json:"branch_id"`
	Action   string `json:"action"`
	Kind     string `json:"kind"`
	// The result, from action_end: ok, healed, failed or skipped, the
	// error code, the selector strategy used, the duration.
	Status     string      `json:"status"`
	Code       branch.Code `json:"code,omitempty"`
	Error      string      `json:"error,omitempty"`
	Strategy   string      `json:"strategy,omitempty"`
	DurationMS int64       `json:"duration_ms"`
	// Console is what the page said on its console and the errors it did
	// not catch while the step ran.
	Console []branch.ConsoleEntry `json:"console,omitempty"`
	// Slow says why the step's network had not settled in time.
	Slow string `json:"slow,omitempty"`
	// RedirectedFrom is the first document the step requested when the
	// page ended elsewhere (a redirect).
	RedirectedFrom string `json:"redirected_from,omitempty"`
	// The page after the step, from nav.
	URL        string `json:"url,omitempty"`
	Title      string `json:"title,omitempty"`
	HTTPStatus int    `json:"http_status,omitempty"`
	// The score after the step, from metric_update: the predicates the
	// step flipped and the progress credited to it.
	J      float64        `json:"j"`
	Flips  []scoring.Flip `json:"flips"`
	Credit float64        `json:"credit"`
	// Before and After are the screenshot artifact digests of the page
	// before and after the step ("" when none was taken).
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// DOM and AX are the artifact digests of the canonical DOM and the
	// accessibility tree after the step (scrubbed).
	DOM string `json:"dom,omitempty"`
	AX  string `json:"ax,omitempty"`
	// Network is what the step's page requested, in order, as recorded
	// (scrubbed at capture); a held request is marked blocked.
	Network []Request `json:"network,omitempty"`
}

// Request is one request a step's page made.
type Request struct {
	Method     string `json:"method"`
	URL        string `json:"url"`
	Type       string `json:"type,omitempty"`
	Status     int    `json:"status"`
	DurationMS int64  `json:"duration_ms,omitempty"`
	Size       int    `json:"size,omitempty"`
	Blocked    bool   `json:"blocked,omitempty"`
	Error      string `json:"error,omitempty"`
	Late       bool   `json:"late,omitempty"`
	Body       string `json:"body,omitempty"` // the response body's artifact digest
}

// BranchDetail is one branch: its node, its steps, why it ended as it
// did (the lines `orchestrator events RUN --branch B` prints after the
// events) and its own events, pretty-printed.
type BranchDetail struct {
	RunID   string   `json:"run_id"`
	Branch  Branch   `json:"branch"`
	Steps   []Step   `json:"steps"`
	Explain []string `json:"explain"`
	Events  []string `json:"events"`
}

// executed is what a branch's own events say about the step it executed.
type executed struct {
	end    *payload.ActionEnd
	nav    *payload.Nav
	snap   *payload.DOMSnapshot
	metric *payload.MetricUpdate
	net    []branch.NetRecord
}

// branchDetail derives a branch's detail from all the events of its run.
// It fails when the run has no such branch.
func branchDetail(runID string, es []eventlog.Event, branchID string) (*BranchDetail, error) {
	t := newTree()
	forks := map[string]payload.BranchFork{}
	runs := map[string]*executed{}
	var own []string
	for _, e := range es {
		t.apply(e)
		if e.BranchID == branchID {
			own = append(own, eventlog.Pretty(e))
		}
		collect(e, forks, runs)
	}
	b := t.branches[branchID]
	if b == nil {
		return nil, fmt.Errorf("%w: run %s has no branch %s", ErrNotFound, runID, branchID)
	}
	d := &BranchDetail{RunID: runID, Branch: *b, Explain: explain.Branch(es, branchID), Events: own}
	d.Steps = chainSteps(forks, runs, branchID)
	return d, nil
}

// collect records the fork and the executed step of e's branch.
func collect(e eventlog.Event, forks map[string]payload.BranchFork, runs map[string]*executed) {
	if e.BranchID == "" {
		return
	}
	x := runs[e.BranchID]
	if x == nil {
		x = &executed{}
		runs[e.BranchID] = x
	}
	switch e.Kind {
	case eventlog.KindBranchFork:
		if f, err := payload.Decode[payload.BranchFork](e); err == nil {
			forks[e.BranchID] = f
		}
	case eventlog.KindActionEnd:
		if v, err := payload.Decode[payload.ActionEnd](e); err == nil && !v.Replayed {
			x.end = &v
		}
	case eventlog.KindNav:
		if v, err := payload.Decode[payload.Nav](e); err == nil {
			x.nav = &v
		}
	case eventlog.KindDOMSnapshot:
		if v, err := payload.Decode[payload.DOMSnapshot](e); err == nil {
			x.snap = &v
		}
	case eventlog.KindMetricUpdate:
		if v, err := payload.Decode[payload.MetricUpdate](e); err == nil {
			x.metric = &v
		}
	case eventlog.KindNet:
		if v, err := payload.Decode[payload.Net](e); err == nil {
			x.net = append(x.net, v.NetRecord)
		}
	}
}

// chainSteps lists the steps of branchID's plan, each from the branch of
// the root-to-branch chain that executed it.
func chainSteps(forks map[string]payload.BranchFork, runs map[string]*executed, branchID string) []Step {
	leaf := forks[branchID]
	var chain []string
	for id := branchID; id != "" && len(chain) <= len(leaf.Plan); id = forks[id].Parent {
		chain = append([]string{id}, chain...)
	}
	steps := make([]Step, 0, len(leaf.Plan))
	before := ""
	for k, a := range leaf.Plan {
		s := Step{Index: k + 1, Action: a.Describe(), Kind: a.Kind, Before: before, Flips: []scoring.Flip{}}
		if k < len(chain) {
			s.BranchID = chain[k]
			fill(&s, runs[chain[k]])
		}
		before = s.After
		steps = append(steps, s)
	}
	return steps
}

func fill(s *Step, x *executed) {
	if x == nil {
		return
	}
	if e := x.end; e != nil {
		s.Status, s.Code, s.Error, s.Strategy, s.DurationMS = e.Status, e.Code, e.Error, e.Strategy, e.DurationMS
		s.Console, s.Slow = e.Console, e.Slow
		if n := e.Nav; n != nil && n.Original != n.Final {
			s.RedirectedFrom = n.Original
		}
	}
	if n := x.nav; n != nil {
		s.URL, s.Title, s.HTTPStatus = n.URL, n.Title, n.Status
	}
	if o := x.snap; o != nil {
		s.After, s.DOM, s.AX = o.Screenshot, o.DOMArtifact, o.AXArtifact
	}
	for _, n := range x.net {
		if n.Step < s.Index {
			continue // the prefix a cold branch replayed: its ancestors' steps show theirs
		}
		s.Network = append(s.Network, Request{Method: n.Method, URL: n.URL, Type: n.Type, Status: n.Status, DurationMS: n.DurationMS,
			Size: n.BodySize, Blocked: n.Blocked, Error: n.Error, Late: n.Late, Body: n.BodyHash})
	}
	if m := x.metric; m != nil {
		s.J, s.Credit = m.Score.J, m.Credit
		if m.Flips != nil {
			s.Flips = m.Flips
		}
	}
}
