package simweb

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/multiverse-orchestrator/multiverse/act"
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// WorkerName is the worker name simulated results carry.
const WorkerName = "simweb"

// Cost is what executing a plan cost in the simulated web.
type Cost struct {
	// SimMS is the simulated time: page latencies plus ActionOverheadMS
	// per action.
	SimMS int64 `json:"sim_ms"`
	// Actions counts the executed actions (a failed one included).
	Actions int `json:"actions"`
	// Units is the sum of the task's prices of the executed actions, a
	// paid link's multiplier applied.
	Units float64 `json:"units"`
}

// Add returns the sum of two costs.
func (c Cost) Add(d Cost) Cost {
	return Cost{SimMS: c.SimMS + d.SimMS, Actions: c.Actions + d.Actions, Units: c.Units + d.Units}
}

// netRec is one request of a simulated branch.
type netRec struct {
	step    int
	method  string
	url     string
	status  int
	body    string
	size    int
	blocked bool
}

// clone returns an independent copy of the tab.
func (ss *session) clone() *session {
	c := *ss
	c.net = append([]netRec(nil), ss.net...)
	c.blocked = make(map[string]int, len(ss.blocked))
	for k, n := range ss.blocked {
		c.blocked[k] = n
	}
	if ss.v != nil {
		c.v = ss.v.clone()
	}
	return &c
}

// bodyOf returns the hash and size of the scrubbed document a GET request
// was answered with, rendering it again when it was not yet needed.
func (ss *session) bodyOf(r netRec, sc *scrubber) (string, int) {
	if r.body != "" || r.status == 0 || r.method != "GET" {
		return r.body, r.size
	}
	key := r.url + "\x00" + sc.key
	if b, ok := ss.site.bodies.Load(key); ok {
		x := b.(body)
		return x.hash, x.size
	}
	v, ok := ss.site.load(r.url)
	if !ok {
		return "", 0
	}
	x := body{}
	x.hash, x.size = v.hashDOM(sc.withPII(v).text)
	ss.site.bodies.Store(key, x)
	return x.hash, x.size
}

// body is the hash and size of a served document.
type body struct {
	hash string
	size int
}

// session is the simulated browser tab of one execution.
type session struct {
	site    *Site
	spec    *job.Spec
	v       *view
	net     []netRec
	blocked map[string]int
	step    int
}

// Execute replays plan from a fresh simulated tab, as a browser worker
// does: every action in order (the first is normally the navigation to
// the start URL), stopping at the first failed one, then observes the page
// and evaluates spec's predicates, boundary and dead-end detectors. The
// result has the browser worker's shape: status ok or failed with a stable
// error code (selector_not_found, element_hidden, page_error, …), one step
// per executed action with start and end on the simulated clock (which
// starts at spec's pinned clock), the observation, the boundary verdict,
// every response, and the guarded requests that were blocked. RunID,
// BranchID and Attempt are left for the caller. A nil spec is an empty
// one. Execute never fails: a plan the site cannot execute is a failed
// result. It is deterministic: the same plan and spec give the same
// result and cost.
func (s *Site) Execute(plan branch.Plan, spec *job.Spec) (*job.Result, Cost) {
	res, costs := s.execute(plan, spec)
	var total Cost
	for _, c := range costs {
		total = total.Add(c)
	}
	return res, total
}

// execute is Execute with the cost of every executed action.
func (s *Site) execute(plan branch.Plan, spec *job.Spec) (*job.Result, []Cost) {
	r := s.newRun(spec)
	r.advance(plan)
	return r.result(plan)
}

// run is an execution in progress: the tab and what its steps did. A run
// can be cloned and advanced further, which is how Evaluate executes a
// child without replaying its parent's prefix; the result is the same as
// a full replay's.
type run struct {
	ss      *session
	clock   time.Time
	stepDur time.Duration
	steps   []job.Step
	costs   []Cost
	elapsed int64
	failed  bool
}

