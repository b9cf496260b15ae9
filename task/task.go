package task

import (
	"time"

	"gopkg.in/yaml.v3"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/scoring"
)

// SchemaVersion is the task file version this package reads.
const SchemaVersion = 1

// Task is a validated task spec with every default filled in.
type Task struct {
	Version     int    `json:"version"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	StartURL    string `json:"start_url"`
	// Seed is the run seed. When the file has none it is derived from the
	// task digest (SeedSet is false then).
	Seed    uint64 `json:"seed"`
	SeedSet bool   `json:"seed_set"`

	Goal    Goal               `json:"goal"`
	Inputs  map[string]Input   `json:"inputs,omitempty"`
	Budgets Budgets            `json:"budgets"`
	Prices  map[string]float64 `json:"prices"`
	Search  Search             `json:"search"`
	// Planner says how a page's candidate actions are ranked.
	Planner      Planner            `json:"planner"`
	Weights      scoring.Weights    `json:"weights"`
	RiskPatterns []string           `json:"risk_patterns"`
	DeadEnds     []scoring.Detector `json:"dead_ends"`
	Environment  Environment        `json:"environment"`
	// Explore bounds what speculation may send and where it may go.
	Explore Explore `json:"explore"`
	// Capture says what a run records beyond what replay needs.
	Capture Capture `json:"capture"`
	// Commit is the task's one side effect; nil for a task whose goal is
	// reached inside the page (fill a form, look something up, check a
	// flow): such a run ends when a branch satisfies every goal.success
	// predicate, and nothing is committed.
	Commit *Commit `json:"commit,omitempty"`
	// Auth says how branches and the committer are logged in.
	Auth Auth `json:"auth,omitempty"`
	// Extract names values read from the winning branch's final page,
	// scrubbed like everything else, reported in the summary.
	Extract []IntentField `json:"extract,omitempty"`
	file    string
	// root is the parsed YAML, for the lines of errors found after
	// loading (a secret that cannot be read, a selector the browser
	// rejects).
	root *yaml.Node
}

// Goal is the task's goal: free text for the planner, predicates for
// scoring.
type Goal struct {
	Text string `json:"text"`
	scoring.Goal
	// Failure predicates say a branch ended in a definite failure (an
	// error banner, a rejected form): it is not explored further.
	Failure []scoring.Predicate `json:"failure,omitempty"`
}

// Input is a value the planner may type or select. Exactly one of Value,
// SecretEnv, SecretFile is set. Match is a regular expression over a form
// field's label, name, id and placeholder that says where the input goes;
// by default the input's own name, with _ and - read as spaces.
type Input struct {
	Value      string `json:"value,omitempty"`
	SecretEnv  string `json:"secret_env,omitempty"`
	SecretFile string `json:"secret_file,omitempty"`
	Match      string `json:"match"`
}

// Secret reports whether the input's value is a secret.
func (in Input) Secret() bool { return in.SecretEnv != "" || in.SecretFile != "" }

// Budgets cap a run. Zero means no cap for Cost; every other budget has a
// default.
type Budgets struct {
	WallClock       Duration `json:"wall_clock"`
	BranchWallClock Duration `json:"branch_wall_clock"`
	StepsPerBranch  int      `json:"steps_per_branch"`
	TotalBranches   int      `json:"total_branches"`
	Cost            float64  `json:"cost,omitempty"`
	ActionTimeout   Duration `json:"action_timeout"`
}

// Search configures the frontier.
type Search struct {
	Strategy     string  `json:"strategy"`
	BeamWidth    int     `json:"beam_width"`
	MinBeamWidth int     `json:"min_beam_width"`
	MaxChildren  int     `json:"max_children"`
	StallLimit   int     `json:"stall_limit"`
	Diversity    float64 `json:"diversity"`
	Workers      int     `json:"workers"`
	// Selection orders the branches at the boundary: "" (by J, the
	// default) or "pareto" (branches no other one dominates on progress,
	// confidence, risk, cost and steps first, then by J).
	Selection string `json:"selection,omitempty"`
	// Minimize: after the search found its winner, try its plan without
	// each middle step and cache and export the shortest plan that still
	// ends as the winner did (nil: on).
	Minimize *bool `json:"minimize,omitempty"`
	// Learning: the search reads what earlier runs on the site measured
	// (step durations, healed targets; see package learn) and the run
	// adds its own (nil: on). Off, the run neither reads nor adds.
	Learning *bool `json:"learning,omitempty"`
}

// Learns reports whether a run learns from and for its site's earlier and
// later runs (the default) or not (search.learning: false).
func (s Search) Learns() bool { return s.Learning == nil || *s.Learning }

// Minimizes reports whether a run minimizes its winner's plan (the
// default) or keeps it as found (search.minimize: false).
func (s Search) Minimizes() bool { return s.Minimize == nil || *s.Minimize }

// Environment is the frozen browser environment of every branch.
type Environment struct {
	Viewport          Viewport  `json:"viewport"`
	DeviceScaleFactor float64   `json:"device_scale_factor"`
	Locale            string    `json:"locale"`
	Timezone          string    `json:"timezone"`
	UserAgent         string    `json:"user_agent"`
	Clock             time.Time `json:"clock"`
	StepAdvance       Duration  `json:"step_advance"`
	// Headers are extra HTTP headers every request carries (an API
	// token, say); values are literal or secret references like inputs.
	Headers map[string]Input `json:"headers,omitempty"`
	// IgnoreHTTPSErrors makes branches and the committer accept
	// certificates Chromium does not trust: a site behind an internal
	// certificate authority.
	IgnoreHTTPSErrors bool `json:"ignore_https_errors,omitempty"`
}

// Explore bounds speculation. Every speculative path (branches, the
// committer's re-run of the plan, play, live replays, reruns) holds any
// request that can change the site (any method but GET, HEAD and OPTIONS)
// unless Allow names it, and any navigation to an origin other than the
// start URL's unless Origins lists it.
type Explore struct {
	// Allow names state-changing requests speculation may send (a search
	// form posted, a cart preview): method ("" any) and a regular
	// expression over the URL or its path.
	Allow []RequestPattern `json:"allow,omitempty"`
	// Origins are further origins (scheme://host[:port]) branches may
	// navigate to.
	Origins []string `json:"origins,omitempty"`
}

// IsZero reports whether the section says nothing.
func (e Explore) IsZero() bool { return len(e.Allow) == 0 && len(e.Origins) == 0 }

// Screenshot policies (Capture.Screenshots).
const (
	// ScreenshotsLooked (the default) screenshots the pages a person
	// looks at: a failed or healed step, the commit boundary, the goal
	// met, a dead end, an HTTP error, the committer's evidence. Any other
	// step's page is rendered on demand by a strict replay of its branch.
	ScreenshotsLooked = "looked"
	// ScreenshotsAll screenshots every branch's last step, as capture did
	// before.
	ScreenshotsAll = "all"
	// ScreenshotsNone takes none but the committer's evidence.
	ScreenshotsNone = "none"
)

// Capture says what a run records beyond what a strict replay needs.
type Capture struct {
	// Screenshots is the policy for speculative steps' screenshots:
	// ScreenshotsLooked ("" too), ScreenshotsAll or ScreenshotsNone.
	Screenshots string `json:"screenshots,omitempty"`
}

// Viewport is a size in CSS pixels.
type Viewport struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Commit says where speculation stops and how the one side effect is made.
type Commit struct {
	Boundary      scoring.Predicate   `json:"boundary"`
	Site          string              `json:"site"`
	Flow          string              `json:"flow"`
	Intent        []IntentField       `json:"intent"`
	Preconditions []scoring.Predicate `json:"preconditions,omitempty"`
	Action        branch.Action       `json:"action"`
	Idempotency   Idempotency         `json:"idempotency"`
	Guard         []RequestPattern    `json:"guard"`
	Confirm       Confirm             `json:"confirm"`
	Nonce         string              `json:"nonce,omitempty"`
	// FormBody says whether the idempotency key also covers the body of
	// the form the commit action submits (nil: it does, the default;
	// false: only the intent fields and the nonce count). See
	// UsesFormBody.
	FormBody *bool `json:"form_body,omitempty"`
	// Volatile names form fields whose value changes on every load of the
	// boundary page (a nonce the automatic detection misses): they are
	// left out of the form body the key covers.
	Volatile []string `json:"volatile,omitempty"`
	// CAS names the version the site checks on commit (compare-and-swap):
	// read from the boundary page at preflight, recorded in the ledger, and
	// sent in Header when set (If-Match for an API). A 409 or 412 answer to
	// the commit request is a conflict: the world changed since preflight.
	CAS *CAS `json:"cas,omitempty"`
	// Postcheck are predicates on the page after the commit's
	// confirmation (the order as the site recorded it): one that does not
	// hold means the commit was wrong, and the committer undoes it with
	// Compensate at once.
	Postcheck []scoring.Predicate `json:"postcheck,omitempty"`
	// Compensate is the site's undo of the commit (cancel the order), run
	// only by the committer, only for a committed ledger row: when a
	// post-check fails, or on `orchestrator ledger compensate`.
	Compensate *Compensate `json:"compensate,omitempty"`
}

// Compensate is how the site undoes a commit: open Navigate (with
// {order_id} replaced by the commit's confirmation token), perform Action
// under the undo's own idempotency key, and wait for Confirm.
type Compensate struct {
	// Navigate is the URL where the undo starts, absolute or relative to
	// start_url; {order_id} stands for the committed order's id.
	Navigate string `json:"navigate"`
	// Action is the one action that sends the undo.
	Action branch.Action `json:"action"`
	// Confirm is the predicate that says the site undid the commit.
	Confirm scoring.Predicate `json:"confirm"`
	// Idempotency carries the undo's key (default: the commit's own
	// idempotency setting).
	Idempotency *Idempotency `json:"idempotency,omitempty"`
	// Timeout bounds the wait for Confirm (default: commit.confirm.timeout).
	Timeout Duration `json:"timeout,omitempty"`
}

// OrderIDPlaceholder stands for the committed order's id in
// commit.compensate.navigate.
const OrderIDPlaceholder = "{order_id}"

// UsesFormBody reports whether the idempotency key covers the commit
// request's form body (commit.form_body, on unless set to false).
func (c *Commit) UsesFormBody() bool { return c.FormBody == nil || *c.FormBody }

// CAS is where the commit's version (an ETag, a price, a revision) lives.
type CAS struct {
	Selector string `json:"selector"`
	Attr     string `json:"attr,omitempty"`
	Header   string `json:"header,omitempty"`
}

// IntentField is one field of the business intent, read from the boundary
// page: the text of Selector, or its attribute Attr.
type IntentField struct {
	Name     string `json:"name"`
	Selector string `json:"selector"`
	Attr     string `json:"attr,omitempty"`
}

// Idempotency says how the commit action carries the idempotency key: in a
// form field (a CSS selector of an input whose value is set to the key) or
// an HTTP header on the commit request.
type Idempotency struct {
	FormField string `json:"form_field,omitempty"`
	Header    string `json:"header,omitempty"`
}

// RequestPattern matches requests: Method ("" any) and URL, a regular
// expression over the full URL.
type RequestPattern struct {
	Method string `json:"method,omitempty"`
	URL    string `json:"url"`
}

// Confirm says how to recognise and record a successful commit.
type Confirm struct {
	Success scoring.Predicate `json:"success"`
	// Refused, when set, says the page the site answered with means it
	// refused the commit (an error notice on a 200 page): the row is
	// finalized failed with the notice's text and never sent again under
	// its key.
	Refused scoring.Predicate `json:"refused,omitzero"`
	// Token is where the confirmation token (an order id) is read from.
	Token IntentField `json:"token"`
	// Invoice, when set, is a link (by visible text) or selector whose
	// target is downloaded and stored by hash.
	Invoice InvoiceSpec `json:"invoice,omitempty"`
	// Probe asks the site whether a commit with the key exists, for crash
	// recovery: URL may contain {key}; JSON is a dotted path to the token.
	Probe Probe `json:"probe,omitempty"`
	// Timeout bounds how long the committer waits for the page to show
	// success or refused after the commit action (it polls the page), and
	// then how long it keeps asking the probe after an attempt whose
	// outcome it did not see.
	Timeout Duration `json:"timeout"`
}

// InvoiceSpec locates the invoice link.
type InvoiceSpec struct {
	Link     string `json:"link,omitempty"`
	Selector string `json:"selector,omitempty"`
}

// Probe is an HTTP GET that finds an existing commit by key.
type Probe struct {
	URL  string `json:"url,omitempty"`
	JSON string `json:"json,omitempty"`
}

// HasCommit reports whether the task has a side effect to commit.
func (t *Task) HasCommit() bool { return t.Commit != nil }

// File returns the path the task was loaded from ("" for Parse).
func (t *Task) File() string { return t.file }
