// Package flow holds the flow file: an action list a person can read,
// edit and play back against a live site (orchestrator play), written from
// a recorded branch (orchestrator flow export) or by hand.
//
// A flow file is YAML or JSON (JSON is YAML): a schema version, where and
// in which frozen environment the flow was recorded, the requests playback
// must never send, and the actions, each with every selector strategy
// known for its target:
//
//	schema_version: 1
//	name: buy team plan
//	origin: http://127.0.0.1:8555
//	environment: {width: 1280, height: 800, locale: en-US, timezone: UTC}
//	guard:
//	  - {method: POST, url: /api/orders}
//	actions:
//	  - {kind: navigate, url: http://127.0.0.1:8555/pricing}
//	  - kind: click
//	    target: {testid: plan-team, role: button, name: Choose Team, box: {x: 40, y: 300, w: 120, h: 32}}
//	    at_ms: 850
//	  - {kind: type, target: {field: email}, input: email, redacted: true}
//	  - {kind: screenshot, label: after the form}
//
// Besides the executor's kinds a flow may hold screenshot checkpoints
// (KindScreenshot); an action of a kind playback does not know is
// skipped with unsupported_action_type, the others still play. Each
// action may bound its own time (timeout_ms) and say who chose it
// (source: person or planner), and name the tab it acts in (tab: 0 for
// the first, for flows that open several).
//
// A value that was redacted or tokenized at capture is never typed: the
// action is marked redacted, and playback skips it unless the user
// supplies a value. Readers refuse any schema version other than
// SchemaVersion, and every error names the file, line and field.
package flow