func (s *Site) newRun(spec *job.Spec) *run {
	if spec == nil {
		spec = &job.Spec{}
	}
	r := &run{ss: &session{site: s, spec: spec, blocked: map[string]int{}}, clock: spec.Env.Clock, stepDur: spec.Env.StepAdvance.D()}
	if r.clock.IsZero() {
		r.clock = task.DefaultClock
	}
	if r.stepDur <= 0 {
		r.stepDur = time.Second
	}
	return r
}

// clone returns an independent copy of the run.
func (r *run) clone() *run {
	c := *r
	c.ss = r.ss.clone()
	c.steps = append([]job.Step(nil), r.steps...)
	c.costs = append([]Cost(nil), r.costs...)
	return &c
}

// advance executes the actions of plan after those already executed,
// stopping at the first failed one.
func (r *run) advance(plan branch.Plan) {
	ss := r.ss
	for i := len(r.steps); i < len(plan) && !r.failed; i++ {
		a := plan[i]
		ss.step = i + 1
		out := ss.do(a)
		c := Cost{SimMS: ActionOverheadMS + out.loadMS, Actions: 1, Units: ss.site.price(a.Kind) * out.mult}
		r.costs = append(r.costs, c)
		sr := branch.StepResult{Step: i + 1, Status: branch.StatusOK, Strategy: out.strategy,
			Start: r.clock.Add(time.Duration(r.elapsed) * time.Millisecond)}
		r.elapsed += c.SimMS
		sr.End = r.clock.Add(time.Duration(r.elapsed) * time.Millisecond)
		sr.VirtualTime = r.clock.Add(time.Duration(i+1) * r.stepDur).UnixMilli()
		if strings.HasPrefix(out.strategy, "healed:") {
			sr.Status, sr.Strategy = branch.StatusHealed, strings.TrimPrefix(out.strategy, "healed:")
		}
		if out.code != "" {
			sr.Status, sr.Code, sr.Error = branch.StatusFailed, out.code, out.msg
			r.failed = true
		}
		r.steps = append(r.steps, job.Step{StepResult: sr})
	}
}

// result observes the page and builds the worker result of plan, whose
// actions the run has executed.
func (r *run) result(plan branch.Plan) (*job.Result, []Cost) {
	res := &job.Result{Worker: WorkerName, Started: r.clock}
	if len(plan) == 0 {
		res.Status, res.ErrCode, res.ErrMsg = job.ResultFailed, branch.CodeBadJob, "the plan is empty"
		return res, nil
	}
	last := len(plan) - 1
	res.Steps = make([]job.Step, len(r.steps))
	for i, st := range r.steps {
		st.Replayed = i < last
		res.Steps[i] = st
		if i < last {
			res.Timing.Prefix += r.costs[i].SimMS
		} else {
			res.Timing.Action = r.costs[i].SimMS
		}
		if st.Status == branch.StatusFailed {
			res.Status, res.ErrCode, res.ErrMsg, res.ErrStep = job.ResultFailed, st.Code, st.Error, i+1
			if i < last {
				res.ErrMsg = fmt.Sprintf("replaying the prefix diverged at step %d: %s", i+1, st.Error)
			}
		}
	}
	ss := r.ss
	if (!r.failed || res.ErrStep == len(plan)) && ss.v != nil {
		ss.observe(res, len(plan), r.clock.Add(time.Duration(len(plan))*r.stepDur))
	}
	if res.Status == "" {
		res.Status = job.ResultOK
		if res.Obs == nil {
			res.Status, res.ErrCode, res.ErrMsg, res.ErrStep = job.ResultFailed, branch.CodePageError, "no page was loaded", len(plan)
		}
	}
	res.Blocked = ss.blockedList()
	res.Timing.Total = res.Timing.Prefix + res.Timing.Action
	return res, append([]Cost(nil), r.costs...)
}

func (s *Site) price(kind string) float64 {
	if p, ok := s.Prices[kind]; ok {
		return p
	}
	return 1
}

// outcome is what one action did.
type outcome struct {
	strategy string
	code     branch.Code
	msg      string
	loadMS   int64   // page latency of a load the action caused
	mult     float64 // price multiplier (a paid link)
}

func fail(code branch.Code, format string, args ...any) outcome {
	return outcome{code: code, msg: fmt.Sprintf(format, args...), mult: 1}
}

