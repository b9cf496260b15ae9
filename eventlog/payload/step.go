package payload

import (
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// ActionEnd is the payload of action_end: how one action of a branch

// ActionStart is the payload of action_start: a worker began step Step
// of the branch's plan (ActionKind, described as Action), for the attempt
// Attempt of its job, as plan PlanDigest; Replayed steps rebuild the
// prefix. A step the branch itself adds (not Replayed) also says what
// its prefix cost (PrefixMS, ContextMS), whether it continued its
// parent's live context (Warm) and the worker the job was routed to.
// The fields are in the order of their keys: the bytes are those the
// map it replaced wrote.
type ActionStart struct {
	Action     string `json:"action"`
	Attempt    int    `json:"attempt"`
	ContextMS  *int64 `json:"context_ms,omitempty"`
	ActionKind string `json:"kind"`
	PlanDigest string `json:"plan_digest"`
	PrefixMS   *int64 `json:"prefix_ms,omitempty"`
	// PrefixNet says the branch's net events hold the requests of the
	// prefix it replayed (a cold branch's; job.Result.PrefixNet).
	PrefixNet bool   `json:"prefix_net,omitempty"`
	Replayed  bool   `json:"replayed"`
	RoutedTo  string `json:"routed_to,omitempty"`
	Step      int    `json:"step"`
	Warm      *bool  `json:"warm,omitempty"`
	Worker    string `json:"worker"`
}

// Kind implements Payload.
func (ActionStart) Kind() string { return eventlog.KindActionStart }

// went. Replayed actions re-established the parent's state.
type ActionEnd struct {
	Step       int         `json:"step"`
	Status     string      `json:"status"`
	Code       branch.Code `json:"code"`
	Error      string      `json:"error"` // scrubbed
	Strategy   string      `json:"strategy"`
	DurationMS int64       `json:"duration_ms"`
	Replayed   bool        `json:"replayed"`
	// Via is how a set action put its value in (branch.StepResult.Via).
	Via string `json:"via,omitempty"`
	// Console is what the page said on its console and the errors it
	// did not catch during the step (branch.StepResult.Console).
	Console []branch.ConsoleEntry `json:"console,omitempty"`
	// Slow says why the step's network had not settled in time
	// (branch.StepResult.Slow); the step is not failed by it.
	Slow string `json:"slow,omitempty"`
	// Nav says where a step that navigated the page went: requested,
	// original and final URL (branch.StepResult.Nav).
	Nav *branch.NavURLs `json:"nav,omitempty"`
}

// Kind implements Payload.
func (ActionEnd) Kind() string { return eventlog.KindActionEnd }

// Nav is the payload of nav: the page a branch's last action led to.
type Nav struct {
	URL    string `json:"url"`
	Title  string `json:"title"`
	Status int    `json:"status"` // HTTP status of the main document, 0 when unknown
}

// Kind implements Payload.
func (Nav) Kind() string { return eventlog.KindNav }

// DOMSnapshot is the payload of dom_snapshot: the observation of the page
// after a branch's last action, by digest.
type DOMSnapshot struct {
	DOMHash     string          `json:"dom_hash"`
	AXHash      string          `json:"ax_hash"`
	NetDigest   string          `json:"net_digest"`
	Screenshot  string          `json:"screenshot"`
	DOMArtifact string          `json:"dom_artifact"`
	AXArtifact  string          `json:"ax_artifact"`
	Predicates  map[string]bool `json:"predicates"`
	DeadEnds    []string        `json:"dead_ends"`
	Affordances int             `json:"affordances"` // how many the page offered
	AtBoundary  bool            `json:"at_boundary"`
	// Live is the step's live channel traffic (scrubbed at capture);
	// LiveDropped counts entries beyond what the page's log keeps.
	Live        []branch.LiveFrame `json:"live,omitempty"`
	LiveDropped int                `json:"live_dropped,omitempty"`
	// Recall is the observation's recall entries (branch.Observation).
	Recall map[string]string `json:"recall,omitempty"`
}

// Kind implements Payload.
func (DOMSnapshot) Kind() string { return eventlog.KindDOMSnapshot }

// Net is the payload of net: one request and its response, scrubbed at
// capture (the body is an artifact).
type Net struct {
	branch.NetRecord
}

// Kind implements Payload.
func (Net) Kind() string { return eventlog.KindNet }

// RequestHeld is the payload of request_held: a request a speculative
// session held instead of sending (scrubbed: path, field names).
type RequestHeld struct {
	branch.Held
}

// Kind implements Payload.
func (RequestHeld) Kind() string { return eventlog.KindRequestHeld }

// SideEffect is the payload of side_effect_boundary: the branch's action
// asked for a request that would change the site; speculation held it
// and the branch ends there.
type SideEffect struct {
	branch.Held
	// Action is the action that caused the request.
	Action string `json:"action"`
	// URL is the page the action ran on (scrubbed).
	URL string `json:"url,omitempty"`
}

// Kind implements Payload.
func (SideEffect) Kind() string { return eventlog.KindSideEffect }
