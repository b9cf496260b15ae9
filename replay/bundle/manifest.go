package bundle

import (
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// Schema is the format version this package writes and the only one it
// reads. Readers refuse any other value with an error matching [ErrSchema].
const Schema = "multiverse.bundle/v1"

// Kind says what a bundle records.
type Kind string

// Bundle kinds.
const (
	// KindBranch is the record of one explored branch.
	KindBranch Kind = "branch"
	// KindCommit is the record of the committed branch, with [CommitInfo].
	KindCommit Kind = "commit"
)

// Manifest is manifest.json: what was run, where, with which seeds and
// environment, and the plan the steps executed. Collections that are empty
// are written as absent and read back as nil.
type Manifest struct {
	// Schema must be [Schema].
	Schema string `json:"schema"`
	// Kind is KindBranch or KindCommit; Commit is set exactly for
	// KindCommit.
	Kind       Kind   `json:"kind"`
	RunID      string `json:"run_id"`
	BranchID   string `json:"branch_id"`
	PlanDigest string `json:"plan_digest"`
	TaskDigest string `json:"task_digest"`
	TaskName   string `json:"task_name"`
	// Seed is the run seed and BranchSeed the branch seed, both uint64 in
	// decimal (JSON numbers lose precision above 2^53). Empty or a valid
	// uint64.
	Seed       string `json:"seed"`
	BranchSeed string `json:"branch_seed"`
	// Origin is the task's start origin at capture time, e.g.
	// "http://127.0.0.1:8555"; [NormalizeURL] folds it to "{origin}".
	Origin   string `json:"origin"`
	StartURL string `json:"start_url"`
	// Environment is the frozen browser environment of the capture.
	Environment Environment `json:"environment"`
	// Fingerprint names the software that captured the bundle.
	Fingerprint Fingerprint `json:"fingerprint"`
	// Plan is the branch's action list; Steps[i] executed Plan[i].
	Plan []branch.Action `json:"plan"`
	// Inputs says, per task input name, how the replayer obtains its value.
	Inputs map[string]InputRef `json:"inputs,omitempty"`
	// Guard lists requests the branch was not allowed to send: the task's
	// commit.guard patterns. A commit bundle records them too (the
	// committer sent what they match); replays never send them.
	Guard []Guard `json:"guard,omitempty"`
	// HoldsWrites says the capture held every state-changing request
	// (any method but GET, HEAD and OPTIONS) that Allow does not name, and
	// any navigation off Origin and Origins; a replay holds the same ones.
	// A commit bundle's committer released them for its commit action.
	HoldsWrites bool `json:"holds_writes,omitempty"`
	// NetDigest is the form of the steps' network digests:
	// branch.NetDigestMultiset (the lines sorted), or "" for bundles
	// recorded before it (request order). A replay digests its own
	// network in the form the bundle holds.
	NetDigest string  `json:"net_digest,omitempty"`
	Allow     []Guard `json:"allow,omitempty"`
	// StartState is the sha256 of the body file (BodyPath) holding the
	// browser state every step of the capture started from: a JSON
	// storage state (cookies and local storage, as Playwright writes
	// it), its credentials replaced by their tokens. A replay starts its
	// page from it. "" when the branch started from an empty state (and
	// in bundles recorded before it was kept).
	StartState string `json:"start_state,omitempty"`
	// Recall gives a replay without the run's key the tokens the
	// capture gave the personal values it observed in the steps' DOM and
	// accessibility text (scrub.Recall: slow salted hashes, never the
	// values, never secrets); nil in bundles recorded before it was kept.
	Recall  *scrub.Recall `json:"recall,omitempty"`
	Origins []string      `json:"origins,omitempty"`
	// Steps is the number of steps, equal to len(Plan).
	Steps int `json:"steps"`
	// Created is the wall time the bundle was written. It is informative
	// only: no step data or hash depends on it. Write stores it in UTC.
	Created time.Time `json:"created"`
	// Commit is set for KindCommit bundles only.
	Commit *CommitInfo `json:"commit,omitempty"`
	// Notes are human-readable caveats of the capture, e.g.
	// "websocket traffic not captured: wss://...".
	Notes []string `json:"notes,omitempty"`
}

// Environment is the frozen environment of every browser context of the
// run: viewport, device scale factor, locale, timezone, user agent and the
// pinned clock.
type Environment struct {
	Width             int     `json:"width"`
	Height            int     `json:"height"`
	DeviceScaleFactor float64 `json:"device_scale_factor"`
	Locale            string  `json:"locale"`
	Timezone          string  `json:"timezone"`
	UserAgent         string  `json:"user_agent"`
	// ClockMS is the pinned page clock at the start of the branch, in ms
	// since the Unix epoch; HAR times are relative to it.
	ClockMS int64 `json:"clock_ms"`
	// StepAdvanceMS is how far the pinned clock advances per step.
	StepAdvanceMS int64 `json:"step_advance_ms"`
	// ActionTimeoutMS bounds one action.
	ActionTimeoutMS int64 `json:"action_timeout_ms"`
}

// Fingerprint identifies the capturing software: browser build, driver
// version, operating system and architecture.
type Fingerprint struct {
	Browser       string `json:"browser"`
	DriverVersion string `json:"driver_version"`
	OS            string `json:"os"`
	Arch          string `json:"arch"`
}

// InputRef says how the replayer gets the value of a task input. Token is
// the scrubbed value typed at capture ("tok_..."), never the value itself;
// Secret inputs must be supplied again at replay time by reference.
type InputRef struct {
	Token  string `json:"token,omitempty"`
	Secret bool   `json:"secret"`
}

// Guard is a request the branch was not allowed to send (the commit
// boundary's side effects during speculation).
type Guard struct {
	Method string `json:"method"`
	URL    string `json:"url"`
}

// CommitInfo records the commit of a KindCommit bundle: the idempotency
// key, the ledger entry, the order id the site confirmed, evidence
// artifacts by name (e.g. "invoice") with their sha256 digests, and which
// steps are the committer's.
type CommitInfo struct {
	Key      string            `json:"key"`
	EntryID  string            `json:"entry_id"`
	OrderID  string            `json:"order_id"`
	Evidence map[string]string `json:"evidence,omitempty"`
	// FirstStep is the first step the committer performed (writing the
	// key, then the commit action): the steps before it are the branch's,
	// up to the commit boundary. ActionStep is the commit action, the step
	// that causes the side effect. Both are 1-based; zero in bundles
	// written before they were recorded, where the commit action is the
	// last step.
	FirstStep  int `json:"first_step,omitempty"`
	ActionStep int `json:"action_step,omitempty"`
}

// CommitSteps returns the first committer step and the commit action's
// step of a commit bundle (first <= action <= Steps), and ok false for a
// branch bundle. Bundles that do not record them get the last step for
// both.
func (m *Manifest) CommitSteps() (first, action int, ok bool) {
	if m.Kind != KindCommit || m.Steps < 1 {
		return 0, 0, false
	}
	first, action = m.Steps, m.Steps
	if c := m.Commit; c != nil && c.ActionStep >= 1 && c.ActionStep <= m.Steps {
		action = c.ActionStep
		first = action
		if c.FirstStep >= 1 && c.FirstStep <= action {
			first = c.FirstStep
		}
	}
	return first, action, true
}
