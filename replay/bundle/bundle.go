package bundle

import "github.com/multiverse-orchestrator/multiverse/eventlog"

// Bundle is the in-memory form of one bundle file. [Write] stores it and
// [Read] returns it; Read(Write(b)) deep-equals b for every b that Write
// accepts, up to two normalizations: empty collections read back as nil,
// and Manifest.Created in UTC (event times are kept as written; eventlog
// stores them in UTC).
type Bundle struct {
	Manifest Manifest
	// Events are the run's events that concern this branch and its
	// ancestors, in strictly increasing seq order: a subset of the run's
	// hash chain, not necessarily dense (events.jsonl).
	Events []eventlog.Event
	// Steps are the step records in index order, Steps[i].Index == i+1.
	Steps []Step
	// Network is every request/response of the branch in request order.
	Network []Entry
	// Files holds the content files by bundle path: BodyPath(sha256),
	// DOMPath(i), AXPath(i) and ScreenshotPath(i). No other paths are
	// allowed.
	Files map[string][]byte
}

// Body returns the stored response body with the given hex sha256, and
// whether the bundle holds it.
func (b *Bundle) Body(sha256Hex string) ([]byte, bool) {
	if sha256Hex == "" {
		return nil, false
	}
	data, ok := b.Files[BodyPath(sha256Hex)]
	return data, ok
}

// Index returns the network entries keyed by [MatchKey]: method, URL
// normalized against Manifest.Origin, request body hash, and occurrence of
// that triple in request order. The pointers refer into b.Network.
func (b *Bundle) Index() map[string]*Entry {
	m := NewMatcher(b.Manifest.Origin)
	out := make(map[string]*Entry, len(b.Network))
	for i := range b.Network {
		e := &b.Network[i]
		out[m.Next(e.Method, e.URL, e.RequestBodySHA256)] = e
	}
	return out
}
