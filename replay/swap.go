package replay

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/internal/regfile"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
)

// ErrSwap: a swap that does not parse, or that would replace no response
// the run recorded.
var ErrSwap = errors.New("replay: bad swap")

// Swap replaces recorded responses in a World, for a counterfactual
// rerun ("what if the plans API had answered this"). It replaces every
// response the world serves (a swap never answers a request the world
// refuses) to a request that
//
//   - has method Method ("" or "*": any method),
//   - has a URL that matches URL: the request's scrubbed URL, normalized
//     against the run's origin (bundle.NormalizeURL), is compared with
//     URL scrubbed and normalized the same way; URL is an absolute URL or
//     a path on the run's origin ("/api/plans"); a URL without a query
//     matches any query, one with a query only that query (its
//     parameters in any order),
//   - is sent at step Step or later (every step when Step is 0 or 1): a
//     request's step is the recorded step of the response that answers
//     it from the session's bundle, otherwise the plan's last step (see
//     Miss.Step),
//   - when BranchID is set, is sent by a session whose plan starts with
//     the plan of that branch of the recorded run (the branch and every
//     plan forked from it, recorded or new).
//
// The replacement is Body with Status (the recorded status when 0) and
// the recorded headers, Content-Type replaced by ContentType when set.
// OpenWorld fails with an error wrapping ErrSwap, naming the swap, when
// it matches no response the run recorded (in the branch's chain or
// below it, with BranchID).
type Swap struct {
	BranchID    string
	Step        int
	Method      string
	URL         string
	Body        []byte
	Status      int
	ContentType string
}

// String is the part of the swap's flag form that says what it replaces:
// "[BRANCH@]STEP:METHOD URL".
func (s Swap) String() string {
	m := s.Method
	if m == "" {
		m = "*"
	}
	out := strconv.Itoa(s.Step) + ":" + m + " " + s.URL
	if s.BranchID != "" {
		out = s.BranchID + "@" + out
	}
	return out
}

// ParseSwap parses the flag form of a swap and reads its body file:
//
//	[BRANCH@]STEP:METHOD URL=[STATUS:]FILE
//
// STEP is the 1-based step from which on the swap applies, METHOD an HTTP
// method or "*" for any, URL a path on the run's origin or an absolute
// URL, STATUS an optional three-digit HTTP status (the recorded one
// otherwise) and FILE the file holding the replacement body. The last "="
// separates FILE, so URL may hold a query and FILE must not hold "=". The
// recorded Content-Type is kept. Examples:
//
//	3:GET /api/plans=plans.json
//	2:* /pricing?plan=team=503:empty.html
//	01JD3X5V6W7Y8Z9A0B1C2D3E4F@4:GET http://127.0.0.1:8555/checkout=checkout.html
//
// FILE must be a regular file of at most MaxSwapBodySize bytes: a FIFO or
// a device is refused at once, never read (regfile.ReadFile).
//
// Errors wrap ErrSwap and quote the form; an unreadable FILE also wraps
// the file system's error (or regfile.ErrNotRegular, regfile.ErrTooLarge).
func ParseSwap(s string) (Swap, error) {
	sw, file, err := parseSwapForm(s)
	if err != nil {
		return Swap{}, err
	}
	if sw.Body, err = regfile.ReadFile(context.Background(), file, MaxSwapBodySize); err != nil {
		return Swap{}, fmt.Errorf("%w: %q: the body file: %w", ErrSwap, s, err)
	}
	return sw, nil
}

// MaxSwapBodySize bounds a swap's body file: the largest response a
// bundle records (bundle.DefaultMaxFileBytes).
const MaxSwapBodySize = bundle.DefaultMaxFileBytes

