package commit

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"sort"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/job"
)

// formIntent is the part of the intent read from the form the commit
// action submits.
type formIntent struct {
	body    map[string][]string
	dropped []Dropped
	// volatility says how volatile fields were detected ("" when the
	// boundary page was loaded a second time and compared).
	volatility string
}

// report is what events say about the form body: field names only,
// never values.
func (f *formIntent) report() *payload.FormReport {
	names := make([]string, 0, len(f.body))
	for k := range f.body {
		names = append(names, k)
	}
	sort.Strings(names)
	out := &payload.FormReport{Fields: names, Dropped: make([]payload.FormDropped, len(f.dropped)), Volatility: f.volatility}
	for i, d := range f.dropped {
		out.Dropped[i] = payload.FormDropped{Name: d.Name, Reason: d.Reason}
	}
	return out
}

// formIntent reads the form the commit action's target submits (nil when
// it submits none: then only the intent fields count) and makes its
// canonical body (canonicalBody). The fields that change on every load
// of the boundary page are found by loading the page a second time:
// a GET of the page's URL through the session's own request context
// (its cookies, its login), whose served form defaults are compared with
// the live page's served defaults (the DOM's attributes, not what was
// typed). A GET runs no script and fetches nothing else, so it sends no
// background request and leaves the live page (and its typed values)
// untouched; a page reached by another method than GET is not loaded
// again, and only the name rules and commit.volatile apply to it.
func (c *Committer) formIntent(ctx context.Context, sess *browser.Session) (*formIntent, error) {
	ct := c.Task.Commit
	form, err := sess.SubmittedForm(ctx, ct.Action.Target, ct.Idempotency.FormField)
	if err != nil || form == nil {
		return nil, err
	}
	var detected []string
	var why string
	switch {
	case c.KnownVolatile != nil:
		detected, why = c.KnownVolatile, "as the recorded run found them"
	case c.Network != nil:
		// A recorded world holds no second load of the page, and a
		// rerun's committer never asks the site itself.
		why = "the recorded world holds no second load of the boundary page"
	default:
		detected, why = c.detectVolatile(ctx, sess, form)
	}
	rules := bodyRules{KeyField: form.KeyField, Volatile: append(slices.Clone(ct.Volatile), detected...)}
	if c.Spec != nil {
		rules.Secrets = c.Spec.InputSecrets()
		rules.Known = knownValues(c.Spec)
	}
	body, dropped := canonicalBody(form.Fields, rules)
	for i := range dropped {
		if dropped[i].Reason == "volatile" && !slices.Contains(ct.Volatile, dropped[i].Name) {
			dropped[i].Reason = "changes_per_load"
		}
	}
	return &formIntent{body: body, dropped: dropped, volatility: why}, nil
}

// detectVolatile loads the boundary page a second time and returns the
// form's fields whose served defaults changed; why says, when it could
// not compare, what stopped it.
func (c *Committer) detectVolatile(ctx context.Context, sess *browser.Session, form *browser.Form) ([]string, string) {
	if m := documentMethod(sess); m != http.MethodGet {
		return nil, "the boundary page was reached by " + m + ", not loaded again"
	}
	live, err := sess.Content(ctx)
	if err != nil {
		return nil, "reading the boundary page: " + err.Error()
	}
	status, again, err := sess.Fetch(ctx, sess.URL())
	switch {
	case err != nil:
		return nil, "loading the boundary page again: " + err.Error()
	case status != http.StatusOK:
		return nil, "loading the boundary page again: status " + http.StatusText(status)
	}
	names, found := volatileFields([]byte(live), again, refOf(form))
	if !found {
		return nil, "the second load of the boundary page has no such form"
	}
	return names, ""
}

// documentMethod is the method of the request that loaded the session's
// page: the last document request whose path is the page's path ("GET"
// when none is on record, as for a page restored from cache).
func documentMethod(sess *browser.Session) string {
	cur, err := url.Parse(sess.URL())
	if err != nil {
		return http.MethodGet
	}
	method := http.MethodGet
	for _, n := range sess.NetSince(0) {
		if n.Type != "document" {
			continue
		}
		if u, err := url.Parse(n.URL); err == nil && u.Path == cur.Path && n.Status >= 200 && n.Status < 300 {
			method = n.Method
		}
	}
	return method
}

// knownValues maps the scrub token of each task input's value to the
// value (see bodyRules.Known).
func knownValues(spec *job.Spec) map[string]string {
	sc := spec.Scrubber()
	out := map[string]string{}
	for name := range spec.Inputs {
		v, err := spec.ResolveInput(name)
		if err != nil || v == "" {
			continue
		}
		if tok := sc.Token(v); tok != v {
			out[tok] = v
		}
	}
	return out
}
