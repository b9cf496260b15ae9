package bundle

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// OriginPlaceholder replaces the task's start origin in normalized URLs.
const OriginPlaceholder = "{origin}"

// MatchKey returns the key under which the replayer looks up a recorded
// response: "<method> <normalizedURL> <bodySHA256 or -> #<occurrence>".
// normalizedURL must come from [NormalizeURL]; occurrence counts earlier
// requests with the same (method, normalized URL, body hash) triple in
// request order, starting at 0. Method is taken as given (browsers send
// standard methods upper-case).
func MatchKey(method, normalizedURL, bodySHA256 string, occurrence int) string {
	body := bodySHA256
	if body == "" {
		body = "-"
	}
	return method + " " + normalizedURL + " " + body + " #" + strconv.Itoa(occurrence)
}

// NormalizeURL returns the form of raw used in match keys:
//   - the fragment is dropped;
//   - for "scheme://authority/..." URLs, scheme and host are lower-cased and
//     a default port (:80 for http and ws, :443 for https and wss) is
//     dropped; if the result equals origin normalized the same way, it is
//     replaced by "{origin}";
//   - query parameters are split on "&", empty ones dropped, decoded,
//     sorted by key then value (duplicates kept) and re-encoded with
//     url.QueryEscape; a parameter that does not decode is kept verbatim;
//     an empty query is dropped with its "?";
//   - the path is kept exactly as written.
//
// Input that is not an absolute URL (a path, "{origin}/x", "data:...") is
// treated as a path with an optional query. NormalizeURL never fails and is
// idempotent: NormalizeURL(NormalizeURL(u, o), o) == NormalizeURL(u, o).
func NormalizeURL(raw, origin string) string {
	s := raw
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	query := ""
	if i := strings.IndexByte(s, '?'); i >= 0 {
		s, query = s[:i], s[i+1:]
	}
	prefix, path := splitOrigin(s)
	if prefix != "" && origin != "" {
		if o, rest := splitOrigin(strings.TrimRight(origin, "/")); rest == "" && o == prefix {
			prefix = OriginPlaceholder
		}
	}
	out := prefix + path
	if q := sortQuery(query); q != "" {
		out += "?" + q
	}
	return out
}

// splitOrigin splits "scheme://authority/path" into its normalized
// "scheme://authority" and the path. Anything else yields ("", s).
func splitOrigin(s string) (prefix, path string) {
	i := strings.Index(s, "://")
	if i <= 0 || !validScheme(s[:i]) {
		return "", s
	}
	scheme := strings.ToLower(s[:i])
	rest := s[i+3:]
	authority := rest
	if j := strings.IndexByte(rest, '/'); j >= 0 {
		authority, path = rest[:j], rest[j:]
	}
	userinfo, hostport := "", authority
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		userinfo, hostport = authority[:at+1], authority[at+1:]
	}
	hostport = strings.ToLower(hostport)
	if host, port, ok := splitPort(hostport); ok && isDefaultPort(scheme, port) {
		hostport = host
	}
	return scheme + "://" + userinfo + hostport, path
}

// splitPort splits "host:port" where port is all digits and host has no
// colon outside brackets. ok is false when there is no such port.
func splitPort(hostport string) (host, port string, ok bool) {
	i := strings.LastIndexByte(hostport, ':')
	if i < 0 {
		return "", "", false
	}
	host, port = hostport[:i], hostport[i+1:]
	for j := 0; j < len(port); j++ {
		if port[j] < '0' || port[j] > '9' {
			return "", "", false
		}
	}
	if strings.HasPrefix(host, "[") {
		if !strings.HasSuffix(host, "]") || strings.Count(host, "]") != 1 {
			return "", "", false
		}
	} else if strings.ContainsAny(host, ":[]") {
		return "", "", false
	}
	return host, port, true
}

func isDefaultPort(scheme, port string) bool {
	switch scheme {
	case "http", "ws":
		return port == "80"
	case "https", "wss":
		return port == "443"
	}
	return false
}

func validScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// sortQuery returns the canonical form of a raw query (see NormalizeURL).
func sortQuery(q string) string {
	if q == "" {
		return ""
	}
	type param struct{ k, v, out string }
	var ps []param
	for _, p := range strings.Split(q, "&") {
		if p == "" {
			continue
		}
		k, v, hasEq := strings.Cut(p, "=")
		dk, err1 := url.QueryUnescape(k)
		dv, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			ps = append(ps, param{k: p, out: p})
			continue
		}
		out := url.QueryEscape(dk)
		if hasEq {
			out += "=" + url.QueryEscape(dv)
		}
		ps = append(ps, param{k: dk, v: dv, out: out})
	}
	sort.Slice(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.k != b.k {
			return a.k < b.k
		}
		if a.v != b.v {
			return a.v < b.v
		}
		return a.out < b.out
	})
	outs := make([]string, len(ps))
	for i, p := range ps {
		outs[i] = p.out
	}
	return strings.Join(outs, "&")
}

// Matcher assigns match keys to requests in the order they are issued,
// counting occurrences of each (method, normalized URL, body hash) triple,
// so that a replayer and [Bundle.Index] agree. It is safe for concurrent
// use, but keys depend on call order: call Next in request order.
type Matcher struct {
	origin string
	mu     sync.Mutex
	seen   map[string]int
}

// NewMatcher returns a Matcher that normalizes URLs against origin.
func NewMatcher(origin string) *Matcher {
	return &Matcher{origin: origin, seen: make(map[string]int)}
}

// Next returns the match key of the next request with these properties.
// rawURL is normalized with NormalizeURL.
func (m *Matcher) Next(method, rawURL, bodySHA256 string) string {
	u := NormalizeURL(rawURL, m.origin)
	triple := MatchKey(method, u, bodySHA256, 0)
	m.mu.Lock()
	n := m.seen[triple]
	m.seen[triple] = n + 1
	m.mu.Unlock()
	if n == 0 {
		return triple
	}
	return MatchKey(method, u, bodySHA256, n)
}