import (
	"fmt"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// SchemaVersion is the flow format this package writes and the only one
// it reads.
const SchemaVersion = 1

// Flow is one flow file.
type Flow struct {
	SchemaVersion int    `yaml:"schema_version" json:"schema_version"`
	Name          string `yaml:"name,omitempty" json:"name,omitempty"`
	// Source says where the flow came from: "run RUN_ID/BRANCH_ID", a
	// bundle file, or empty for a hand-written flow.
	Source string `yaml:"source,omitempty" json:"source,omitempty"`
	// Origin is the scheme, host and port the flow was recorded on; play
	// --start-url moves every URL on it to another address.
	Origin      string      `yaml:"origin,omitempty" json:"origin,omitempty"`
	Environment Environment `yaml:"environment,omitempty" json:"environment,omitempty"`
	// Guard lists requests playback never sends (the recorded task's
	// commit.guard patterns): a flow is not a commit.
	Guard []Guard `yaml:"guard,omitempty" json:"guard,omitempty"`
	// Allow lists the state-changing requests playback may send (the
	// recorded task's explore.allow). Every other request that can
	// change the site is held: playback is speculation, whatever Guard
	// names.
	Allow   []Guard  `yaml:"allow,omitempty" json:"allow,omitempty"`
	Actions []Action `yaml:"actions" json:"actions"`
	// Notes are caveats of the export, e.g. where the flow stops before
	// a commit.
	Notes []string `yaml:"notes,omitempty" json:"notes,omitempty"`
}

// Environment is the frozen browser environment a flow is played in.
// Zero fields take the defaults of a task's environment.
type Environment struct {
	Width             int     `yaml:"width,omitempty" json:"width,omitempty"`
	Height            int     `yaml:"height,omitempty" json:"height,omitempty"`
	DeviceScaleFactor float64 `yaml:"device_scale_factor,omitempty" json:"device_scale_factor,omitempty"`
	Locale            string  `yaml:"locale,omitempty" json:"locale,omitempty"`
	Timezone          string  `yaml:"timezone,omitempty" json:"timezone,omitempty"`
	UserAgent         string  `yaml:"user_agent,omitempty" json:"user_agent,omitempty"`
	// ClockMS pins the page clock (ms since the Unix epoch); Seed seeds
	// the page's randomness, a uint64 in decimal.
	ClockMS int64  `yaml:"clock_ms,omitempty" json:"clock_ms,omitempty"`
	Seed    string `yaml:"seed,omitempty" json:"seed,omitempty"`
}

// Guard is a request playback must not send: a method and a regular
// expression over the URL.
type Guard struct {
	Method string `yaml:"method" json:"method"`
	URL    string `yaml:"url" json:"url"`
}

// Action is one step of a flow.
type Action struct {
	Kind   string  `yaml:"kind" json:"kind"`
	Label  string  `yaml:"label,omitempty" json:"label,omitempty"`
	URL    string  `yaml:"url,omitempty" json:"url,omitempty"`
	Target *Target `yaml:"target,omitempty" json:"target,omitempty"`
	// Value is the text typed, the option selected, the key pressed,
	// "true" or "false" for check, pixels for scroll.
	Value string `yaml:"value,omitempty" json:"value,omitempty"`
	// Input names the task input whose value the action typed; a
	// recorded flow never holds that value, so such an action is
	// Redacted.
	Input string `yaml:"input,omitempty" json:"input,omitempty"`
	// Redacted: the value was redacted or tokenized at capture and is not
	// in the file. Secret: the value is a credential, which may only be
	// supplied by environment reference.
	Redacted bool `yaml:"redacted,omitempty" json:"redacted,omitempty"`
	Secret   bool `yaml:"secret,omitempty" json:"secret,omitempty"`
	// Dialog answers the native dialog the action raises: accept or
	// dismiss (the default).
	Dialog string `yaml:"dialog,omitempty" json:"dialog,omitempty"`
	// AtMS is when the action started, in wall-clock ms after the first
	// action started (timing: recorded waits the differences).
	AtMS int64 `yaml:"at_ms,omitempty" json:"at_ms,omitempty"`
	// ExpectURL is the page's URL after the action at capture.
	ExpectURL string `yaml:"expect_url,omitempty" json:"expect_url,omitempty"`
	// TimeoutMS bounds the action (resolving its target, acting, and
	// the page settling after it) instead of the environment's action
	// timeout; 0 keeps that one.
	TimeoutMS int64 `yaml:"timeout_ms,omitempty" json:"timeout_ms,omitempty"`
	// Source says who chose the action: SourcePerson (recorded from or
	// written by a person) or SourcePlanner (a search or a model chose
	// it; flow export writes it). Empty when the file does not say.
	Source string `yaml:"source,omitempty" json:"source,omitempty"`
	// Tab is the tab the action acts in, by the order the tabs opened (0
	// the first); unset, the newest (a popup the flow opened). Playback
	// stays in the tab it selects.
	Tab *int `yaml:"tab,omitempty" json:"tab,omitempty"`
}

// KindScreenshot is a flow's own action kind: a checkpoint that captures
// the page as it is and acts on nothing (playback stores the screenshot
// and lists it in its report). Every other kind is an executor kind
// (package branch); a kind neither knows is played as skipped with
// unsupported_action_type, so a flow written for a richer vocabulary
// still plays what it can.
const KindScreenshot = "screenshot"

// Who chose an action (Action.Source).
const (
	SourcePerson  = "person"
	SourcePlanner = "planner"
)

// Supported reports whether playback can run a: an executor kind or a
// screenshot checkpoint.
func (a Action) Supported() bool { return a.Kind == KindScreenshot || branch.KnownKind(a.Kind) }

// Target names an element by every strategy known for it, tried in the
// order of the playback cascade, with the neighbourhood text and box that
// confirm a match found by a later strategy: the executor's own target,
// written in the file as it is.
type Target = branch.Target

// Box is a target's bounding box in viewport pixels at capture.
type Box = branch.Box

// Describe is a short human form of the action.
func (a Action) Describe() string { return a.Branch().Describe() }

// Branch converts the action to the executor's vocabulary, with a copy of
// its target. A redacted value becomes the redaction placeholder, which no
// executor types.
func (a Action) Branch() branch.Action {
	out := branch.Action{Kind: a.Kind, URL: a.URL, Value: a.Value, Dialog: a.Dialog, Label: a.Label, Target: copyTarget(a.Target),
		TimeoutMS: a.TimeoutMS, Tab: a.Tab}
	if a.Redacted {
		out.Value = branch.RedactedPlaceholder
	}
	return out
}

// FromBranch is the flow action of a recorded action, chosen by the
// planner (Source). An action that
// typed a task input records the input's name and is redacted: the value
// is not in the records. A value that is the redaction placeholder stays
// redacted.
func FromBranch(a branch.Action) Action {
	out := Action{Kind: a.Kind, Label: a.Label, URL: a.URL, Value: a.Value, Input: a.Input, Dialog: a.Dialog, Target: copyTarget(a.Target),
		Source: SourcePlanner, Tab: a.Tab}
	if a.Input != "" || a.Value == branch.RedactedPlaceholder {
		out.Value, out.Redacted = "", true
	}
	return out
}

// copyTarget copies a target and its box, so that neither side of a
// conversion changes the other's.
func copyTarget(t *branch.Target) *branch.Target {
	if t == nil {
		return nil
	}
	c := *t
	if t.Box != nil {
		b := *t.Box
		c.Box = &b
	}
	return &c
}

// Error locates a problem in a flow file.
type Error struct {
	File  string // path as given, "" when parsed from memory
	Line  int    // 1-based, 0 when unknown
	Field string // actions[2].target
	Msg   string
}

func (e *Error) Error() string {
	loc := e.File
	if loc == "" {
		loc = "flow"
	}
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, e.Line)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: %s", loc, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *Error) Unwrap() error { return ErrInvalid }
