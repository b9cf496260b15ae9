package branch

import (
	"fmt"
	"strings"
)

// Action kinds understood by the browser runtime.
const (
	KindNavigate = "navigate"
	KindClick    = "click"
	KindType     = "type"
	KindSelect   = "select"
	KindCheck    = "check"
	KindFocus    = "focus"
	KindKeyPress = "key_press"
	KindHover    = "hover"
	KindScroll   = "scroll"
	KindWaitFor  = "wait_for"
	KindEval     = "eval"
	// KindSet makes a control hold a value the way a person would: a
	// date, time, range or colour input filled in its own format, a
	// slider or spin button moved by keys (or dragged), a text field
	// that opens a date picker stepped to the month and its day clicked.
	// Value is the value in the control's format (a number for a slider
	// or spin button, 2011-10-11 or the field's own format for a date).
	KindSet = "set"
)

var knownKinds = map[string]bool{
	KindNavigate: true, KindClick: true, KindType: true, KindSelect: true, KindCheck: true, KindFocus: true,
	KindKeyPress: true, KindHover: true, KindScroll: true, KindWaitFor: true, KindEval: true, KindSet: true,
}

// KnownKind reports whether kind is an action kind the runtime executes.
func KnownKind(kind string) bool { return knownKinds[kind] }

// Action is one user-like operation of a plan.
type Action struct {
	Kind   string  `json:"kind"`
	Target *Target `json:"target,omitempty"`
	// URL is the destination of a navigate action.
	URL string `json:"url,omitempty"`
	// Value is the literal text typed, the option selected, the key pressed,
	// "true"/"false" for check, the pixel delta for scroll, the value a set
	// action puts into its control, or the script of eval. Empty when Input
	// names the value instead.
	Value string `json:"value,omitempty"`
	// Input names a task input whose value is typed or selected. The worker
	// resolves it locally, so secrets never travel in plans, events or
	// bundles; only the name does.
	Input string `json:"input,omitempty"`
	// Dialog answers the native dialogs (confirm, prompt, alert) the
	// action raises: DialogAccept or DialogDismiss; empty dismisses.
	Dialog string `json:"dialog,omitempty"`
	// Label is a short human description ("click link \"Pricing\"").
	// It is not part of the plan digest.
	Label string `json:"label,omitempty"`
	// TimeoutMS bounds each wait of the action (resolving, acting, the
	// page settling after it) below the environment's action timeout; 0
	// keeps that one. It is not part of the plan digest.
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	// Tab, when set, is the tab the action acts in: the index of the
	// session's page in the order the pages opened (0 the first). The
	// session stays on it. Unset, an action acts in the newest page (a
	// popup a click opened). Flows set it; the planner does not.
	Tab *int `json:"tab,omitempty"`
}

// Answers to a native dialog.
const (
	DialogAccept  = "accept"
	DialogDismiss = "dismiss"
)

// Target says which element an action applies to. The strategies are tried
// in the order of the fields below; the first that resolves to exactly one
// element wins. Fingerprint data (Near, Box) helps healing and audits but is
// not used to resolve.
type Target struct {
	TestID    string `json:"testid,omitempty" yaml:"testid,omitempty"`
	AriaLabel string `json:"aria_label,omitempty" yaml:"aria_label,omitempty"`
	Role      string `json:"role,omitempty" yaml:"role,omitempty"`
	Name      string `json:"name,omitempty" yaml:"name,omitempty"`
	ID        string `json:"id,omitempty" yaml:"id,omitempty"`
	// Field is the form control's name attribute.
	Field string `json:"field,omitempty" yaml:"field,omitempty"`
	Text  string `json:"text,omitempty" yaml:"text,omitempty"`
	CSS   string `json:"css,omitempty" yaml:"css,omitempty"`
	// Near is a short text fingerprint of the neighbourhood (heading or
	// legend), used for disambiguation and audits.
	Near string `json:"near,omitempty" yaml:"near,omitempty"`
	// Hint is what a person would call an element the page gives no
	// accessible name: an icon-only control named from its tooltips, the
	// words of its class and id and its icon's file name, or a field
	// named by the label-like text before it. It is not Chromium's
	// accessible name, so it never resolves the target: the planner
	// matches words against it, the other strategies find the element.
	Hint string `json:"hint,omitempty" yaml:"hint,omitempty"`
	Box  *Box   `json:"box,omitempty" yaml:"box,omitempty"`
}