// do executes one action with the shared interpreter (act.Do) over the
// session's tab. A failed action's outcome carries its code and message
// (and no strategy), a price multiplier of 1 and no load.
func (ss *session) do(a branch.Action) outcome {
	// The simulated web does no I/O: nothing to cancel.
	p := &actPage{ss: ss, out: outcome{mult: 1}}
	res, err := act.Do(context.Background(), p, a, ss.input)
	if err != nil {
		var ae *act.Error
		if errors.As(err, &ae) {
			return fail(ae.Code, "%s", ae.Msg)
		}
		return fail(branch.CodePageError, "%v", err) // every failure here is an *act.Error
	}
	p.out.strategy = res.Strategy
	return p.out
}

// input resolves a task input of the spec.
func (ss *session) input(name string) (string, error) {
	in, ok := ss.spec.Inputs[name]
	if !ok {
		return "", fmt.Errorf("the task has no input %q", name)
	}
	return in.Resolve()
}

// actPage is the session's tab as act.Do sees it. It keeps the outcome
// of the last operation that succeeded (its load time and price
// multiplier); a failed one is an *act.Error with the outcome's code.
type actPage struct {
	ss  *session
	out outcome
}

var (
	_ act.Page    = (*actPage)(nil)
	_ act.Element = actElement{}
)

// done keeps a successful outcome, or returns a failed one as an error.
func (p *actPage) done(o outcome) error {
	if o.code != "" {
		return &act.Error{Code: o.code, Msg: o.msg}
	}
	p.out = o
	return nil
}

func (p *actPage) Navigate(_ context.Context, url string) error {
	return p.done(p.ss.navigate(url))
}

func (p *actPage) Scroll(context.Context, float64) error {
	if p.ss.v == nil {
		return p.done(fail(branch.CodePageError, "no page is open"))
	}
	return nil
}

func (p *actPage) Eval(context.Context, string) error {
	return p.done(fail(branch.CodeUnsupported, "the simulated web runs no scripts"))
}

// Press on the page changes nothing: no key handlers are simulated.
func (p *actPage) Press(context.Context, string) error { return nil }

// Wait changes nothing: the simulated pages have no timers.
func (p *actPage) Wait(context.Context, time.Duration) error { return nil }

// Resolve finds t's control on the open page (see resolve); with no page
// open it fails with selector_not_found.
func (p *actPage) Resolve(_ context.Context, t *branch.Target) (act.Element, string, error) {
	if p.ss.v == nil {
		return nil, "", p.done(fail(branch.CodeSelectorNotFound, "no page is open"))
	}
	c, strategy, o := p.ss.resolve(t)
	if o.code != "" {
		return nil, "", p.done(o)
	}
	return actElement{p, c}, strategy, nil
}

// actElement is a control of the open page as act.Do sees it.
type actElement struct {
	p *actPage
	c *control
}

func (e actElement) Click(context.Context) error { return e.p.done(e.p.ss.click(e.c)) }

func (e actElement) Fill(_ context.Context, text string) error {
	return e.p.done(e.p.ss.typeInto(e.c, text))
}

func (e actElement) Select(_ context.Context, value string) error {
	return e.p.done(e.p.ss.selectIn(e.c, value))
}

func (e actElement) SetChecked(_ context.Context, checked bool) error {
	if e.c.kind != branch.ElemCheckbox {
		return e.p.done(fail(branch.CodePageError, "Error: Not a checkbox or radio button"))
	}
	e.c.checked = checked
	return nil
}

// Focus and Hover change nothing: the simulated web has no focus styles
// and no hover menus (its menu opens on a click), so pointing at or
// focusing a control that is there does nothing.
func (e actElement) Focus(context.Context) error { return nil }

func (e actElement) Hover(context.Context) error { return nil }

// Press with Enter clicks a link or button and submits the form of a
// form field; any other key changes nothing.
func (e actElement) Press(_ context.Context, key string) error {
	switch c := e.c; {
	case key != "Enter":
	case c.kind == branch.ElemLink || c.kind == branch.ElemButton:
		return e.p.done(e.p.ss.click(c))
	case c.form >= 0:
		return e.p.done(e.p.ss.submit(e.p.ss.v.forms[c.form]))
	}
	return nil
}

