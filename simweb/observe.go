package simweb

import (
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// MaxAffordances bounds the affordances of an observation, as the
// browser's default does.
const MaxAffordances = 120

// observe fills the result's observation the way the browser worker
// does: hashes, affordances with the inputs they hold (values scrubbed),
// predicates, boundary, dead ends, the requests of the branch and the
// network records of the last step.
func (ss *session) observe(res *job.Result, steps int, vt time.Time) {
	v, spec := ss.v, ss.spec
	sc := newScrubber(ss.site, spec)
	pc := sc.withPII(v)
	for _, n := range ss.net {
		if n.status > 0 {
			res.Requests = append(res.Requests, scoring.RequestFact{Method: n.method, URL: n.url, Status: n.status})
		}
	}
	preds := append(append([]scoring.Predicate{}, spec.Predicates...), spec.Boundary)
	answers := map[scoring.Probe]scoring.Answer{}
	for _, p := range scoring.Probes(preds...) {
		answers[p] = v.answer(p)
	}
	facts := scoring.Facts{URL: v.url, Title: v.title, Answers: answers, Requests: res.Requests}
	domHash, _ := v.hashDOM(pc.text)
	obs := &branch.Observation{
		URL:         sc.url(v.url),
		Title:       v.title,
		Status:      v.status,
		DOMHash:     domHash,
		AXHash:      v.hashAX(pc.text),
		NetDigest:   ss.netDigest(steps, sc),
		Predicates:  map[string]bool{},
		Affordances: v.affordances(),
		VirtualTime: vt.UnixMilli(),
	}
	for i := range spec.Predicates {
		p := &spec.Predicates[i]
		ok, err := p.Eval(facts)
		obs.Predicates[p.Name] = ok
		if err != nil {
			if obs.PredicateErrors == nil {
				obs.PredicateErrors = map[string]string{}
			}
			obs.PredicateErrors[p.Name] = err.Error()
		}
	}
	if spec.Boundary.Kind() != "" {
		res.AtBoundary, _ = spec.Boundary.Eval(facts)
	}
	if res.AtBoundary && len(spec.Intent) > 0 {
		res.Intent = map[string]string{}
		for _, f := range spec.Intent {
			if x, ok := v.read(f.Selector, f.Attr); ok {
				res.Intent[f.Name] = pc.text(x)
			}
		}
	}
	obs.DeadEnds = v.deadEnds(spec.DeadEnds)
	markHolds(obs.Affordances, spec, pc)
	res.Obs = obs
	for i, n := range ss.net {
		if n.step >= steps {
			body, size := ss.bodyOf(n, sc)
			res.Net = append(res.Net, branch.NetRecord{Seq: i + 1, Step: n.step, Method: n.method, URL: sc.url(n.url),
				Type: "document", Status: n.status, BodyHash: body, BodySize: size, Blocked: n.blocked})
		}
	}
}

// sensitiveKeys caches scrub.SensitiveKey: field names repeat endlessly.
var sensitiveKeys sync.Map

func sensitiveKey(k string) bool {
	if x, ok := sensitiveKeys.Load(k); ok {
		return x.(bool)
	}
	s := scrub.SensitiveKey(k)
	sensitiveKeys.Store(k, s)
	return s
}

func secrets(spec *job.Spec) []string {
	var out []string
	for _, in := range spec.Inputs {
		if in.Secret() {
			if v, err := in.Resolve(); err == nil {
				out = append(out, v)
			}
		}
	}
	sort.Strings(out)
	return out
}

// markHolds records which input each field holds, then scrubs the
// affordances (labels, hrefs, values), exactly as the browser worker does.
func markHolds(affs []branch.Affordance, spec *job.Spec, sc *scrubber) {
	names := make([]string, 0, len(spec.Inputs))
	for n := range spec.Inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	values := make(map[string]string, len(names))
	for _, n := range names {
		if v, err := spec.Inputs[n].Resolve(); err == nil && v != "" {
			values[n] = v
		}
	}
	for i := range affs {
		a := &affs[i]
		t := &a.Target
		t.Name, t.Text, t.AriaLabel, t.Near = sc.text(t.Name), sc.text(t.Text), sc.text(t.AriaLabel), sc.text(t.Near)
		a.Href = sc.url(a.Href)
		if a.Value == "" {
			continue
		}
		for _, n := range names {
			if v, ok := values[n]; ok && a.Value == v {
				a.Holds = n
				break
			}
		}
		a.Value = sc.text(a.Value)
		if sensitiveKey(a.Target.Field) && a.Value != "" {
			a.Value = sc.sc.Token(a.Value)
		}
	}
}

// netDigest is the sha256 over the records of the steps from step on, in
// the browser's format: scrubbed URLs with the site origin folded to
// "{origin}", scrubbed body hashes, one line each, the lines sorted
// (branch.NetDigestMultiset).
func (ss *session) netDigest(step int, sc *scrubber) string {
	var lines []string
	origin := ss.spec.Origin
	if origin == "" {
		origin = ss.site.Origin
	}
	for _, r := range ss.net {
		if r.step < step {
			continue
		}
		u := sc.url(r.url)
		if strings.HasPrefix(u, origin) {
			u = "{origin}" + u[len(origin):]
		}
		body, _ := ss.bodyOf(r, sc)
		line := r.method + " " + u + " " + itoa(r.status) + " " + body
		if r.blocked {
			line += " blocked"
		}
		lines = append(lines, line+"\n")
	}
	sort.Strings(lines)
	return sha(strings.Join(lines, ""))
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d [20]byte
	i := len(d)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		d[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		d[i] = '-'
	}
	return string(d[i:])
}

// affordances lists the shown controls in the browser's format.
func (v *view) affordances() []branch.Affordance {
	var out []branch.Affordance
	for _, c := range v.controls {
		if c.kind == FieldHidden || !c.visible(v.menuOpen) {
			continue
		}
		if len(out) >= MaxAffordances {
			break
		}
		a := branch.Affordance{Kind: c.kind, Region: c.region, Form: c.form, Submit: c.submit, Required: c.required,
			Target: targetOf(c)}
		switch c.kind {
		case branch.ElemLink:
			a.Href = c.href
		case branch.ElemButton:
		default:
			a.Value = c.value
		}
		if c.kind == branch.ElemCheckbox {
			a.Checked = c.checked
		}
		if c.kind == branch.ElemSelect {
			a.Options = make([]branch.Option, len(c.options))
			for i, o := range c.options {
				a.Options[i] = branch.Option{Value: o.Value, Text: o.Text, Selected: o.Value == c.value}
			}
		}
		out = append(out, a)
	}
	return out
}

// answer answers a probe from the page: element probes from the page's
// elements map and its controls, body probes from the visible text. The
// simulated web runs no scripts, so js probes answer with an error.
func (v *view) answer(p scoring.Probe) scoring.Answer {
	switch p.Kind {
	case scoring.ProbeElement:
		sel := normSelector(p.Selector)
		if t, ok := v.elements[sel]; ok {
			return scoring.Answer{Found: true, Visible: true, Count: 1, Text: t}
		}
		var a scoring.Answer
		for _, c := range v.controls {
			if !c.matches(sel) {
				continue
			}
			a.Count++
			if a.Count > 1 {
				continue
			}
			a.Found, a.Visible = true, c.visible(v.menuOpen)
			if c.kind == branch.ElemLink || c.kind == branch.ElemButton {
				a.Text = c.name
			} else {
				a.Value = c.value
			}
		}
		return a
	case scoring.ProbeBody:
		return scoring.Answer{Text: strings.Join(strings.Fields(v.innerText()), " ")}
	case scoring.ProbeJS:
		return scoring.Answer{Err: "the simulated web runs no scripts"}
	}
	return scoring.Answer{Err: "unknown probe kind " + p.Kind}
}

// deadEnds runs the detectors over the page: their URL and title
// patterns directly, their text patterns through a cache on the site
// keyed by the page text (many URLs show the same text).
func (v *view) deadEnds(ds []scoring.Detector) []string {
	if len(ds) == 0 {
		return nil
	}
	var text string
	var out []string
	for _, d := range ds {
		fires := scoring.Detector{Name: d.Name, URL: d.URL, Title: d.Title}.Fires(v.url, v.title, "")
		if !fires && d.Text != "" {
			if text == "" {
				text = v.innerText()
			}
			key := d.Text + "\x00" + text
			if x, ok := v.site.verdicts.Load(key); ok {
				fires = x.(bool)
			} else {
				fires = scoring.Detector{Name: d.Name, Text: d.Text}.Fires("", "", text)
				v.site.verdicts.Store(key, fires)
			}
		}
		if fires {
			out = append(out, d.Name)
		}
	}
	return out
}

// read returns the text of the element selector names, or its attribute
// attr, as the committer reads the business intent.
func (v *view) read(selector, attr string) (string, bool) {
	sel := normSelector(selector)
	if attr != "" {
		x, ok := v.elements[sel+"@"+attr]
		return x, ok
	}
	if x, ok := v.elements[sel]; ok {
		return x, true
	}
	for _, c := range v.controls {
		if c.matches(sel) {
			if c.kind == branch.ElemLink || c.kind == branch.ElemButton {
				return c.name, true
			}
			return c.value, true
		}
	}
	return "", false
}

func (c *control) matches(sel string) bool {
	return sel == c.selector || (c.id != "" && sel == "#"+c.id) || (c.field != "" && sel == "[name="+c.field+"]") ||
		(c.testid != "" && sel == "[data-testid="+c.testid+"]")
}

// normSelector drops the quotes of attribute selectors, so
// [data-field="seats"] and [data-field=seats] name the same element.
func normSelector(s string) string {
	if !strings.ContainsAny(s, `"'`) {
		return strings.TrimSpace(s)
	}
	return strings.TrimSpace(unquote.Replace(s))
}

var unquote = strings.NewReplacer(`"`, "", `'`, "")
