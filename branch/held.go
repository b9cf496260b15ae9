package branch

// CodeSideEffect ends a branch at a side-effect boundary: the step's own
// action made a request that can change the site (a form posted, a
// DELETE sent by a click), and speculation held it. Nothing was sent;
// the step's Held record names the request.
const CodeSideEffect Code = "side_effect_boundary"

// CodeOffOrigin is a step whose action navigated to an origin the task
// does not explore: the navigation was held, nothing was sent.
const CodeOffOrigin Code = "off_origin"

// Reasons a request was held.
const (
	// HeldWrite is a request that can change server state (a method
	// other than GET, HEAD and OPTIONS) the task does not allow.
	HeldWrite = "write"
	// HeldGuard is a request one of the task's guard patterns names.
	HeldGuard = "guard"
	// HeldOffOrigin is a navigation to an origin the task does not list.
	HeldOffOrigin = "off_origin"
)

// MethodFrame stands for the method of a frame a page sends on a
// WebSocket, in held records and in the task's request patterns
// (explore.allow, commit.guard): the frame's URL is its connection's.
const MethodFrame = "WS"

// Held is one request a speculative session held instead of sending.
// Every field is scrubbed: the URL's path only (no query), the names of
// the form fields it would have submitted, never their values.
type Held struct {
	Step   int    `json:"step"`
	Method string `json:"method"`
	// Origin and Path locate the request; Path has no query string.
	Origin string `json:"origin"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
	// Caused is set when the step's own action made the request (a form
	// submission, a navigation by POST, a fetch sent from a click
	// handler): the branch ends at a side-effect boundary. A request the
	// page made on its own (polling, analytics, a new page's load
	// scripts) is held without ending the branch.
	Caused bool `json:"caused,omitempty"`
	// Navigation is set for a main-frame document request (a form
	// posted, a link followed off the site).
	Navigation bool `json:"navigation,omitempty"`
	// Fields are the names of the submitted form or JSON fields, sorted.
	Fields []string `json:"fields,omitempty"`
	// Count is how many times the same request was held in the step.
	Count int `json:"count,omitempty"`
}

// Describe is the held request as a person reads it: "POST /admin/profile".
func (h Held) Describe() string { return h.Method + " " + h.Path }