// Set says nothing of how it set the value: there is only one way.
func (e actElement) Set(_ context.Context, value string) (string, error) {
	return "", e.p.done(e.p.ss.setIn(e.c, value))
}

// WaitVisible succeeds at once: a resolved control is visible.
func (e actElement) WaitVisible(context.Context) error { return nil }

// navigate loads rawURL. Only the site's origin resolves.
func (ss *session) navigate(rawURL string) outcome {
	v, ok := ss.site.load(rawURL)
	if !ok {
		return fail(branch.CodePageError, "page.goto: net::ERR_NAME_NOT_RESOLVED at %s", rawURL)
	}
	ss.enter(v, "GET")
	return outcome{loadMS: v.page.LatencyMS, mult: 1}
}

// enter makes v the current page and records its request.
func (ss *session) enter(v *view, method string) {
	ss.v = v
	ss.net = append(ss.net, netRec{step: ss.step, method: method, url: v.url, status: v.status})
}

// resolve finds the target's element the way the browser does: the
// strategies it carries in the order testid, aria_label, role and name,
// id, field, text, css; the first that names exactly one visible element
// wins. A later strategy winning is a healed step; a target whose only
// matches are hidden is element_hidden.
func (ss *session) resolve(t *branch.Target) (*control, string, outcome) {
	type strat struct {
		name  string
		match func(c *control) bool
	}
	var list []strat
	add := func(name, v string, f func(c *control) bool) {
		if v != "" {
			list = append(list, strat{name, f})
		}
	}
	v := ss.v
	add("testid", t.TestID, func(c *control) bool { return c.testid == t.TestID })
	add("aria_label", t.AriaLabel, func(c *control) bool { return c.aria == t.AriaLabel })
	if t.Role != "" && t.Name != "" {
		// Role queries see the accessibility tree only: hidden elements
		// are not in it.
		add("role", t.Role, func(c *control) bool { return c.role == t.Role && c.name == t.Name && c.visible(v.menuOpen) })
	}
	add("id", t.ID, func(c *control) bool { return c.id == t.ID })
	add("field", t.Field, func(c *control) bool { return c.field == t.Field })
	add("text", t.Text, func(c *control) bool { return c.text != "" && c.text == strings.Join(strings.Fields(t.Text), " ") })
	add("css", t.CSS, func(c *control) bool { return c.css == t.CSS })
	if len(list) == 0 {
		return nil, "", fail(branch.CodeSelectorNotFound, "the target has no strategy")
	}
	sawHidden := false
	for i, st := range list {
		var shown *control
		n, all := 0, 0
		for _, c := range v.controls {
			if st.match(c) {
				all++
				if c.visible(v.menuOpen) {
					n++
					shown = c
				}
			}
		}
		if n != 1 {
			sawHidden = sawHidden || (n == 0 && all > 0)
			continue
		}
		name := st.name
		if i > 0 {
			name = "healed:" + name
		}
		return shown, name, outcome{}
	}
	if sawHidden {
		return nil, "", fail(branch.CodeElementHidden, "target %s is not visible", t.Describe())
	}
	return nil, "", fail(branch.CodeSelectorNotFound, "no strategy found target %s", t.Describe())
}

func (ss *session) click(c *control) outcome {
	switch {
	case c.kind == branch.ElemLink:
		v, ok := ss.site.load(c.href)
		if !ok {
			return fail(branch.CodePageError, "net::ERR_NAME_NOT_RESOLVED at %s", c.href)
		}
		ss.enter(v, "GET")
		return outcome{loadMS: v.page.LatencyMS, mult: c.cost}
	case c.submit:
		return ss.submit(ss.v.forms[c.form])
	case c.effect == EffectMenu:
		ss.v.menuOpen = !ss.v.menuOpen
	case c.kind == branch.ElemCheckbox:
		c.checked = !c.checked
	}
	return outcome{mult: 1}
}

