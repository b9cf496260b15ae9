package job

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// WireVersion is the job and result format version.
const WireVersion = 1

// ErrWireVersion is returned for a job or result of an unknown version.
var ErrWireVersion = errors.New("job: unknown wire version")

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
	// Explore is the task's explore section: the state-changing requests
	// speculation may send and the origins it may go to.
	Explore task.Explore          `json:"explore,omitempty"`
	Inputs  map[string]task.Input `json:"inputs,omitempty"`
	// StorageState is the task's auth.storage_state reference: each
	// worker resolves it, as it does secret inputs.
	StorageState *task.Input `json:"storage_state,omitempty"`
	// Login is the version of the run's scripted login (0: none): a
	// worker asks the run for its session state (worker.Options.LoginState)
	// and starts every branch from it.
	Login int `json:"login,omitempty"`
	// ScrubKey is the run's scrubbing key: tokens made by workers must
	// match the orchestrator's.
	ScrubKey []byte `json:"scrub_key"`
	// Screenshots stores screenshots of branches' last steps: where a
	// person looks (a failed or healed step, the boundary, the goal met, a
	// dead end, an HTTP error), or every one with ScreenshotsAll.
	Screenshots bool `json:"screenshots"`
	// ScreenshotsAll takes a screenshot of every branch's last step
	// (capture.screenshots: all).
	ScreenshotsAll bool `json:"screenshots_all,omitempty"`
	// Success names the goal's success predicates: a page where all hold
	// is one a person looks at.
	Success []string `json:"success,omitempty"`
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
		Predicates: t.Predicates(), DeadEnds: t.DeadEnds, Extract: t.Extract, Inputs: t.Inputs, StorageState: t.Auth.StorageState,
		Explore: t.Explore}
	if c := t.Commit; c != nil {
		s.Boundary, s.Intent, s.Guard = c.Boundary, c.Intent, c.Guard
	}
	return s
}

// ResolveInput returns the value of the spec's input name, reading a
// secret from this process's environment or file system. Its method value
// is what a browser session resolves inputs with.
func (s *Spec) ResolveInput(name string) (string, error) {
	in, ok := s.Inputs[name]
	if !ok {
		return "", fmt.Errorf("the task has no input %q", name)
	}
	return in.Resolve()
}

// Job asks a worker to execute one branch.
type Job struct {
	V        int    `json:"v"`
	RunID    string `json:"run_id"`
	BranchID string `json:"branch_id"`
	ParentID string `json:"parent_id,omitempty"`
	// Heir says the job is the child chosen to continue its parent's live
	// session (the one routed to the worker that kept it): a worker gives
	// the session to no other child, so which branch ran warm is the
	// same from run to run.
	Heir       bool          `json:"heir,omitempty"`
	Plan       branch.Plan   `json:"plan"`
	PlanDigest string        `json:"plan_digest"`
	Deadline   task.Duration `json:"branch_timeout"`
	Spec       *Spec         `json:"spec"`
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
		return nil, fmt.Errorf("job: decoding job: %w", err)
	}
	if j.V != WireVersion {
		return nil, fmt.Errorf("%w: job version %d", ErrWireVersion, j.V)
	}
	if j.Spec == nil || len(j.Plan) == 0 || j.BranchID == "" || j.RunID == "" {
		return nil, fmt.Errorf("job: job %s is incomplete", j.BranchID)
	}
	for i, a := range j.Plan {
		if err := a.Validate(); err != nil {
			return nil, fmt.Errorf("job: job %s action %d: %w", j.BranchID, i+1, err)
		}
	}
	return &j, nil
}
