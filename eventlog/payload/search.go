package payload

import (
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/scoring"
)

// BranchFork is the payload of branch_fork: a child branch and why the
// planner forked it.
type BranchFork struct {
	Parent     string      `json:"parent"` // "" for the root
	PlanDigest string      `json:"plan_digest"`
	Seed       uint64      `json:"seed"`
	Depth      int         `json:"depth"`
	Action     string      `json:"action"` // the last action, described
	Prior      float64     `json:"prior"`
	Utility    float64     `json:"utility"`
	Reason     string      `json:"reason"`
	Plan       branch.Plan `json:"plan"`
	// Removed marks an ablation: the winner's steps (1-based) this
	// branch's plan leaves out; Parent ran their common prefix.
	Removed []int `json:"removed,omitempty"`
	// Wave is the wave the branch was forked for (1 for the root's
	// children); 0 in logs written before it was recorded.
	Wave int `json:"wave,omitempty"`
}

// Kind implements Payload.
func (BranchFork) Kind() string { return eventlog.KindBranchFork }

// MetricUpdate is the payload of metric_update: a branch's score after its
// last action, and the predicates that action flipped.
type MetricUpdate struct {
	Score  scoring.Vector `json:"score"`
	Flips  []scoring.Flip `json:"flips"`
	Credit float64        `json:"credit"` // progress gained over the parent
	Action string         `json:"action"`
}

// Kind implements Payload.
func (MetricUpdate) Kind() string { return eventlog.KindMetricUpdate }

// BranchPruned is the payload of branch_pruned: the rule that cut a
// branch, with the rule's own numbers in Detail.
type BranchPruned struct {
	Rule       string         `json:"rule"`
	Detail     map[string]any `json:"detail"`
	State      string         `json:"state"` // the planner's state of the branch
	PlanDigest string         `json:"plan_digest"`
	J          float64        `json:"j"`
	Progress   float64        `json:"progress"`
}

// Kind implements Payload.
func (BranchPruned) Kind() string { return eventlog.KindBranchPruned }

// Winner is the payload of winner: the branches at the boundary, best
// first, and the order that ranked them. The event's branch is the first.
type Winner struct {
	Order   string `json:"order"`
	Ranking []Rank `json:"ranking"`
}

// Kind implements Payload.
func (Winner) Kind() string { return eventlog.KindWinner }

// Rank is one branch of the winner ranking.
type Rank struct {
	BranchID    string  `json:"branch_id"`
	PlanDigest  string  `json:"plan_digest"`
	J           float64 `json:"j"`
	Cost        float64 `json:"cost"`
	Steps       int     `json:"steps"`
	Progress    float64 `json:"progress"`
	Confidence  float64 `json:"confidence"`
	Risk        float64 `json:"risk"`
	DominatedBy string  `json:"dominated_by,omitempty"` // a branch that beats it on every objective
}

// PlanCache is the payload of plan_cache: what the run did with the plan
// cache. What is "hit" (a plan was found: Of steps, From the run and
// branch it came from), "followed" (Step matched what the cache
// recorded), "diverged" (Step did not: Reason says how; the search goes
// on from the last step that matched) or "stored" (the winner's plan of
// Of steps was cached).
type PlanCache struct {
	What   string `json:"what"`
	Step   int    `json:"step,omitempty"`
	Of     int    `json:"of"`
	Reason string `json:"reason,omitempty"`
	From   string `json:"from,omitempty"`
}

// Kind implements Payload.
func (PlanCache) Kind() string { return eventlog.KindPlanCache }

// Ablation is the payload of ablation: the branch (the event's) tried the
// winner's plan without the steps Removed (1-based in the winner's plan;
// Actions describe them). Needed says the plan no longer ended as the
// winner did (Why says how); Credit is the winner's progress the plan lost
// without them, 0 when they were not needed.
type Ablation struct {
	Winner  string   `json:"winner"`
	Removed []int    `json:"removed"`
	Actions []string `json:"actions"`
	Needed  bool     `json:"needed"`
	Why     string   `json:"why,omitempty"`
	Credit  float64  `json:"credit"`
}

// Kind implements Payload.
func (Ablation) Kind() string { return eventlog.KindAblation }

// MinimalPlan is the payload of minimal_plan: the branch (the event's)
// whose plan of Steps steps is the shortest that ends as the winner's of
// WinnerSteps did, leaving out the winner's steps Removed (the winner
// itself when none could go). The plan cache and flow export use it.
type MinimalPlan struct {
	Winner      string   `json:"winner"`
	Steps       int      `json:"steps"`
	WinnerSteps int      `json:"winner_steps"`
	Removed     []int    `json:"removed,omitempty"`
	Actions     []string `json:"actions,omitempty"`
	PlanDigest  string   `json:"plan_digest"`
}

// Kind implements Payload.
func (MinimalPlan) Kind() string { return eventlog.KindMinimalPlan }

// LLMRequest is a question the planner asked a language model: rank the
// candidates of a branch's page (Step is the step they would be). The
// request itself, canonical and scrubbed, is the artifact RequestSHA256;
// Fingerprint keys the cassette.
type LLMRequest struct {
	Step          int    `json:"step"`
	Fingerprint   string `json:"fingerprint"`
	Model         string `json:"model"`
	PromptVersion string `json:"prompt_version"`
	Mode          string `json:"mode"`
	Menu          int    `json:"menu"`
	Fields        int    `json:"fields,omitempty"`
	RequestSHA256 string `json:"request_sha256,omitempty"`
}

// Kind implements Payload.
func (LLMRequest) Kind() string { return eventlog.KindLLMRequest }

// LLMResponse is the model's answer to the LLMRequest of the same
// fingerprint before it. Ranking is the order it gave (menu indexes,
// then fields); Fallback, when set, says why the heuristic's order stood
// instead (an endpoint error, a timeout, an answer that is no ranking of
// the menu). Cost, in the task's cost units, was charged to the budget.
type LLMResponse struct {
	Step             int     `json:"step"`
	Fingerprint      string  `json:"fingerprint"`
	Model            string  `json:"model,omitempty"`
	FromCassette     bool    `json:"from_cassette,omitempty"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	LatencyMS        int64   `json:"latency_ms"`
	Cost             float64 `json:"cost"`
	Ranking          []int   `json:"ranking,omitempty"`
	Values           int     `json:"values,omitempty"`
	Fallback         string  `json:"fallback,omitempty"`
	ResponseSHA256   string  `json:"response_sha256,omitempty"`
}

// Kind implements Payload.
func (LLMResponse) Kind() string { return eventlog.KindLLMResponse }

// ModelRoute is what a run's manifest says of the model its planner
// asks: the route, the decoding parameters, the prompt template's
// version and where answers came from (live, record, replay).
type ModelRoute struct {
	Model         string  `json:"model"`
	BaseURL       string  `json:"base_url"`
	Temperature   float64 `json:"temperature"`
	Seed          *int64  `json:"seed,omitempty"`
	MaxTokens     int     `json:"max_tokens"`
	PromptVersion string  `json:"prompt_version"`
	Mode          string  `json:"mode"`
	Cassettes     string  `json:"cassettes,omitempty"`
}
