package task

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/scoring"
)

// Defaults applied by Parse.
const (
	DefaultWallClock       = 3 * time.Minute
	DefaultBranchWallClock = 60 * time.Second
	DefaultStepsPerBranch  = 14
	DefaultTotalBranches   = 200
	DefaultActionTimeout   = 10 * time.Second
	DefaultBeamWidth       = 4
	DefaultMinBeamWidth    = 2
	DefaultMaxChildren     = 4
	DefaultStallLimit      = 3
	DefaultDiversity       = 0.25
	DefaultWorkers         = 4
	DefaultConfirmTimeout  = 20 * time.Second
	DefaultUserAgent       = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) MultiverseAgent/1.0"
	// The frozen environment's defaults; a browser session takes the
	// same for a zero field (browser.Env).
	DefaultViewportWidth     = 1280
	DefaultViewportHeight    = 800
	DefaultDeviceScaleFactor = 1.0
	DefaultLocale            = "en-US"
	DefaultTimezone          = "UTC"
	DefaultStepAdvance       = time.Second
)

// Limits checked by Parse.
const (
	// MaxWorkers bounds search.workers and the in-process worker slots
	// of a run: each slot keeps one pull request waiting on the JetStream
	// server, which allows 512 per consumer (bus refuses more than 256).
	MaxWorkers = 256
	// MaxViewport bounds each side of the viewport in CSS pixels: 8K
	// UHD fits; a larger one makes Chromium fail every branch (its
	// screenshots and compositor surfaces have limits near this size).
	MaxViewport = 8192
)

// DefaultClock is the pinned page clock when a task names none.
var DefaultClock = time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)

// DefaultRiskPatterns are always in force: the planner never proposes an
// action whose target matches one, unless the goal's own text matches it
// (a goal that says "delete the draft" asks for it; the request hold
// still stops whatever it would send). A task's risk_patterns add to
// them and always hold.
var DefaultRiskPatterns = []string{
	`(?i)\b(place|submit|confirm|complete)\s+(the\s+|my\s+|your\s+)?(order|purchase|payment)\b`,
	`(?i)\bpay(\s+now)?\b`,
	`(?i)\b(buy|purchase)\s+now\b`,
	`(?i)\bdelete\b`,
	`(?i)\bcancel\s+(my\s+|the\s+)?(subscription|account|plan|order)\b`,
	`(?i)\bunsubscribe\b`,
	// Destructive and session-ending actions of admin areas: they change
	// the site, or end the login every branch and the committer share.
	`(?i)\b(remove|trash|destroy|purge|erase)\b`,
	`(?i)\b(un)?(block|ban|protect|suspend|deactivate|revoke)\b`,
	`(?i)\b(log|sign)\s*(-\s*)?(out|off)\b`,
}

// Strategies the search understands (the planner implements them; a test
// there keeps the two lists equal): the search strategies beam and uct, and
// the baselines greedy (a sequential agent), bfs and random.
var Strategies = []string{"beam", "uct", "greedy", "bfs", "random"}

// Selections are how the search picks among finished branches: by the
// scalar score J, or from the Pareto front of the score vector.
var Selections = []string{"j", "pareto"}

// ScreenshotPolicies are the values capture.screenshots takes.
var ScreenshotPolicies = []string{ScreenshotsLooked, ScreenshotsAll, ScreenshotsNone}

type validator struct {
	file string
	root *yaml.Node
	err  *Error
}

func (v *validator) fail(path, format string, args ...any) {
	if v.err != nil {
		return
	}
	v.err = &Error{File: v.file, Line: lineOf(v.root, path), Field: path, Msg: fmt.Sprintf(format, args...)}
}

// lineOf finds the line of a dotted path ("goal.success[1].text") in the
// YAML tree; it falls back to the deepest ancestor found.
func lineOf(n *yaml.Node, path string) int {
	if n == nil {
		return 0
	}
	line := n.Line
	if path == "" {
		return line
	}
	for _, seg := range splitPath(path) {
		n = resolve(n)
		if n == nil {
			break
		}
		if seg.index >= 0 {
			if n.Kind != yaml.SequenceNode || seg.index >= len(n.Content) {
				break
			}
			n = n.Content[seg.index]
			line = n.Line
			continue
		}
		if n.Kind != yaml.MappingNode {
			break
		}
		found := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == seg.key {
				line = n.Content[i].Line
				n = n.Content[i+1]
				found = true
				break
			}
		}
		if !found {
			break
		}
	}
	return line
}

type segment struct {
	key   string
	index int
}