// parseSwapForm parses the flag form of a swap, all but the body, and
// returns the swap and its FILE.
func parseSwapForm(s string) (Swap, string, error) {
	bad := func(format string, args ...any) (Swap, string, error) {
		return Swap{}, "", fmt.Errorf("%w: %q: %s (want [BRANCH@]STEP:METHOD URL=[STATUS:]FILE)", ErrSwap, s, fmt.Sprintf(format, args...))
	}
	eq := strings.LastIndexByte(s, '=')
	if eq < 0 {
		return bad("no =FILE")
	}
	lhs, rhs := s[:eq], s[eq+1:]
	head, rest, ok := strings.Cut(lhs, ":")
	if !ok {
		return bad("no STEP: before the method")
	}
	var sw Swap
	if at := strings.LastIndexByte(head, '@'); at >= 0 {
		if sw.BranchID = head[:at]; sw.BranchID == "" {
			return bad("an empty branch before @")
		}
		head = head[at+1:]
	}
	step, err := strconv.Atoi(head)
	if err != nil || step < 1 {
		return bad("step %q is not a positive number", head)
	}
	sw.Step = step
	fields := strings.Fields(rest)
	if len(fields) != 2 {
		return bad("want METHOD URL after the step, got %q", rest)
	}
	if sw.Method = strings.ToUpper(fields[0]); sw.Method == "*" {
		sw.Method = ""
	} else if !isToken(sw.Method) {
		return bad("method %q is not an HTTP method", fields[0])
	}
	sw.URL = fields[1]
	if err := checkSwapURL(sw.URL); err != nil {
		return bad("%v", err)
	}
	if len(rhs) >= 4 && rhs[3] == ':' && isDigits(rhs[:3]) {
		sw.Status, _ = strconv.Atoi(rhs[:3])
		rhs = rhs[4:]
		if sw.Status < 100 || sw.Status > 599 {
			return bad("status %d is not an HTTP status", sw.Status)
		}
	}
	if rhs == "" {
		return bad("no FILE after =")
	}
	return sw, rhs, nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// isToken reports an upper-case method name.
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return s != ""
}

func checkSwapURL(u string) error {
	if strings.HasPrefix(u, "/") || strings.Contains(u, "://") {
		return nil
	}
	return fmt.Errorf("URL %q is neither a path (/...) nor an absolute URL", u)
}

// swapRule is a Swap ready to match requests.
type swapRule struct {
	Swap
	// path and query are the normalized URL to match, split at "?".
	path, query string
	// under is the plan a session's plan must start with (BranchID's);
	// nil for every session.
	under branch.Plan
}

// compileSwap checks a swap's form and readies it for the world's origin
// and scrubber.
func (w *World) compileSwap(s Swap) (swapRule, error) {
	r := swapRule{Swap: s}
	if r.Method = strings.ToUpper(s.Method); r.Method == "*" {
		r.Method = ""
	}
	if err := checkSwapURL(s.URL); err != nil {
		return r, err
	}
	if s.Status != 0 && (s.Status < 100 || s.Status > 599) {
		return r, fmt.Errorf("status %d is not an HTTP status", s.Status)
	}
	u := s.URL
	if strings.HasPrefix(u, "/") {
		u = w.origin + u
	}
	r.path, r.query, _ = strings.Cut(bundle.NormalizeURL(w.sc.URL(u), w.origin), "?")
	if s.BranchID != "" {
		if _, err := w.rr.chain(s.BranchID); err != nil {
			return r, fmt.Errorf("the run executed no branch %s", s.BranchID)
		}
		r.under = w.rr.forks[s.BranchID].Plan
	}
	return r, nil
}

// matches reports whether the rule replaces the response to a request.
func (r *swapRule) matches(method, normalizedURL string, step int) bool {
	if (r.Method != "" && r.Method != method) || step < r.Step {
		return false
	}
	p, q, _ := strings.Cut(normalizedURL, "?")
	return p == r.path && (r.query == "" || q == r.query)
}

// checkSwap fails unless the rule matches a response the run recorded
// (in the chain of r.BranchID or below it, when set). A branch's records
// are of the step its plan ends with.
func (w *World) checkSwap(r swapRule) error {
	ids := make([]string, 0, len(w.rr.steps))
	for id := range w.rr.steps {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		f, ok := w.rr.forks[id]
		if !ok || r.under != nil && !w.startsWith(f.Plan, r.under) && !w.startsWith(r.under, f.Plan) {
			continue
		}
		for _, n := range w.rr.steps[id].net {
			e := bundle.EntryFromRecord(n)
			if !failed(e) && r.matches(e.Method, bundle.NormalizeURL(e.URL, w.origin), len(f.Plan)) {
				return nil
			}
		}
	}
	method := r.Method
	if method == "" {
		method = "any"
	}
	where := ""
	if r.BranchID != "" {
		where = " in branch " + r.BranchID + "'s chain or below it"
	}
	return fmt.Errorf("the run recorded no response to %s %s at step %d or later%s", method, r.URL, max(r.Step, 1), where)
}

// startsWith reports whether plan starts with prefix, comparing digests
// (URLs on the run's origin are folded).
func (w *World) startsWith(plan, prefix branch.Plan) bool {
	if len(prefix) == 0 {
		return true
	}
	return len(prefix) <= len(plan) && plan[:len(prefix)].Digest(w.taskDigest, w.origin) == prefix.Digest(w.taskDigest, w.origin)
}
