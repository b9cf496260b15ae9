package job

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/scoring"
)

// Result statuses.
const (
	ResultOK     = "ok"     // every action ran; Obs is set
	ResultFailed = "failed" // an action failed; Error says which and why
)

// Step is one executed action of a branch, as the worker saw it.
type Step struct {
	branch.StepResult
	// Replayed marks prefix actions re-executed to materialize the branch.
	Replayed bool `json:"replayed,omitempty"`
	// TraceID and SpanID name the step's span (a child of the branch
	// span carried in the job's headers).
	TraceID string `json:"trace_id,omitempty"`
	SpanID  string `json:"span_id,omitempty"`
}

// Timing breaks down where a job's time went, in milliseconds.
type Timing struct {
	Context int64 `json:"context_ms"`
	Prefix  int64 `json:"prefix_ms"`
	Action  int64 `json:"action_ms"`
	Observe int64 `json:"observe_ms"`
	Total   int64 `json:"total_ms"`
}

// Result is what a worker reports for a job.
type Result struct {
	V        int    `json:"v"`
	RunID    string `json:"run_id"`
	BranchID string `json:"branch_id"`
	Attempt  int    `json:"attempt"`
	Worker   string `json:"worker"`
	Status   string `json:"status"`
	Steps    []Step `json:"steps"`
	// Obs is the observation after the last step (also after a failed
	// last action when the page could still be observed).
	Obs *branch.Observation `json:"obs,omitempty"`
	// AtBoundary reports whether the commit boundary predicate holds.
	AtBoundary bool `json:"at_boundary"`
	// Intent holds the intent fields read at the boundary (scrubbed).
	Intent map[string]string `json:"intent,omitempty"`
	// Extract holds the task's extract fields read after the last step
	// (scrubbed); a field the page does not show is absent.
	Extract map[string]string `json:"extract,omitempty"`
	// Cookies holds the root branch's cookies after the first page: the
	// orchestrator pins them for every later branch and the committer.
	// They travel to the orchestrator only, never into events or bundles.
	Cookies []branch.Cookie `json:"cookies,omitempty"`
	// Net lists the requests of the steps the branch executed: its last
	// step's and, when PrefixNet is set, those of the prefix it replayed
	// in a context of its own (each record's Step says which step).
	Net []branch.NetRecord `json:"net,omitempty"`
	// PrefixNet says Net holds the replayed prefix's requests too: the
	// branch's bundle then serves its prefix from its own context's
	// answers, not from its ancestors' (a site whose pages differ from
	// load to load, a fresh form token in each, answered them
	// differently).
	PrefixNet bool `json:"prefix_net,omitempty"`
	// Requests lists every response of the branch, for request_seen.
	Requests []scoring.RequestFact `json:"requests,omitempty"`
	// Blocked lists the held requests the branch's own actions asked
	// for ("POST {origin}/admin/profile"), scrubbed.
	Blocked []string `json:"blocked,omitempty"`
	// Held lists every request the branch's session held instead of
	// sending: the ones its actions caused and the page's own.
	Held        []branch.Held `json:"held,omitempty"`
	Unsupported []string      `json:"unsupported,omitempty"`
	ErrCode     branch.Code   `json:"error_code,omitempty"`
	ErrMsg      string        `json:"error,omitempty"`
	ErrStep     int           `json:"error_step,omitempty"`
	Timing      Timing        `json:"timing"`
	// Reused reports that the branch continued its parent's live context
	// instead of replaying the prefix.
	Reused bool `json:"reused,omitempty"`
	// WarmRoute, when set, says the worker kept the branch's live context
	// for its children: a child published to this bus route continues it
	// instead of replaying the prefix.
	WarmRoute string    `json:"warm_route,omitempty"`
	Started   time.Time `json:"started"`
}

// Encode returns the wire form of a result.
func (r *Result) Encode() ([]byte, error) {
	r.V = WireVersion
	return json.Marshal(r)
}

// DecodeResult parses a result, refusing unknown versions.
func DecodeResult(b []byte) (*Result, error) {
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("job: decoding result: %w", err)
	}
	if r.V != WireVersion {
		return nil, fmt.Errorf("%w: result version %d", ErrWireVersion, r.V)
	}
	return &r, nil
}

// Healed counts the actions the worker executed (not replayed) whose
// target the healing cascade found.
func (r *Result) Healed() int {
	n := 0
	for _, st := range r.Steps {
		if !st.Replayed && st.Status == branch.StatusHealed {
			n++
		}
	}
	return n
}