func splitPath(path string) []segment {
	var out []segment
	for _, part := range strings.Split(path, ".") {
		for part != "" {
			i := strings.IndexByte(part, '[')
			if i < 0 {
				out = append(out, segment{key: part, index: -1})
				break
			}
			if i > 0 {
				out = append(out, segment{key: part[:i], index: -1})
			}
			j := strings.IndexByte(part[i:], ']')
			if j < 0 {
				break
			}
			n, _ := strconv.Atoi(part[i+1 : i+j])
			out = append(out, segment{index: n})
			part = part[i+j+1:]
		}
	}
	return out
}

func (v *validator) defaults(t *Task) {
	if t.Version == 0 {
		t.Version = SchemaVersion
	}
	if t.Name == "" {
		t.Name = defaultName(t.file)
	}
	plannerDefaults(&t.Planner)
	b := &t.Budgets
	setDur(&b.WallClock, DefaultWallClock)
	setDur(&b.BranchWallClock, DefaultBranchWallClock)
	setDur(&b.ActionTimeout, DefaultActionTimeout)
	setInt(&b.StepsPerBranch, DefaultStepsPerBranch)
	setInt(&b.TotalBranches, DefaultTotalBranches)
	if t.Prices == nil {
		t.Prices = map[string]float64{}
	}
	for _, k := range actionKinds {
		if _, ok := t.Prices[k]; !ok {
			t.Prices[k] = 1
		}
	}
	s := &t.Search
	if s.Strategy == "" {
		s.Strategy = "beam"
	}
	setInt(&s.BeamWidth, DefaultBeamWidth)
	setInt(&s.MinBeamWidth, min(DefaultMinBeamWidth, s.BeamWidth))
	setInt(&s.MaxChildren, DefaultMaxChildren)
	setInt(&s.StallLimit, DefaultStallLimit)
	setInt(&s.Workers, DefaultWorkers)
	if s.Diversity == 0 {
		s.Diversity = DefaultDiversity
	}
	if t.Weights == (scoring.Weights{}) {
		t.Weights = scoring.DefaultWeights()
	}
	t.RiskPatterns = append(append([]string{}, DefaultRiskPatterns...), t.RiskPatterns...)
	if t.DeadEnds == nil {
		t.DeadEnds = scoring.DefaultDetectors()
	}
	e := &t.Environment
	setInt(&e.Viewport.Width, DefaultViewportWidth)
	setInt(&e.Viewport.Height, DefaultViewportHeight)
	if e.DeviceScaleFactor == 0 {
		e.DeviceScaleFactor = DefaultDeviceScaleFactor
	}
	if e.Locale == "" {
		e.Locale = DefaultLocale
	}
	if e.Timezone == "" {
		e.Timezone = DefaultTimezone
	}
	if e.UserAgent == "" {
		e.UserAgent = DefaultUserAgent
	}
	if e.Clock.IsZero() {
		e.Clock = DefaultClock
	}
	setDur(&e.StepAdvance, DefaultStepAdvance)
	c := t.Commit
	if c == nil {
		c = &Commit{} // defaults below apply to nothing
	}
	if c.Site == "" {
		if u, err := url.Parse(t.StartURL); err == nil {
			c.Site = u.Hostname()
		}
	}
	if c.Flow == "" {
		c.Flow = t.Name
	}
	setDur(&c.Confirm.Timeout, DefaultConfirmTimeout)
	if c.Compensate != nil {
		setDur(&c.Compensate.Timeout, c.Confirm.Timeout.D())
	}
	for name, in := range t.Inputs {
		if in.Match == "" {
			in.Match = "(?i)" + regexp.QuoteMeta(strings.NewReplacer("_", " ", "-", " ").Replace(name))
			t.Inputs[name] = in
		}
	}
	for i := range c.Preconditions {
		if c.Preconditions[i].Name == "" {
			c.Preconditions[i].Name = fmt.Sprintf("precondition_%d", i+1)
		}
	}
}

func setDur(d *Duration, def time.Duration) {
	if *d == 0 {
		*d = Duration(def)
	}
}

func setInt(i *int, def int) {
	if *i == 0 {
		*i = def
	}
}

func (v *validator) predicate(path string, p *scoring.Predicate) {
	if v.err != nil {
		return
	}
	if err := p.Validate(); err != nil {
		var fe *scoring.FieldError
		if errors.As(err, &fe) {
			v.fail(joinPathRel(path, fe.Path), "%s", fe.Msg)
			return
		}
		v.fail(path, "%v", err)
	}
}

func joinPathRel(path, rel string) string {
	if rel == "" {
		return path
	}
	return path + "." + rel
}

