package branch

// Observation is what a worker sees after a step. Strict hashes (DOM, AX,
// network) must reproduce on replay; the screenshot hash is advisory.
type Observation struct {
	URL   string `json:"url"`
	Title string `json:"title"`
	// Status is the HTTP status of the main document, 0 when unknown.
	Status int `json:"status,omitempty"`
	// DOMHash is the sha256 of the canonical DOM serialization.
	DOMHash string `json:"dom_hash"`
	// AXHash is the sha256 of the accessibility snapshot.
	AXHash string `json:"ax_hash"`
	// NetDigest is the sha256 over the step's network records as a
	// multiset (NetDigestMultiset): one line per record, sorted, so a
	// page that loads concurrently digests the same whatever order its
	// requests went out in. Runs recorded before it digested the lines in
	// request order.
	NetDigest string `json:"net_digest"`
	// ScreenshotHash is the artifact digest of the PNG screenshot (advisory).
	ScreenshotHash string `json:"screenshot_hash,omitempty"`
	// DOMArtifact and AXArtifact are the artifact digests of the stored
	// canonical DOM and accessibility snapshot.
	DOMArtifact string `json:"dom_artifact,omitempty"`
	AXArtifact  string `json:"ax_artifact,omitempty"`
	// Predicates holds the truth of every named predicate of the task.
	Predicates map[string]bool `json:"predicates"`
	// PredicateErrors names predicates whose evaluation failed (a js
	// predicate that threw, say); they count as false.
	PredicateErrors map[string]string `json:"predicate_errors,omitempty"`
	// DeadEnds lists the dead-end detectors that fired on this page.
	DeadEnds []string `json:"dead_ends,omitempty"`
	// Affordances are the candidate next actions the page offers.
	Affordances []Affordance `json:"affordances,omitempty"`
	// VirtualTime is the pinned page clock in ms since the Unix epoch.
	VirtualTime int64 `json:"virtual_time_ms"`
	// Dialogs are the native dialogs the step raised, in order.
	Dialogs []Dialog `json:"dialogs,omitempty"`
	// Facts are the label and value pairs the page states in text, in
	// page order (see Fact); the goal may ask for one ("enter the price
	// of the Blue Widget"). Scrubbed like the affordances' names.
	Facts []Fact `json:"facts,omitempty"`
	// Live is the step's live channel traffic (WebSocket, EventSource)
	// as the page saw it, in order; LiveDropped counts entries beyond
	// what one take keeps.
	Live        []LiveFrame `json:"live,omitempty"`
	LiveDropped int         `json:"live_dropped,omitempty"`
	// Recall maps the slow salted hash of each personal value the
	// observation tokenized to its token (scrub.Recall), so a replay
	// without the run's key gives the value the same token.
	Recall map[string]string `json:"recall,omitempty"`
}

// Fact is one value the page states in text with the words that name it:
// a table cell by its row's header (or first) cell and its column's
// header ("Blue Widget Price" = "$12.50"), a definition list's term and
// description, a "Label: value" line ("Order number: 4521").
type Fact struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// NetDigestMultiset names the form of Observation.NetDigest that sorts
// the records' lines (run manifests and bundles say which form they
// hold; none said is the older form, in request order).
const NetDigestMultiset = "multiset"

// Dialog is a native dialog a step raised and how it was answered.
type Dialog struct {
	// Type is alert, confirm, prompt or beforeunload.
	Type string `json:"type"`
	// Message is the dialog's text, scrubbed.
	Message string `json:"message,omitempty"`
	// Answer is DialogAccept or DialogDismiss.
	Answer string `json:"answer"`
}

// Refused reports whether the dialog asked a question (confirm, prompt,
// leave the page) and was answered no.
func (d Dialog) Refused() bool {
	return d.Answer == DialogDismiss && (d.Type == "confirm" || d.Type == "prompt" || d.Type == "beforeunload")
}

