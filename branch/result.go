package branch

import "time"

// Code says why a step or branch failed (or, for CodeSideEffect, where it
// stopped). Codes are stable across processes: they travel in results,
// events and bundles as plain strings, and the planner and the committer
// branch on them, so a code is never renamed, only added. The constants
// below are the executors' codes; a package that adds its own defines
// them as Code too (playback's CodeURLMismatch, the planner's
// CodeNoResult).
type Code string

// Result codes of a failed step or branch.
const (
	CodeSelectorNotFound  Code = "selector_not_found"
	CodeElementHidden     Code = "element_hidden"
	CodeElementDisabled   Code = "element_disabled"
	CodeNavigationTimeout Code = "navigation_timeout"
	CodePageError         Code = "page_error"
	CodePageCrash         Code = "page_crash"
	CodeHTTPError         Code = "http_error"
	CodeTimeout           Code = "timeout"
	CodeUnsupported       Code = "unsupported_action_type"
	CodeRedactedValue     Code = "redacted_value"
	CodeInputMissing      Code = "input_missing"
	CodeGuardBlocked      Code = "guard_blocked"
	// CodeNoSuchTab is an action whose tab (Action.Tab) the session does
	// not have.
	CodeNoSuchTab Code = "no_such_tab"
	// CodeValueNotSet is a set action whose control would not hold the
	// value: out of its range, off its step, refused by the page, or a
	// date picker that never showed the month.
	CodeValueNotSet Code = "value_not_set"
	// CodeUnresponsive is a page that stopped answering: the session's
	// watchdog closed its context.
	CodeUnresponsive Code = "page_unresponsive"
	// CodeBranchTimeout is a branch that exceeded its wall clock budget.
	CodeBranchTimeout Code = "branch_timeout"
	// CodeBadJob is a job its executor could not read or set up (an
	// unknown wire version, an invalid guard pattern): it fails the same
	// way on every delivery.
	CodeBadJob Code = "bad_job"
)

// Statuses of an executed step.
const (
	StatusOK     = "ok"
	StatusHealed = "healed" // the target was found by a fallback strategy
	StatusFailed = "failed" // Code and Error say why
)

// StepResult is the outcome of one executed action.
type StepResult struct {
	Step     int    `json:"step"`
	Status   string `json:"status"`
	Code     Code   `json:"code,omitempty"`
	Error    string `json:"error,omitempty"`
	Strategy string `json:"strategy,omitempty"` // target strategy that resolved
	// HealedSelector is the selector string that found a healed target
	// (scrubbed), e.g. role=button[name="Pay"].
	HealedSelector string `json:"healed_selector,omitempty"`
	Start          time.Time
	End            time.Time
	// VirtualTime is the page clock after the step settled, in ms.
	VirtualTime int64 `json:"virtual_time_ms"`
	// Via says how a set action put its value in, as a person could
	// repeat it: "fill 2011-10-11", "keys End ArrowLeft×3", "drag 0.40",
	// "picker next×2 day 11". Replays compare it.
	Via string `json:"via,omitempty"`
	// Console is what the page said on its console (errors and
	// warnings) and the errors it did not catch while the step ran, in
	// order, scrubbed, at most ConsoleLimit. They never fail the step.
	Console []ConsoleEntry `json:"console,omitempty"`
	// Slow says why the step's network had not settled when its time was
	// up ("" when it settled): a slow step is not a failed one, and the
	// observation after it sees the page as it was then.
	Slow string `json:"slow,omitempty"`
	// Nav says where a step that navigated the page went; nil when it
	// loaded no document in the page's main frame.
	Nav *NavURLs `json:"nav,omitempty"`
}

// NavURLs are the addresses of a step that navigated the page, scrubbed:
// the one the plan asked for (a navigate action; "" for a click that
// navigated), the first document the page requested, and where it ended
// after redirects.
type NavURLs struct {
	Requested string `json:"requested,omitempty"`
	Original  string `json:"original"`
	Final     string `json:"final"`
}

// ConsoleLimit bounds the console entries one step keeps.
const ConsoleLimit = 20

// ConsoleEntry is one console message or uncaught page error.
type ConsoleEntry struct {
	// Type is error or warning (console messages) or pageerror (an
	// exception the page did not catch).
	Type string `json:"type"`
	// Text is the message, scrubbed, cut at 300 characters.
	Text string `json:"text"`
}

// RedactedPlaceholder is what plans carry instead of a removed value; an
// executor must never type it (it fails the step with CodeRedactedValue).
const RedactedPlaceholder = "[redacted]"