func (v *validator) regex(path, expr string) {
	if _, err := regexp.Compile(expr); err != nil {
		v.fail(path, "bad regular expression: %v", err)
	}
}

func (v *validator) validate(t *Task) {
	if t.Version != SchemaVersion {
		v.fail("version", "unsupported task version %d (this Multiverse reads version %d)", t.Version, SchemaVersion)
	}
	if t.StartURL == "" {
		v.fail("start_url", "is required")
	} else if u, err := url.Parse(t.StartURL); err != nil {
		// The parser's error quotes the URL, credentials and all.
		v.fail("start_url", "must be an absolute http(s) URL, found one that does not parse")
	} else if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		v.fail("start_url", "must be an absolute http(s) URL, found %q", u.Redacted())
	}
	v.planner(&t.Planner)
	g := t.Goal
	if len(g.Milestones)+len(g.Success) == 0 {
		v.fail("goal", "needs at least one predicate under milestones or success")
	}
	if t.Commit == nil && len(g.Success) == 0 {
		v.fail("goal.success", "is required for a task without commit: the run ends when a branch satisfies every success predicate")
	}
	names := map[string]string{}
	for _, list := range []struct {
		field string
		preds []scoring.Predicate
	}{{"goal.milestones", g.Milestones}, {"goal.success", g.Success}, {"goal.failure", g.Failure}} {
		for i := range list.preds {
			p := &list.preds[i]
			path := fmt.Sprintf("%s[%d]", list.field, i)
			if p.Name == "" {
				v.fail(path+".name", "a goal predicate needs a name")
			} else if prev, dup := names[p.Name]; dup {
				v.fail(path+".name", "name %q is already used by %s", p.Name, prev)
			}
			names[p.Name] = path
			v.predicate(path, p)
		}
	}
	for i := range t.Goal.Milestones {
		t.Goal.Milestones[i].Sticky = true
	}
	for name, in := range t.Inputs {
		path := "inputs." + name
		n := 0
		for _, s := range []string{in.Value, in.SecretEnv, in.SecretFile} {
			if s != "" {
				n++
			}
		}
		if n > 1 {
			v.fail(path, "set exactly one of value, secret_env, secret_file")
		}
		if in.SecretEnv != "" && !envName.MatchString(in.SecretEnv) {
			v.fail(path+".secret_env", "%q is not an environment variable name", in.SecretEnv)
		}
		v.regex(path+".match", in.Match)
	}
	b := t.Budgets
	positive := []struct {
		path string
		val  int
	}{{"budgets.steps_per_branch", b.StepsPerBranch}, {"budgets.total_branches", b.TotalBranches},
		{"search.beam_width", t.Search.BeamWidth}, {"search.min_beam_width", t.Search.MinBeamWidth},
		{"search.max_children", t.Search.MaxChildren}, {"search.stall_limit", t.Search.StallLimit},
		{"search.workers", t.Search.Workers}, {"environment.viewport.width", t.Environment.Viewport.Width},
		{"environment.viewport.height", t.Environment.Viewport.Height}}
	for _, p := range positive {
		if p.val < 1 {
			v.fail(p.path, "must be at least 1, found %d", p.val)
		}
	}
	if t.Search.Workers > MaxWorkers {
		v.fail("search.workers", "must be at most %d (worker slots in one process; start worker processes for more), found %d", MaxWorkers, t.Search.Workers)
	}
	for _, p := range []struct {
		path string
		val  int
	}{{"environment.viewport.width", t.Environment.Viewport.Width}, {"environment.viewport.height", t.Environment.Viewport.Height}} {
		if p.val > MaxViewport {
			v.fail(p.path, "must be at most %d CSS pixels, found %d", MaxViewport, p.val)
		}
	}
	if b.Cost < 0 {
		v.fail("budgets.cost", "must not be negative")
	}
	for k, p := range t.Prices {
		if p < 0 {
			v.fail("prices."+k, "must not be negative")
		}
	}
	s := t.Search
	if !contains(Strategies, s.Strategy) {
		v.fail("search.strategy", "unknown strategy %q (known: %s)", s.Strategy, strings.Join(Strategies, ", "))
	}
	if c := t.Capture.Screenshots; c != "" && !contains(ScreenshotPolicies, c) {
		v.fail("capture.screenshots", "unknown policy %q (known: %s)", c, strings.Join(ScreenshotPolicies, ", "))
	}
	if s.Selection != "" && !contains(Selections, s.Selection) {
		v.fail("search.selection", "unknown selection %q (known: %s)", s.Selection, strings.Join(Selections, ", "))
	}
	if s.MinBeamWidth > s.BeamWidth {
		v.fail("search.min_beam_width", "must not exceed beam_width (%d)", s.BeamWidth)
	}
	if s.Diversity < 0 || s.Diversity >= 1 {
		v.fail("search.diversity", "must be in [0, 1), found %g", s.Diversity)
	}
	for i, p := range t.RiskPatterns[len(DefaultRiskPatterns):] {
		v.regex(fmt.Sprintf("risk_patterns[%d]", i), p)
	}
	for i, det := range t.DeadEnds {
		if err := det.Validate(); err != nil {
			var fe *scoring.FieldError
			path := fmt.Sprintf("dead_ends[%d]", i)
			if errors.As(err, &fe) {
				v.fail(joinPathRel(path, fe.Path), "%s", fe.Msg)
			} else {
				v.fail(path, "%v", err)
			}
		}
	}
	e := t.Environment
	if e.DeviceScaleFactor <= 0 || e.DeviceScaleFactor > 4 {
		v.fail("environment.device_scale_factor", "must be in (0, 4]")
	}
	for name, h := range e.Headers {
		if h.SecretFile != "" && h.SecretEnv != "" || (h.Value != "" && h.Secret()) {
			v.fail("environment.headers."+name, "set exactly one of value, secret_env, secret_file")
		}
		if strings.ContainsAny(name, " :\r\n") || name == "" {
			v.fail("environment.headers."+name, "%q is not a header name", name)
		}
	}
	if _, err := time.LoadLocation(e.Timezone); err != nil {
		v.fail("environment.timezone", "unknown time zone %q", e.Timezone)
	}
	if in := t.Auth.StorageState; in != nil && (in.SecretEnv == "") == (in.SecretFile == "") {
		v.fail("auth.storage_state", "set exactly one of secret_file, secret_env: a storage state holds session tokens")
	}
	if in := t.Auth.StorageState; in != nil && in.SecretEnv != "" && !envName.MatchString(in.SecretEnv) {
		v.fail("auth.storage_state.secret_env", "%q is not an environment variable name", in.SecretEnv)
	}
	for i, a := range t.Auth.Login {
		path := fmt.Sprintf("auth.login[%d]", i)
		if err := a.Validate(); err != nil {
			v.fail(path, "%s", strings.TrimPrefix(err.Error(), "branch: "))
		}
		if a.Input != "" {
			if _, ok := t.Inputs[a.Input]; !ok {
				v.fail(path+"."+a.Kind+".input", "names no input: %q is not under inputs", a.Input)
			}
		}
		if a.Kind == branch.KindNavigate {
			if _, err := url.Parse(a.URL); err != nil || a.URL == "" {
				v.fail(path+".navigate", "%q is not a URL (absolute, or relative to start_url)", a.URL)
			}
		}
	}
	if p := t.Auth.LoginPage; p != nil {
		v.predicate("auth.login_page", p)
	}
	seen := map[string]bool{}
	for _, f := range t.Extract {
		path := "extract." + f.Name
		switch {
		case f.Selector == "":
			v.fail(path+".selector", "is required: where the value is read on the final page")
		case seen[f.Name]:
			v.fail(path, "is named twice")
		}
		seen[f.Name] = true
	}
	v.requestPatterns("explore.allow", t.Explore.Allow)
	for i, o := range t.Explore.Origins {
		if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" {
			v.fail(fmt.Sprintf("explore.origins[%d]", i), "%q is not an origin: write scheme://host[:port], e.g. https://accounts.example.com", o)
		}
	}
	v.commit(t)
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (v *validator) commit(t *Task) {
	c := t.Commit
	if v.err != nil || c == nil {
		return
	}
	if c.Boundary.Kind() == "" && c.Action.Kind == "" && len(c.Intent) == 0 {
		v.fail("commit", "is empty: say where speculation stops and how to commit (boundary, intent, action, ...), or leave commit out for a task without a side effect")
		return
	}
	if c.Boundary.Kind() == "" {
		v.fail("commit.boundary", "is required: the predicate that says speculation stops here")
	}
	v.predicate("commit.boundary", &c.Boundary)
	if len(c.Intent) == 0 {
		v.fail("commit.intent", "needs at least one field: the business intent the idempotency key is made of")
	}
	for _, f := range c.Intent {
		if f.Selector == "" {
			v.fail("commit.intent."+f.Name+".selector", "is required")
		}
		if f.Name == "nonce" || f.Name == "form_body" {
			v.fail("commit.intent."+f.Name, "is a reserved name (the key's payload holds commit.%s under it): rename the field", f.Name)
		}
	}
	for i, name := range c.Volatile {
		if strings.TrimSpace(name) == "" {
			v.fail(fmt.Sprintf("commit.volatile[%d]", i), "is empty: name a form field")
		}
	}
	for i := range c.Preconditions {
		v.predicate(fmt.Sprintf("commit.preconditions[%d]", i), &c.Preconditions[i])
	}
	if c.Action.Kind == "" {
		v.fail("commit.action", "is required: the action that makes the side effect")
	} else if err := c.Action.Validate(); err != nil {
		v.fail("commit.action", "%s", strings.TrimPrefix(err.Error(), "branch: "))
	}
	id := c.Idempotency
	if (id.FormField == "") == (id.Header == "") {
		v.fail("commit.idempotency", "set exactly one of form_field (a selector) or header (a header name)")
	}
	v.requestPatterns("commit.guard", c.Guard)
	cf := c.Confirm
	if cf.Success.Kind() == "" {
		v.fail("commit.confirm.success", "is required: the predicate that says the commit succeeded")
	}
	v.predicate("commit.confirm.success", &cf.Success)
	if cf.Refused.Kind() != "" {
		v.predicate("commit.confirm.refused", &cf.Refused)
	}
	if cf.Token.Selector == "" {
		v.fail("commit.confirm.token", "is required: where the confirmation token (an order id) is shown")
	}
	if cf.Invoice.Link != "" && cf.Invoice.Selector != "" {
		v.fail("commit.confirm.invoice", "set only one of link, selector")
	}
	if (cf.Probe.URL == "") != (cf.Probe.JSON == "") {
		v.fail("commit.confirm.probe", "set both url and json, or neither")
	}
	if c.Site == "" {
		v.fail("commit.site", "is required when start_url has no host")
	}
	if c.CAS != nil && c.CAS.Selector == "" {
		v.fail("commit.cas.selector", "is required: where the version the site checks is shown")
	}
	v.compensate(t)
}

