package bundle

import (
	"net/url"
	"regexp"
	"strings"
)

// UnsafeMethods are the methods guarded when a bundle names no guarded
// requests: any of them may have a side effect.
var UnsafeMethods = []string{"POST", "PUT", "PATCH", "DELETE"}

// LiveGuard is what anything that plays the bundle against a live site
// (a live replay, a flow exported from it) must never send: the task's
// commit.guard patterns the bundle records; for a commit bundle, every
// unsafe request the recording shows the committer sent, on any origin;
// and every POST, PUT, PATCH and DELETE when the bundle records no
// patterns (all reports that it came to that).
func (b *Bundle) LiveGuard() (guard []Guard, all bool) {
	m := &b.Manifest
	guard = append(guard, m.Guard...)
	if first, _, ok := m.CommitSteps(); ok {
		for _, e := range b.Network {
			if e.Step >= first && isUnsafe(e.Method) {
				if p, ok := exactPath(e.URL); ok {
					guard = append(guard, Guard{Method: e.Method, URL: p})
				}
			}
		}
	}
	if len(m.Guard) == 0 {
		for _, meth := range UnsafeMethods {
			guard = append(guard, Guard{Method: meth, URL: ""})
		}
		all = true
	}
	return guard, all
}

func isUnsafe(method string) bool {
	for _, m := range UnsafeMethods {
		if strings.EqualFold(m, method) {
			return true
		}
	}
	return false
}

// exactPath is a pattern matching a recorded URL's path on any origin,
// with any query.
func exactPath(raw string) (string, bool) {
	raw = strings.Replace(raw, "{origin}", "http://origin", 1)
	u, err := url.Parse(raw)
	if err != nil || u.Path == "" {
		return "", false
	}
	return `^[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]+` + regexp.QuoteMeta(u.EscapedPath()) + `(?:[?#]|$)`, true
}
