package bundle

import (
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
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
	// Guard lists requests the branch was not allowed to send.
	Guard []Guard `json:"guard,omitempty"`
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
// key, the ledger entry, the order id the site confirmed, and evidence
// artifacts by name (e.g. "invoice.pdf") with their sha256 digests.
type CommitInfo struct {
	Key      string            `json:"key"`
	EntryID  string            `json:"entry_id"`
	OrderID  string            `json:"order_id"`
	Evidence map[string]string `json:"evidence,omitempty"`
}