// compensate checks commit.postcheck and commit.compensate.
func (v *validator) compensate(t *Task) {
	c := t.Commit
	names := map[string]bool{}
	for i := range c.Postcheck {
		p := &c.Postcheck[i]
		path := fmt.Sprintf("commit.postcheck[%d]", i)
		switch {
		case p.Name == "":
			v.fail(path+".name", "a post-check needs a name")
		case names[p.Name]:
			v.fail(path+".name", "name %q is used twice", p.Name)
		}
		names[p.Name] = true
		v.predicate(path, p)
	}
	cp := c.Compensate
	if cp == nil {
		if len(c.Postcheck) > 0 {
			v.fail("commit.compensate", "is required with commit.postcheck: the undo a failed post-check runs")
		}
		return
	}
	if cp.Navigate == "" {
		v.fail("commit.compensate.navigate", "is required: the URL where the undo starts ({order_id} stands for the order)")
	} else if _, err := url.Parse(strings.ReplaceAll(cp.Navigate, OrderIDPlaceholder, "x")); err != nil {
		v.fail("commit.compensate.navigate", "%q is not a URL (absolute, or relative to start_url)", cp.Navigate)
	}
	if cp.Action.Kind == "" {
		v.fail("commit.compensate.action", "is required: the action that sends the undo")
	} else if err := cp.Action.Validate(); err != nil {
		v.fail("commit.compensate.action", "%s", strings.TrimPrefix(err.Error(), "branch: "))
	}
	if cp.Confirm.Kind() == "" {
		v.fail("commit.compensate.confirm", "is required: the predicate that says the site undid the commit")
	}
	v.predicate("commit.compensate.confirm", &cp.Confirm)
	if id := cp.Idempotency; id != nil && (id.FormField == "") == (id.Header == "") {
		v.fail("commit.compensate.idempotency", "set exactly one of form_field (a selector) or header (a header name)")
	}
}

// requestPatterns checks a list of request patterns: a URL expression
// that compiles, and a method HTTP knows.
func (v *validator) requestPatterns(path string, ps []RequestPattern) {
	for i, g := range ps {
		p := fmt.Sprintf("%s[%d]", path, i)
		if g.URL == "" {
			v.fail(p+".url", "is required")
		}
		v.regex(p+".url", g.URL)
		switch strings.ToUpper(g.Method) {
		case "", "GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE", branch.MethodFrame:
		default:
			v.fail(p+".method", "%q is not an HTTP method (GET, POST, PUT, PATCH, DELETE, ...) or WS (a WebSocket frame)", g.Method)
		}
	}
}
