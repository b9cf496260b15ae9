package simweb

import (
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// scrubber scrubs what leaves a simulated tab the way the browser worker
// does: the run's secrets, the page's personal field values, e-mail
// addresses, card and phone numbers become tokens of the run's key.
type scrubber struct {
	sc   *scrub.Scrubber
	site *Site
	// key identifies the scrubbing key and secrets in caches.
	key string
	// pii holds the page's personal field values; known the run's secrets
	// and pii together, for the fast path.
	pii, known []string
}

func newScrubber(site *Site, spec *job.Spec) *scrubber {
	sec := secrets(spec)
	key := string(spec.ScrubKey)
	for _, v := range sec {
		key += "\x00" + v
	}
	return &scrubber{sc: scrub.New(spec.ScrubKey, sec), site: site, key: key, known: sec}
}

// withPII returns a scrubber that also scrubs the personal field values
// of v.
func (x *scrubber) withPII(v *view) *scrubber {
	y := *x
	y.pii = nil
	for _, c := range v.controls {
		switch c.kind {
		case branch.ElemTextbox, branch.ElemEmail, branch.ElemNumber, branch.ElemSearch, FieldHidden:
		default:
			continue
		}
		// The browser's rule: scrub.SensitiveField decides for both
		// (an email field's kind is its input type).
		if c.value != "" && scrub.SensitiveField(string(c.kind), c.field, c.id, "") {
			y.pii = append(y.pii, c.value)
		}
	}
	y.known = append(append([]string(nil), x.known...), y.pii...)
	return &y
}

// text is scrub.Scrubber.TextWith with a fast path: text without an '@',
// a '+', thirteen digits or a known value has nothing to scrub.
func (x *scrubber) text(t string) string {
	if t == "" || !x.suspect(t) {
		return t
	}
	return x.sc.TextWith(t, x.pii)
}

func (x *scrubber) suspect(t string) bool {
	if strings.ContainsAny(t, "@+") {
		return true
	}
	digits := 0
	for i := 0; i < len(t); i++ {
		if t[i] >= '0' && t[i] <= '9' {
			digits++
		}
	}
	if digits >= 13 {
		return true
	}
	for _, v := range x.known {
		// Short values count too: the scrubber replaces them where they
		// are a whole value (scrub.MinSubstring).
		if v != "" && strings.Contains(t, v) {
			return true
		}
	}
	return false
}

// url scrubs a URL; URLs without a query or an '@' have nothing to scrub
// in a simulated site. Results are cached on the site by key and URL.
func (x *scrubber) url(u string) string {
	if !strings.ContainsAny(u, "?@") && !x.suspect(u) {
		return u
	}
	if x.site == nil {
		return x.sc.URL(u)
	}
	k := x.key + "\x00" + u
	if v, ok := x.site.scrubbed.Load(k); ok {
		return v.(string)
	}
	out := x.sc.URL(u)
	x.site.scrubbed.Store(k, out)
	return out
}
