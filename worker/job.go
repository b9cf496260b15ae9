package worker

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// WireVersion is the job and result format version.
const WireVersion = 1

// ErrWireVersion is returned for a job or result of an unknown version.
var ErrWireVersion = errors.New("worker: unknown wire version")

// Spec is the part of a job that is the same for every branch of a run.
type Spec struct {
	Origin     string              `json:"origin"`
	RunSeed    uint64              `json:"run_seed"`
	Env        task.Environment    `json:"env"`
	Timeout    task.Duration       `json:"action_timeout"`
	Predicates []scoring.Predicate `json:"predicates"`
	Boundary   scoring.Predicate   `json:"boundary"`
	// Intent lists the business intent fields read at the boundary, so
	// the committer can tell what changed between exploration and commit.
	Intent []task.IntentField `json:"intent,omitempty"`
	// Extract lists the values a task without a side effect reports:
	// read after every branch's last step, so the winner's are at hand.
	Extract  []task.IntentField    `json:"extract,omitempty"`
	DeadEnds []scoring.Detector    `json:"dead_ends,omitempty"`
	Guard    []task.RequestPattern `json:"guard,omitempty"`
	Inputs   map[string]task.Input `json:"inputs,omitempty"`
	// StorageState is the task's auth.storage_state reference: each
	// worker resolves it, as it does secret inputs.
	StorageState *task.Input `json:"storage_state,omitempty"`
	// Login is the version of the run's scripted login (0: none): a
	// worker asks the run for its session state (Options.LoginState)
	// and starts every branch from it.
	Login int `json:"login,omitempty"`
	// ScrubKey is the run's scrubbing key: tokens made by workers must
	// match the orchestrator's.
	ScrubKey []byte `json:"scrub_key"`
	// Screenshots stores a screenshot of each branch's last step.
	Screenshots bool `json:"screenshots"`
	// Cookies are the cookies the site set on the run's first page (its
	// assignment of this visitor: an A/B variant, a session): every branch
	// starts from them, so all branches and the committer see the site in
	// the same state.
	Cookies []branch.Cookie `json:"cookies,omitempty"`
}

// NewSpec returns the spec of the task's branches: what the task says
// (origin, seed, environment, predicates, commit boundary, intent and
// guard, extract fields, inputs). The caller adds the scrubbing key and
// the run's choices (screenshots, pinned cookies).
func NewSpec(t *task.Task) *Spec {
	s := &Spec{Origin: t.Origin(), RunSeed: t.Seed, Env: t.Environment, Timeout: t.Budgets.ActionTimeout,
		Predicates: t.Predicates(), DeadEnds: t.DeadEnds, Extract: t.Extract, Inputs: t.Inputs, StorageState: t.Auth.StorageState}
	if c := t.Commit; c != nil {
		s.Boundary, s.Intent, s.Guard = c.Boundary, c.Intent, c.Guard
	}
	return s
}

// Job asks a worker to execute one branch.
type Job struct {
	V          int           `json:"v"`
	RunID      string        `json:"run_id"`
	BranchID   string        `json:"branch_id"`
	ParentID   string        `json:"parent_id,omitempty"`
	Plan       branch.Plan   `json:"plan"`
	PlanDigest string        `json:"plan_digest"`
	Seed       uint64        `json:"seed"`
	Deadline   task.Duration `json:"branch_timeout"`
	Spec       *Spec         `json:"spec"`
}

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
	// Net lists the requests of the last step.
	Net []branch.NetRecord `json:"net,omitempty"`
	// Requests lists every response of the branch, for request_seen.
	Requests    []scoring.RequestFact `json:"requests,omitempty"`
	Blocked     []string              `json:"blocked,omitempty"`
	Unsupported []string              `json:"unsupported,omitempty"`
	ErrCode     string                `json:"error_code,omitempty"`
	ErrMsg      string                `json:"error,omitempty"`
	ErrStep     int                   `json:"error_step,omitempty"`
	Timing      Timing                `json:"timing"`
	// Reused reports that the branch continued its parent's live context
	// instead of replaying the prefix.
	Reused bool `json:"reused,omitempty"`
	// WarmRoute, when set, says the worker kept the branch's live context
	// for its children: a child published to this bus route continues it
	// instead of replaying the prefix.
	WarmRoute string    `json:"warm_route,omitempty"`
	Started   time.Time `json:"started"`

	kept bool // the executor parked the session for children
}

// Encode returns the wire form of a job.
func (j *Job) Encode() ([]byte, error) {
	j.V = WireVersion
	return json.Marshal(j)
}

// DecodeJob parses a job, refusing unknown versions.
func DecodeJob(b []byte) (*Job, error) {
	var j Job
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("worker: decoding job: %w", err)
	}
	if j.V != WireVersion {
		return nil, fmt.Errorf("%w: job version %d", ErrWireVersion, j.V)
	}
	if j.Spec == nil || len(j.Plan) == 0 || j.BranchID == "" || j.RunID == "" {
		return nil, fmt.Errorf("worker: job %s is incomplete", j.BranchID)
	}
	for i, a := range j.Plan {
		if err := a.Validate(); err != nil {
			return nil, fmt.Errorf("worker: job %s action %d: %w", j.BranchID, i+1, err)
		}
	}
	return &j, nil
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
		return nil, fmt.Errorf("worker: decoding result: %w", err)
	}
	if r.V != WireVersion {
		return nil, fmt.Errorf("%w: result version %d", ErrWireVersion, r.V)
	}
	return &r, nil
}