// Box is an element's bounding box in CSS pixels of the frozen viewport,
// from the top-left corner of the page (its scroll offsets added): a
// place on the page, wherever it was scrolled to.
type Box struct {
	X float64 `json:"x" yaml:"x"`
	Y float64 `json:"y" yaml:"y"`
	W float64 `json:"w" yaml:"w"`
	H float64 `json:"h" yaml:"h"`
}

// Describe renders the target for people: role and name when known.
func (t *Target) Describe() string {
	if t == nil {
		return ""
	}
	switch {
	case t.Role != "" && t.Name != "":
		return fmt.Sprintf("%s %q", t.Role, t.Name)
	case t.AriaLabel != "":
		return fmt.Sprintf("%q", t.AriaLabel)
	case t.Text != "":
		return fmt.Sprintf("%q", t.Text)
	case t.Hint != "":
		return strings.TrimSpace(t.Role + " ≈" + fmt.Sprintf("%q", t.Hint))
	case t.TestID != "":
		return "[data-testid=" + t.TestID + "]"
	case t.ID != "":
		return "#" + t.ID
	case t.Field != "":
		return "[name=" + t.Field + "]"
	default:
		return t.CSS
	}
}

// Selector names the target by the first strategy it carries, in the
// healing cascade's order (testid=plan-team, role=button "Pay", #seats):
// the same target in every run that plans it so, whoever planned it.
// "(no selector)" for a target that carries none; "" for nil.
func (t *Target) Selector() string {
	switch {
	case t == nil:
		return ""
	case t.TestID != "":
		return "testid=" + t.TestID
	case t.AriaLabel != "":
		return "aria-label=" + t.AriaLabel
	case t.Role != "" && t.Name != "":
		return fmt.Sprintf("role=%s %q", t.Role, t.Name)
	case t.ID != "":
		return "#" + t.ID
	case t.Field != "":
		return "field=" + t.Field
	case t.Text != "":
		return fmt.Sprintf("text=%q", t.Text)
	case t.CSS != "":
		return "css=" + t.CSS
	}
	return "(no selector)"
}

// Describe renders the action for people, without secret values.
func (a Action) Describe() string {
	if a.Label != "" {
		return a.Label
	}
	var b strings.Builder
	b.WriteString(a.Kind)
	if a.Target != nil {
		b.WriteString(" " + a.Target.Describe())
	}
	if a.URL != "" {
		b.WriteString(" " + a.URL)
	}
	switch {
	case a.Input != "":
		b.WriteString(" ← input " + a.Input)
	case a.Value != "" && a.Kind != KindEval:
		b.WriteString(fmt.Sprintf(" %q", a.Value))
	}
	if a.Dialog == DialogAccept {
		b.WriteString(", accepting its dialog")
	}
	return b.String()
}

// Validate checks that the action is well formed for its kind.
func (a Action) Validate() error {
	if !KnownKind(a.Kind) {
		return fmt.Errorf("branch: unknown action kind %q", a.Kind)
	}
	needTarget := a.Kind == KindClick || a.Kind == KindType || a.Kind == KindSelect || a.Kind == KindCheck || a.Kind == KindFocus ||
		a.Kind == KindHover || a.Kind == KindSet
	if needTarget && (a.Target == nil || a.Target.empty()) {
		return fmt.Errorf("branch: %s action needs a target", a.Kind)
	}
	if a.Dialog != "" && a.Dialog != DialogAccept && a.Dialog != DialogDismiss {
		return fmt.Errorf("branch: dialog answer %q is neither %q nor %q", a.Dialog, DialogAccept, DialogDismiss)
	}
	if a.Kind == KindNavigate && a.URL == "" {
		return fmt.Errorf("branch: navigate action needs a url")
	}
	if (a.Kind == KindType || a.Kind == KindSelect || a.Kind == KindSet) && a.Value == "" && a.Input == "" {
		return fmt.Errorf("branch: %s action needs a value or an input", a.Kind)
	}
	return nil
}

func (t *Target) empty() bool {
	return t.TestID == "" && t.AriaLabel == "" && (t.Role == "" || t.Name == "") && t.ID == "" &&
		t.Field == "" && t.Text == "" && t.CSS == ""
}
