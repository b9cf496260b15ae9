package task

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/url"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/scoring"
)

// digestForm is what the task digest covers: what the task is about, not
// how hard to look (budgets, search, weights, prices) or which seed.
type digestForm struct {
	Version      int                `json:"version"`
	Name         string             `json:"name"`
	StartURL     string             `json:"start_url"`
	Goal         Goal               `json:"goal"`
	Inputs       map[string]Input   `json:"inputs,omitempty"`
	RiskPatterns []string           `json:"risk_patterns"`
	DeadEnds     []scoring.Detector `json:"dead_ends"`
	Environment  Environment        `json:"environment"`
	Commit       *Commit            `json:"commit"`
	Extract      []IntentField      `json:"extract,omitempty"`
	Explore      *Explore           `json:"explore,omitempty"`
}

// Digest returns the hex sha256 of the task's canonical form. Secrets are
// references, so the digest never depends on their values; the start URL's
// origin is folded to "{origin}".
func (t *Task) Digest() string {
	f := digestForm{Version: t.Version, Name: t.Name, StartURL: t.RelativeURL(t.StartURL), Goal: t.Goal,
		Inputs: t.Inputs, RiskPatterns: t.RiskPatterns, DeadEnds: t.DeadEnds, Environment: t.Environment, Commit: t.Commit, Extract: t.Extract}
	if !t.Explore.IsZero() {
		f.Explore = &t.Explore
	}
	b, err := json.Marshal(f) // maps marshal with sorted keys
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(append([]byte("multiverse/task/v1\x00"), b...))
	return hex.EncodeToString(sum[:])
}

// Origin returns scheme://host[:port] of the start URL.
func (t *Task) Origin() string { return origin(t.StartURL) }

// RelativeURL folds the start URL's origin in u to "{origin}", so URLs on
// the task's site compare equal whatever address the site was served on.
func (t *Task) RelativeURL(u string) string { return FoldOrigin(u, t.Origin()) }

// FoldOrigin writes a URL on origin relative to it, as "{origin}/path";
// a URL elsewhere (another host, or a port that only starts like
// origin's) is returned as it is.
func FoldOrigin(u, origin string) string {
	if origin != "" && strings.HasPrefix(u, origin) && (len(u) == len(origin) || u[len(origin)] == '/' || u[len(origin)] == '?') {
		return "{origin}" + u[len(origin):]
	}
	return u
}

// AbsoluteURL is the inverse of RelativeURL: "{origin}" in u becomes the
// start URL's origin.
func (t *Task) AbsoluteURL(u string) string {
	if rest, ok := strings.CutPrefix(u, "{origin}"); ok {
		return t.Origin() + rest
	}
	return u
}

// SiteKey is the identity of the task's site in what outlives one
// serving of it (the plan cache): see SiteKey.
func (t *Task) SiteKey() string { return SiteKey(t.Origin()) }

// SiteKey is the identity of the site at an origin: the origin, with the
// port dropped when the host is a loopback address. A site that a
// developer, a test or `make demo` serves on a free port is one site
// whatever port it got this time; a site on a real host keeps its port.
func SiteKey(origin string) string {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return origin
	}
	h := u.Hostname()
	if ip := net.ParseIP(h); h != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return origin
	}
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	return u.Scheme + "://" + h
}

// WithStartURL returns a copy of the task pointed at another start URL
// (the same site served at another address, say). The seed stays: a
// derived seed ignores the origin.
func (t *Task) WithStartURL(u string) (*Task, error) {
	c := *t
	c.StartURL = u
	if o := origin(u); o == "" || (!strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://")) {
		return nil, &Error{File: t.file, Field: "start_url", Msg: "must be an absolute http(s) URL, found " + u}
	}
	if old := origin(t.StartURL); c.Commit != nil && c.Commit.Site == hostOf(old) {
		cm := *c.Commit
		cm.Site = hostOf(u)
		c.Commit = &cm
	}
	return &c, nil
}

func hostOf(o string) string {
	o = strings.TrimPrefix(strings.TrimPrefix(o, "https://"), "http://")
	if i := strings.IndexAny(o, ":/"); i >= 0 {
		o = o[:i]
	}
	return o
}

func seedFromDigest(d string) uint64 {
	b, err := hex.DecodeString(d)
	if err != nil || len(b) < 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b[:8])
}

// Predicates returns every goal predicate a branch's page is judged by:
// milestones, success, failure, then the login page (named
// LoginPagePredicate).
func (t *Task) Predicates() []scoring.Predicate {
	out := append(t.Goal.All(), t.Goal.Failure...)
	if p := t.Auth.LoginPage; p != nil {
		out = append(out, *p)
	}
	return out
}
