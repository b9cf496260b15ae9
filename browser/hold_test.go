package browser_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
)

// holdSite is a small server-rendered app: a page with a profile form
// (POST), a search form (GET), a button whose click handler sends a
// DELETE by fetch, a GraphQL query and mutation sent by POST, background
// polling by POST, and a link off the site. It counts every request that
// reached it by method and path.
type holdSite struct {
	mu   sync.Mutex
	hits map[string]int
	srv  *httptest.Server
}

func newHoldSite(t *testing.T, offsite string) *holdSite {
	h := &holdSite{hits: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.hits[r.Method+" "+r.URL.Path]++
		h.mu.Unlock()
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<!doctype html><title>Admin</title>
<form id=profile method=post action="/profile"><input name=email id=email><input type=hidden name=_nonce value=n1><button id=update>Update Profile</button></form>
<form id=search method=get action="/search"><input name=q id=q><button id=find>Search</button></form>
<button id=logout onclick="fetch('/api/session',{method:'DELETE'}).then(()=>location='/bye')">Log out</button>
<button id=gql onclick="fetch('/graphql',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({query:'query { me { name } }'})}).then(r=>r.text()).then(t=>document.getElementById('out').textContent=t)">Who am I</button>
<button id=gqlm onclick="fetch('/graphql',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({query:'mutation { rename(id: 1) }'})})">Rename</button>
<a id=away href="%s/elsewhere">Partner site</a>
<div id=out></div>
<script>fetch('/api/heartbeat',{method:'POST',body:'{}'}); setInterval(()=>fetch('/api/heartbeat',{method:'POST',body:'{}'}), 50)</script>`, offsite)
		case "/graphql":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"data":{"me":{"name":"Ada"}}}`)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<!doctype html><title>Other</title><p>other</p>`)
		}
	})
	h.srv = httptest.NewServer(mux)
	t.Cleanup(h.srv.Close)
	return h
}

func (h *holdSite) count(key string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hits[key]
}

func (h *holdSite) writes() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for k, v := range h.hits {
		if !strings.HasPrefix(k, "GET ") && k != "POST /graphql" { // a query: the test counts it apart
			n += v
		}
	}
	return n
}

func TestSpeculationHoldsWrites(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "elsewhere") }))
	t.Cleanup(other.Close)
	site := newHoldSite(t, other.URL)
	byID := func(kind, id, value string) branch.Action {
		return branch.Action{Kind: kind, Target: &branch.Target{ID: id}, Value: value}
	}
	cases := []struct {
		name    string
		steps   []branch.Action
		code    branch.Code // the last step's code
		request string      // the held request it names
		fields  string
		landed  string // the page the last step must land on ("" any)
	}{
		{name: "a posted form ends at a side-effect boundary",
			steps: []branch.Action{byID(branch.KindType, "email", "a@example.com"), byID(branch.KindClick, "update", "")},
			code:  branch.CodeSideEffect, request: "POST /profile", fields: "_nonce,email"},
		{name: "a fetch from a click handler ends at a side-effect boundary",
			steps: []branch.Action{byID(branch.KindClick, "logout", "")},
			code:  branch.CodeSideEffect, request: "DELETE /api/session"},
		{name: "a GraphQL mutation ends at a side-effect boundary",
			steps: []branch.Action{byID(branch.KindClick, "gqlm", "")},
			code:  branch.CodeSideEffect, request: "POST /graphql", fields: "query"},
		{name: "a GraphQL query passes",
			steps: []branch.Action{byID(branch.KindClick, "gql", "")}},
		{name: "a search form by GET passes",
			steps:  []branch.Action{byID(branch.KindType, "q", "ada"), byID(branch.KindClick, "find", "")},
			landed: "/search?q=ada"},
		{name: "a link off the site is held",
			steps: []branch.Action{byID(branch.KindClick, "away", "")},
			code:  branch.CodeOffOrigin},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := site.writes()
			s := sessionWith(t, browser.SessionOptions{Env: browser.Env{ActionTimeout: 5 * time.Second, StepAdvance: 200 * time.Millisecond},
				RunSeed: 1, Origin: site.srv.URL})
			if r := do(t, s, branch.Action{Kind: branch.KindNavigate, URL: site.srv.URL + "/"}); r.Status == branch.StatusFailed {
				t.Fatalf("the page's own polling must not end the branch: %s %s", r.Code, r.Error)
			}
			var last branch.StepResult
			for _, a := range c.steps {
				last = do(t, s, a)
			}
			if last.Code != c.code {
				t.Fatalf("last step: code %q (%s), want %q; held %+v", last.Code, last.Error, c.code, s.Held())
			}
			if c.request != "" && !strings.Contains(last.Error, c.request) {
				t.Errorf("error %q does not name %s", last.Error, c.request)
			}
			if c.fields != "" && !strings.Contains(last.Error, strings.ReplaceAll(c.fields, ",", ", ")) {
				t.Errorf("error %q does not name the fields %s", last.Error, c.fields)
			}
			if c.landed != "" && !strings.HasSuffix(s.URL(), c.landed) {
				t.Errorf("landed on %s, want %s", s.URL(), c.landed)
			}
			if got := site.writes(); got != before {
				t.Errorf("the site received %d state-changing requests, want none", got-before)
			}
			var beats, caused int
			for _, h := range s.Held() {
				if h.Path == "/api/heartbeat" {
					beats += h.Count
					if h.Caused {
						t.Errorf("the page's polling counted as the action's: %+v", h)
					}
				}
				if h.Caused {
					caused++
				}
			}
			if beats == 0 {
				t.Errorf("the heartbeat was never held: %+v", s.Held())
			}
			if (c.code != "") != (caused > 0) {
				t.Errorf("held %+v: caused %d, want caused only when the step ends at a boundary", s.Held(), caused)
			}
		})
	}
	if n := site.count("GET /search"); n != 1 {
		t.Errorf("the search form reached the site %d times, want 1", n)
	}
	if n := site.count("POST /graphql"); n != 1 {
		t.Errorf("the GraphQL query reached the site %d times, want 1 (the mutation never)", n)
	}
}

func TestAllowAndRelease(t *testing.T) {
	site := newHoldSite(t, "http://127.0.0.1:1")
	s := sessionWith(t, browser.SessionOptions{Env: browser.Env{ActionTimeout: 5 * time.Second},
		RunSeed: 1, Origin: site.srv.URL, Allow: []browser.GuardPattern{{Method: "POST", URL: mustRE(`^/api/heartbeat$`)}},
		Guard: []browser.GuardPattern{{Method: "DELETE", URL: mustRE(`^/api/`)}}})
	do(t, s, branch.Action{Kind: branch.KindNavigate, URL: site.srv.URL + "/"})
	if site.count("POST /api/heartbeat") == 0 {
		t.Fatal("explore.allow did not let the heartbeat out")
	}
	do(t, s, branch.Action{Kind: branch.KindType, Target: &branch.Target{ID: "email"}, Value: "a@example.com"})
	s.ReleaseWrites()
	r := do(t, s, branch.Action{Kind: branch.KindClick, Target: &branch.Target{ID: "update"}})
	if r.Status == branch.StatusFailed || site.count("POST /profile") != 1 {
		t.Fatalf("after ReleaseWrites the form must go out once: %s %s, %d posts", r.Code, r.Error, site.count("POST /profile"))
	}
}

func TestGraphQLReadBody(t *testing.T) {
	cases := map[string]bool{
		`{"query":"query { me { name } }"}`:                           true,
		`{"query":"{ me { name } }"}`:                                 true,
		`{"query":"# mutation in a comment\n{ me }"}`:                 true,
		`{"query":"{ search(q: \"mutation\") { id } }"}`:              true,
		`[{"query":"{ a }"},{"query":"query B { b }"}]`:               true,
		`{"query":"mutation { rename(name: \"x\") }"}`:                false,
		`{"query":"query A { a } mutation B { b }"}`:                  false,
		`[{"query":"{ a }"},{"query":"mutation { b }"}]`:              false,
		`{"query":"subscription { ticks }"}`:                          false,
		`{"query":"fragment F on User { id } query { me { ...F } }"}`: false,
		`{"operationName":"x"}`:                                       false,
		`not json`:                                                    false,
	}
	for body, want := range cases {
		if got := browser.GraphQLReadBody([]byte(body)); got != want {
			t.Errorf("GraphQLReadBody(%s) = %v, want %v", body, got, want)
		}
	}
}

func TestGuardMatchesRelativeToOrigin(t *testing.T) {
	g := browser.GuardPattern{Method: "POST", URL: mustRE(`^/orders$`)}
	for u, want := range map[string]bool{
		"http://127.0.0.1:8080/orders":   true,
		"https://shop.test/orders":       true,
		"https://shop.test/orders/ORD-1": false,
		"https://shop.test/api/orders":   false,
		"https://shop.test/orders?x=1":   false,
	} {
		if got := g.Matches("POST", u); got != want {
			t.Errorf("Matches(POST, %s) = %v, want %v", u, got, want)
		}
	}
	if g.Matches("GET", "https://shop.test/orders") {
		t.Error("a POST pattern matched a GET")
	}
}