func (ss *session) typeInto(c *control, value string) outcome {
	switch c.kind {
	case branch.ElemTextbox, branch.ElemEmail, branch.ElemSearch:
	case branch.ElemNumber:
		if _, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err != nil && value != "" {
			return fail(branch.CodePageError, "Error: Cannot type text into input[type=number]")
		}
	default:
		return fail(branch.CodePageError, "Error: Element is not an <input>, <textarea> or [contenteditable] element")
	}
	c.value = value
	return outcome{mult: 1}
}

// setIn makes a control hold a value, as the browser's set action does:
// a number field takes a number only, a text field takes the text, a
// select its option, a checkbox "true" or "false"; links and buttons
// hold no value.
func (ss *session) setIn(c *control, value string) outcome {
	switch c.kind {
	case branch.ElemNumber:
		if _, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err != nil {
			return fail(branch.CodeValueNotSet, "<input type=number> does not take %q: not in its format", value)
		}
		c.value = strings.TrimSpace(value)
	case branch.ElemTextbox, branch.ElemEmail, branch.ElemSearch:
		c.value = value
	case branch.ElemSelect:
		return ss.selectIn(c, value)
	case branch.ElemCheckbox:
		c.checked = value != "false"
	default:
		return fail(branch.CodeUnsupported, "set: <%s> is not a control that holds a value", c.kind)
	}
	return outcome{mult: 1}
}

func (ss *session) selectIn(c *control, value string) outcome {
	if c.kind != branch.ElemSelect {
		return fail(branch.CodePageError, "Error: Element is not a <select> element")
	}
	for _, o := range c.options {
		if o.Value == value {
			c.value = o.Value
			return outcome{mult: 1}
		}
	}
	for _, o := range c.options {
		if o.Text == value {
			c.value = o.Value
			return outcome{mult: 1}
		}
	}
	return fail(branch.CodeTimeout, "locator.selectOption: Timeout exceeded: did not find option %q", value)
}

// submit submits a form: a required field left empty stops it (the
// browser's validation), a GET loads the action with the fields as the
// query, a guarded POST is blocked and recorded, any other POST places an
// order.
func (ss *session) submit(f *formView) outcome {
	for _, c := range f.fields {
		if c.required && c.visible(ss.v.menuOpen) && ((c.kind == branch.ElemCheckbox && !c.checked) || (c.kind != branch.ElemCheckbox && c.value == "")) {
			return outcome{mult: 1} // the browser shows a validation bubble; nothing is sent
		}
	}
	var pairs []string
	for _, c := range f.fields {
		if c.field == "" || (c.kind == branch.ElemCheckbox && !c.checked) {
			continue
		}
		pairs = append(pairs, url.QueryEscape(c.field)+"="+url.QueryEscape(c.value))
	}
	query := strings.Join(pairs, "&")
	target := ss.site.Origin + f.action
	if f.method != "POST" {
		v, _ := ss.site.load(target + "?" + query)
		ss.enter(v, "GET")
		return outcome{loadMS: v.page.LatencyMS, mult: 1}
	}
	for _, g := range ss.spec.Guard {
		if (g.Method == "" || strings.EqualFold(g.Method, "POST")) && scoring.MatchString(g.URL, target) {
			ss.blocked["POST "+target]++
			ss.net = append(ss.net, netRec{step: ss.step, method: "POST", url: target, blocked: true})
			return outcome{mult: 1}
		}
	}
	id := "ORD-" + strconv.Itoa(100000+int(hashMod(ss.site.Origin+"\x00"+query, 900000)))
	ss.net = append(ss.net, netRec{step: ss.step, method: "POST", url: target, status: 303, body: sha(query), size: len(query)})
	v, _ := ss.site.load(target + "/" + id)
	ss.enter(v, "GET")
	return outcome{loadMS: 2 * v.page.LatencyMS, mult: 1}
}

func hashMod(s string, m uint64) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h % m
}

func (ss *session) blockedList() []string {
	if len(ss.blocked) == 0 {
		return nil
	}
	out := make([]string, 0, len(ss.blocked))
	for k := range ss.blocked {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