// Affordance is one interactive element of a page, as the planner sees it.
type Affordance struct {
	// Kind is what kind of element it is (ElemLink, ElemTextbox, ...;
	// see ElementKind).
	Kind    ElementKind `json:"kind"`
	Target  Target      `json:"target"`
	Href    string      `json:"href,omitempty"`
	Value   string      `json:"value,omitempty"`
	Options []Option    `json:"options,omitempty"`
	Checked bool        `json:"checked,omitempty"`
	// InputType is an input element's type attribute, lower case ("text"
	// when absent): date, time, range, tel and the like tell the planner
	// the format a value must be written in.
	InputType string `json:"input_type,omitempty"`
	// Min, Max and Step are the bounds a value must keep, in the
	// control's own format: an input's min, max and step attributes
	// (range, number, date and time inputs), or a slider's or spin
	// button's aria-valuemin and aria-valuemax (its aria-valuenow is
	// Value). Empty when the control states none.
	Min  string `json:"min,omitempty"`
	Max  string `json:"max,omitempty"`
	Step string `json:"step,omitempty"`
	// ValueText is a slider's or spin button's aria-valuetext: the value
	// as people read it ("Medium", "$40") when it is not the number.
	ValueText string `json:"value_text,omitempty"`
	// Required is the control's required attribute.
	Required bool `json:"required,omitempty"`
	// Region is the landmark the element sits in (RegionHeader, ...,
	// RegionDialog), RegionObscured when it cannot be acted on where it
	// is, RegionNone outside every landmark.
	Region Region `json:"region,omitempty"`
	// Form is the index of the enclosing form, -1 outside forms.
	Form int `json:"form"`
	// Submit reports whether activating the element submits its form.
	Submit bool `json:"submit,omitempty"`
	// Hover reports that pointing at the element opens what it hides (a
	// menu a :hover style or a mouse-enter listener shows); Reveals names
	// the hidden controls it holds.
	Hover   bool     `json:"hover,omitempty"`
	Reveals []string `json:"reveals,omitempty"`
	// Holds names the task input whose value the field currently holds.
	// The worker sets it from the raw value before scrubbing Value, so the
	// planner can tell a filled field without ever seeing the value.
	Holds string `json:"holds,omitempty"`
}

// Option is one choice of a select element.
type Option struct {
	Value    string `json:"value"`
	Text     string `json:"text"`
	Selected bool   `json:"selected,omitempty"`
}

// NetRecord is one request/response seen by a branch. Header values are
// scrubbed before they are recorded.
type NetRecord struct {
	Seq         int               `json:"seq"`
	Step        int               `json:"step"`
	Method      string            `json:"method"`
	URL         string            `json:"url"`
	Type        string            `json:"resource_type,omitempty"`
	ReqHeaders  map[string]string `json:"request_headers,omitempty"`
	ReqBodyHash string            `json:"request_body_sha256,omitempty"`
	Status      int               `json:"status"`
	RespHeaders map[string]string `json:"response_headers,omitempty"`
	BodyHash    string            `json:"body_sha256,omitempty"`
	BodySize    int               `json:"body_size,omitempty"`
	// Blocked is set when the branch was not allowed to send the request
	// (a commit guard during speculation); Error when it failed.
	Blocked bool   `json:"blocked,omitempty"`
	Error   string `json:"error,omitempty"`
	// Unsupported marks traffic the capture cannot record faithfully
	// (WebSocket, server-sent events, service workers).
	Unsupported string `json:"unsupported,omitempty"`
	// Late says the request was still in flight when its step was
	// observed (the slow request of a slow step): its answer, recorded
	// when it came, reached the page after the observation.
	Late bool `json:"late,omitempty"`
	// StartedMS is when the request started, in wall milliseconds since
	// the session was created, and DurationMS how long it took to end:
	// timings for HAR, never part of a digest.
	StartedMS  int64 `json:"started_ms,omitempty"`
	DurationMS int64 `json:"duration_ms,omitempty"`
}

// Live frame phases: when the page's log was taken.
const (
	// LivePre entries arrived after the last observation, before the
	// step's action: a replay feeds them before it acts.
	LivePre = "pre"
	// LivePost entries are the rest, up to the step's observation.
	LivePost = "post"
)

// Live frame kinds.
const (
	LiveNew   = "new"   // the page made the connection (URL)
	LiveOpen  = "open"  // it opened (Protocol)
	LiveIn    = "in"    // a frame or event reached the page
	LiveOut   = "out"   // the page sent a frame
	LiveClose = "close" // it closed (Code, Reason)
	LiveError = "error" // it failed (State: an event stream's readyState after)
)

// LiveFrame is one entry of a page's live channel log: a WebSocket or
// EventSource connection's life, frame by frame. Conn numbers the
// connections of one document from 1 in the order the page made them; N
// numbers the entries of one kind on one connection from 1. Data is the
// frame's text, scrubbed, or its bytes in base64 (Binary).
type LiveFrame struct {
	Conn     int    `json:"c"`
	Kind     string `json:"k"`
	N        int    `json:"n"`
	Phase    string `json:"phase,omitempty"`
	URL      string `json:"url,omitempty"`
	Data     string `json:"d,omitempty"`
	Binary   bool   `json:"b,omitempty"`
	Type     string `json:"t,omitempty"`  // an event stream's event type
	ID       string `json:"id,omitempty"` // an event stream's last event id
	Protocol string `json:"p,omitempty"`
	Code     int    `json:"code,omitempty"`
	Reason   string `json:"reason,omitempty"`
	State    *int   `json:"rs,omitempty"`
}
