package payload

import (
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// RunStart is the run manifest, the payload of run_start: what a replay
// needs to rebuild the run's browser environment and to score its
// observations again. Values a person supplied are recorded scrubbed.
type RunStart struct {
	Task              string           `json:"task"`
	TaskDigest        string           `json:"task_digest"`
	TaskFile          string           `json:"task_file"`
	StartURL          string           `json:"start_url"`
	Seed              string           `json:"seed"` // the run seed, in decimal
	SeedFromTask      bool             `json:"seed_from_task"`
	Budgets           task.Budgets     `json:"budgets"`
	Search            task.Search      `json:"search"`
	Weights           scoring.Weights  `json:"weights"`
	Environment       task.Environment `json:"environment"` // header values replaced by their tokens
	Workers           int              `json:"workers"`
	NATS              string           `json:"nats"`
	MultiverseVersion string           `json:"multiverse_version"`
	Fingerprint       Fingerprint      `json:"fingerprint"`
	ScrubKeySHA256    string           `json:"scrub_key_sha256"`
	// RecallSalt is the salt of the run's recalls (scrub.Recall): a
	// bundle carries it with the recall its steps recorded.
	RecallSalt       string                `json:"recall_salt,omitempty"`
	RecallIterations int                   `json:"recall_iterations,omitempty"`
	Origin           string                `json:"origin"`
	Inputs           map[string]Input      `json:"inputs"`
	Guard            []task.RequestPattern `json:"guard"`
	// Explore is the task's explore section; HoldsWrites says the run's
	// speculative sessions held every state-changing request it does not
	// allow (every run since speculation denies by default).
	Explore     *task.Explore       `json:"explore,omitempty"`
	HoldsWrites bool                `json:"holds_writes,omitempty"`
	Goal        scoring.Goal        `json:"goal"`
	GoalFailure []scoring.Predicate `json:"goal_failure"`
	Boundary    scoring.Predicate   `json:"boundary"`
	Prices      map[string]float64  `json:"prices"`
	Extract     []task.IntentField  `json:"extract"`
	HasCommit   bool                `json:"has_commit"`
	// Proposer is the planner's proposer (heuristic or llm); Model is
	// the route of an llm one.
	Proposer string      `json:"proposer,omitempty"`
	Model    *ModelRoute `json:"model,omitempty"`
	// Reproduces names the run a rerun reproduces; nil for a run of its
	// own.
	Reproduces *Reproduction `json:"reproduces,omitempty"`
	// NetDigest is the form of the run's network digests:
	// branch.NetDigestMultiset, or "" for the older form (request order).
	NetDigest string `json:"net_digest,omitempty"`
	// Learning names the record of the site the run's search read (package
	// learn); nil when it read none (search.learning: false).
	Learning *Learning `json:"learning,omitempty"`
}

// Learning is the record of a site a run's search read: its site and
// version, the steps it held, and the artifact that keeps it (a rerun
// reads it from there: Pinned marks a run that was given it so).
type Learning struct {
	Site     string `json:"site"`
	Version  int    `json:"version"`
	Steps    int    `json:"steps"`
	Artifact string `json:"artifact,omitempty"`
	Pinned   bool   `json:"pinned,omitempty"`
}

// Reproduction is the run a rerun reproduces: its id, how much of it the
// rerun held fixed (full or hybrid), and the data dir it was read from.
type Reproduction struct {
	RunID   string `json:"run_id"`
	Mode    string `json:"mode"`
	DataDir string `json:"data_dir,omitempty"`
}

// Kind implements Payload.
func (RunStart) Kind() string { return eventlog.KindRunStart }

// Fingerprint names the browser build and platform of a run; it converts
// to and from browser.Fingerprint.
type Fingerprint struct {
	Browser       string `json:"browser"`
	BrowserPath   string `json:"browser_path"`
	DriverVersion string `json:"driver_version"`
	OS            string `json:"os"`
	Arch          string `json:"arch"`
}

// Input says what a replay types in place of a task input: the scrubbed
// form the recorded pages show.
type Input struct {
	Token  string `json:"token"`
	Secret bool   `json:"secret"`
}

// RunEnd is the payload of run_end: how the run ended.
type RunEnd struct {
	Status    string      `json:"status"` // as orchestrator.Summary.Status
	Error     string      `json:"error"`  // scrubbed
	ElapsedMS int64       `json:"elapsed_ms"`
	Branches  RunBranches `json:"branches"`
	ExitCode  int         `json:"exit_code"` // the CLI's exit code for the run
}

// Kind implements Payload.
func (RunEnd) Kind() string { return eventlog.KindRunEnd }

// RunBranches counts a run's branches by what became of them; it
// converts to and from orchestrator.BranchCounts.
type RunBranches struct {
	Forked   int `json:"forked"`
	Executed int `json:"executed"`
	Explored int `json:"explored"`
	Boundary int `json:"boundary"`
	Pruned   int `json:"pruned"`
	Failed   int `json:"failed"`
}

// StartState is the payload of start_state: the browser state every
// branch of the run starts from from now on (the task's storage state,
// or the session its scripted login left), so that a strict replay
// starts its page from it too. State is the artifact digest of the
// state's JSON (a task.StorageState), scrubbed (StorageState.Scrubbed):
// the values are never in the event itself.
type StartState struct {
	// Version is the login version (job.Spec.Login) the state is.
	Version int    `json:"version"`
	State   string `json:"state"`
	Cookies int    `json:"cookies"`
	Origins int    `json:"origins"`
}

// Kind implements Payload.
func (StartState) Kind() string { return eventlog.KindStartState }
