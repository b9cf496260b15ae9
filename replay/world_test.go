package replay

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// The fixture run is recorded into a real event log and artifact store:
//
//	A  [open /]                      GET /, GET /app.js
//	B  [open /, click pricing]       GET /pricing, GET /api/plans (v1), GET /pixel (failed),
//	                                 GET /checkout?email=TOKEN
//	C  [open /, click docs]          GET /docs, GET /api/plans (v2), GET /app.js
//	D  [open /, click pricing, buy]  forked, never executed
const (
	worldOrigin = "http://shop.multiverse.test"
	worldTask   = "task-digest"
	worldRun    = "01RUN"
	buyerEmail  = "buyer@example.com"
)

var worldKey = []byte("the run's scrubbing key")

func open() branch.Action { return branch.Action{Kind: branch.KindNavigate, URL: worldOrigin + "/"} }

func click(id string) branch.Action {
	return branch.Action{Kind: branch.KindClick, Target: &branch.Target{TestID: id}}
}

var (
	planA = branch.Plan{open()}
	planB = branch.Plan{open(), click("pricing")}
	planC = branch.Plan{open(), click("docs")}
	planD = branch.Plan{open(), click("pricing"), click("buy")}
)

type rec struct {
	method, path string
	body         string // "" for a request that failed
	status       int
}

func writeWorldRun(t *testing.T) Source {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	el, err := eventlog.Open(ctx, filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { el.Close() })
	store, err := artifacts.OpenFS(filepath.Join(dir, "artifacts"))
	if err != nil {
		t.Fatal(err)
	}
	sc := scrub.New(worldKey, nil)
	add := func(kind, br string, p any) {
		t.Helper()
		raw, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := el.Append(ctx, eventlog.Event{RunID: worldRun, Kind: kind, BranchID: br, Payload: raw}); err != nil {
			t.Fatal(err)
		}
	}
	add(eventlog.KindRunStart, "", payload.RunStart{Task: "shop", TaskDigest: worldTask, Origin: worldOrigin, Seed: "1",
		StartURL: worldOrigin + "/", ScrubKeySHA256: sc.KeyCheck()})
	branchOf := func(id, parent string, plan branch.Plan, executed bool, recs ...rec) {
		add(eventlog.KindBranchFork, id, payload.BranchFork{Parent: parent, Plan: plan, PlanDigest: plan.Digest(worldTask, worldOrigin)})
		if !executed {
			return
		}
		for i, r := range recs {
			n := branch.NetRecord{Seq: i + 1, Step: len(plan), Method: r.method, URL: sc.URL(worldOrigin + r.path), Status: r.status,
				RespHeaders: map[string]string{"content-type": "text/plain"}}
			if r.body == "" {
				n.Status, n.RespHeaders, n.Error = 0, nil, "net::ERR_CONNECTION_REFUSED"
			} else {
				d, err := store.Put(ctx, []byte(r.body))
				if err != nil {
					t.Fatal(err)
				}
				n.BodyHash = d.Hex()
			}
			add(eventlog.KindNet, id, payload.Net{NetRecord: n})
		}
		add(eventlog.KindActionEnd, id, payload.ActionEnd{Step: len(plan), Status: branch.StatusOK})
		add(eventlog.KindDOMSnapshot, id, payload.DOMSnapshot{DOMHash: "dom-" + id})
	}
	branchOf("A", "", planA, true, rec{"GET", "/", "home", 200}, rec{"GET", "/app.js", "js", 200})
	branchOf("B", "A", planB, true, rec{"GET", "/pricing", "pricing", 200}, rec{"GET", "/api/plans", "plans v1", 200},
		rec{"GET", "/pixel", "", 0}, rec{"GET", "/checkout?email=" + url.QueryEscape(buyerEmail), "checkout", 200})
	branchOf("C", "A", planC, true, rec{"GET", "/docs", "docs", 200}, rec{"GET", "/api/plans", "plans v2", 200},
		rec{"GET", "/app.js", "js", 200})
	branchOf("D", "B", planD, false)
	return Source{Events: el, Store: store}
}

func openWorld(t *testing.T, src Source, opts WorldOptions) *World {
	t.Helper()
	if opts.Scrub == nil {
		opts.Scrub = scrub.New(worldKey, nil)
	}
	w, err := OpenWorld(context.Background(), src, worldRun, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// got is what a session received for one request: the body, or "refused".
type got struct {
	status int
	body   string
}

var refused = got{body: "refused"}

// session serves plan and returns a func sending GET path through it.
func session(t *testing.T, w *World, branchID string, plan branch.Plan) func(path string) got {
	t.Helper()
	addr, release, err := w.Serve(context.Background(), branchID, plan)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	return through(addr)
}

// through returns a func sending GET path through the proxy at addr.
func through(addr string) func(path string) got {
	p, _ := url.Parse(addr)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(p), DisableKeepAlives: true}}
	return func(path string) got {
		resp, err := client.Get(worldOrigin + path)
		if err != nil {
			return refused
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return got{resp.StatusCode, string(b)}
	}
}

func ok(body string) got { return got{200, body} }

type call struct {
	path string
	want got
}

func expect(t *testing.T, get func(string) got, calls []call) {
	t.Helper()
	for _, c := range calls {
		if g := get(c.path); g != c.want {
			t.Errorf("GET %s = %+v, want %+v", c.path, g, c.want)
		}
	}
}

// TestWorldServesRecordedPlans: a plan the run executed is served from its
// branch's bundle, strictly, in occurrence order; a new plan from the
// bundle of its longest recorded prefix and then from the run-wide index
// where every recorded response agrees; everything else is refused and
// listed as a miss with the branch and the step.
func TestWorldServesRecordedPlans(t *testing.T) {
	src := writeWorldRun(t)
	cases := []struct {
		name   string
		plan   branch.Plan
		calls  []call
		misses []Miss
	}{
		{
			name: "executed plan",
			plan: planB,
			calls: []call{{"/", ok("home")}, {"/app.js", ok("js")}, {"/pricing", ok("pricing")}, {"/api/plans", ok("plans v1")},
				{"/pixel", refused}, {"/checkout?email=" + url.QueryEscape(buyerEmail), ok("checkout")},
				// Strict: C recorded /docs, but B's bundle does not hold it,
				// nor a second /.
				{"/docs", refused}, {"/", refused}},
			misses: []Miss{{Step: 2, URL: "/pixel", AtCapture: true, RecordedSteps: 2}, {Step: 2, URL: "/docs", RecordedSteps: 2},
				{Step: 2, URL: "/", RecordedSteps: 2}},
		},
		{
			name: "new plan after a recorded prefix",
			plan: planD, // forked but never executed: B's bundle, then the index
			calls: []call{{"/", ok("home")}, {"/app.js", ok("js")}, {"/pricing", ok("pricing")}, {"/api/plans", ok("plans v1")},
				{"/app.js", ok("js")},     // again: A and C agree
				{"/docs", ok("docs")},     // only C recorded it
				{"/api/plans", refused},   // again: B and C disagree
				{"/pixel", refused},       // B's bundle holds it failed at capture
				{"/orders/new", refused}}, // never recorded
			misses: []Miss{{Step: 3, URL: "/api/plans", RecordedSteps: 2}, {Step: 2, URL: "/pixel", AtCapture: true, RecordedSteps: 2},
				{Step: 3, URL: "/orders/new", RecordedSteps: 2}},
		},
		{
			name:   "new first step",
			plan:   branch.Plan{{Kind: branch.KindNavigate, URL: worldOrigin + "/docs"}},
			calls:  []call{{"/docs", ok("docs")}, {"/app.js", ok("js")}, {"/api/plans", refused}},
			misses: []Miss{{Step: 1, URL: "/api/plans"}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := openWorld(t, src, WorldOptions{})
			expect(t, session(t, w, "new-branch", c.plan), c.calls)
			got := w.Misses()
			if len(got) != len(c.misses) {
				t.Fatalf("misses %+v, want %d", got, len(c.misses))
			}
			for i, m := range c.misses {
				m.BranchID, m.PlanDigest, m.Method, m.URL = "new-branch", c.plan.Digest(worldTask, worldOrigin), "GET", worldOrigin+m.URL
				if got[i] != m {
					t.Errorf("miss %d = %+v, want %+v", i, got[i], m)
				}
			}
		})
	}
}

// TestWorldScrubKey: requests carry raw values, which only the run's key
// scrubs to the recorded tokens; a scrubber with another key is refused
// at once, and without one such a request cannot match.
func TestWorldScrubKey(t *testing.T) {
	src := writeWorldRun(t)
	if _, err := OpenWorld(context.Background(), src, worldRun, WorldOptions{Scrub: scrub.New([]byte("another key"), nil)}); !errors.Is(err, ErrScrubKey) {
		t.Fatalf("OpenWorld with another key: %v, want ErrScrubKey", err)
	}
	checkout := "/checkout?email=" + url.QueryEscape(buyerEmail)
	w, err := OpenWorld(context.Background(), src, worldRun, WorldOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	expect(t, session(t, w, "b", planB), []call{{"/", ok("home")}, {"/app.js", ok("js")}, {"/pricing", ok("pricing")},
		{"/api/plans", ok("plans v1")}, {"/pixel", refused}, {checkout, refused}})
	for _, m := range w.Misses() {
		if strings.Contains(m.URL, "buyer") {
			t.Errorf("a miss shows the raw e-mail: %+v", m)
		}
	}
}

// TestWorldSwaps: swaps replace recorded responses by method, URL, step
// and branch; one that replaces nothing recorded is an error naming it.
func TestWorldSwaps(t *testing.T) {
	src := writeWorldRun(t)
	swapped := got{503, "swapped"}
	cases := []struct {
		name  string
		swap  Swap
		plan  branch.Plan
		calls []call
		err   string // the OpenWorld error, "" for none
	}{
		{name: "every branch", swap: Swap{Step: 2, Method: "GET", URL: "/api/plans", Body: []byte("swapped"), Status: 503},
			plan: planB, calls: []call{{"/pricing", ok("pricing")}, {"/api/plans", swapped}}},
		{name: "before its step", swap: Swap{Step: 2, URL: "/app.js", Body: []byte("swapped")},
			plan: planD, calls: []call{{"/", ok("home")}, {"/app.js", ok("js")}, {"/pricing", ok("pricing")}, {"/api/plans", ok("plans v1")},
				{"/app.js", ok("swapped")}}}, // step 3, from the index
		{name: "absolute URL, any method, status kept", swap: Swap{Step: 1, Method: "*", URL: worldOrigin + "/", Body: []byte("new home")},
			plan: planA, calls: []call{{"/", ok("new home")}}},
		{name: "query given", swap: Swap{Step: 1, URL: "/checkout?email=" + buyerEmail, Body: []byte("swapped")},
			plan: planB, calls: []call{{"/", ok("home")}, {"/app.js", ok("js")}, {"/pricing", ok("pricing")}, {"/api/plans", ok("plans v1")},
				{"/pixel", refused}, {"/checkout?email=" + url.QueryEscape(buyerEmail), ok("swapped")}}},
		{name: "one branch: not its sibling", swap: Swap{BranchID: "C", Step: 1, URL: "/api/plans", Body: []byte("swapped")},
			plan: planB, calls: []call{{"/", ok("home")}, {"/app.js", ok("js")}, {"/pricing", ok("pricing")}, {"/api/plans", ok("plans v1")}}},
		{name: "one branch: itself", swap: Swap{BranchID: "C", Step: 1, URL: "/api/plans", Body: []byte("swapped")},
			plan: planC, calls: []call{{"/", ok("home")}, {"/app.js", ok("js")}, {"/docs", ok("docs")}, {"/api/plans", ok("swapped")}}},
		{name: "unknown URL", swap: Swap{Step: 1, URL: "/api/prices", Body: []byte("x")}, err: "/api/prices"},
		{name: "unknown method", swap: Swap{Step: 1, Method: "POST", URL: "/api/plans"}, err: "POST /api/plans"},
		{name: "other query", swap: Swap{Step: 1, URL: "/api/plans?plan=team"}, err: "/api/plans?plan=team"},
		{name: "recorded only before", swap: Swap{Step: 3, URL: "/api/plans"}, err: "at step 3 or later"},
		{name: "failed at capture", swap: Swap{Step: 1, URL: "/pixel"}, err: "/pixel"},
		{name: "unknown branch", swap: Swap{BranchID: "Z", Step: 1, URL: "/api/plans"}, err: "no branch Z"},
		{name: "unexecuted branch", swap: Swap{BranchID: "D", Step: 1, URL: "/api/plans"}, err: "no branch D"},
		{name: "not a URL", swap: Swap{Step: 1, URL: "api/plans"}, err: "neither a path"},
		{name: "bad status", swap: Swap{Step: 1, URL: "/api/plans", Status: 42}, err: "status 42"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := WorldOptions{Swaps: []Swap{c.swap}, Scrub: scrub.New(worldKey, nil)}
			w, err := OpenWorld(context.Background(), src, worldRun, opts)
			if c.err != "" {
				if !errors.Is(err, ErrSwap) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("OpenWorld = %v, want ErrSwap naming %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			expect(t, session(t, w, "b", c.plan), c.calls)
		})
	}
}

// TestWorldSwapContentType: a swap with a content type replaces the
// recorded one and keeps the other headers.
func TestWorldSwapContentType(t *testing.T) {
	w := openWorld(t, writeWorldRun(t), WorldOptions{Swaps: []Swap{{Step: 1, URL: "/", Body: []byte("{}"), ContentType: "application/json"}}})
	addr, release, err := w.Serve(context.Background(), "b", planA)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	p, _ := url.Parse(addr)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(p), DisableKeepAlives: true}}
	resp, err := client.Get(worldOrigin + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ct := resp.Header.Values("Content-Type"); len(ct) != 1 || ct[0] != "application/json" {
		t.Fatalf("Content-Type %q, want application/json alone", ct)
	}
}

// TestWorldClose: Close stops the proxies still serving, and Serve fails
// after it; the misses stay readable.
func TestWorldClose(t *testing.T) {
	w := openWorld(t, writeWorldRun(t), WorldOptions{})
	get := session(t, w, "b", planA)
	if g := get("/nowhere"); g != refused {
		t.Fatalf("GET /nowhere = %+v", g)
	}
	w.Close()
	if g := get("/"); g != refused {
		t.Fatalf("GET / after Close = %+v, want no answer", g)
	}
	if _, _, err := w.Serve(context.Background(), "c", planA); !errors.Is(err, ErrWorldClosed) {
		t.Fatalf("Serve after Close: %v, want ErrWorldClosed", err)
	}
	if m := w.Misses(); len(m) != 1 || m[0].Step != 1 || m[0].BranchID != "b" {
		t.Fatalf("misses after Close: %+v", m)
	}
}

// TestParseSwap: the flag form and its bad forms.
func TestParseSwap(t *testing.T) {
	dir := t.TempDir()
	body := filepath.Join(dir, "plans.json")
	if err := os.WriteFile(body, []byte(`{"plans":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	good := []struct {
		in   string
		want Swap
	}{
		{"3:GET /api/plans=" + body, Swap{Step: 3, Method: "GET", URL: "/api/plans"}},
		{"1:* /pricing?plan=team=503:" + body, Swap{Step: 1, URL: "/pricing?plan=team", Status: 503}},
		{"01JD3X@4:post http://127.0.0.1:8555/orders=" + body, Swap{BranchID: "01JD3X", Step: 4, Method: "POST", URL: "http://127.0.0.1:8555/orders"}},
	}
	for _, c := range good {
		t.Run(c.in, func(t *testing.T) {
			s, err := ParseSwap(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(s.Body) != `{"plans":[]}` {
				t.Errorf("body %q", s.Body)
			}
			s.Body = nil
			if s.BranchID != c.want.BranchID || s.Step != c.want.Step || s.Method != c.want.Method || s.URL != c.want.URL || s.Status != c.want.Status {
				t.Errorf("ParseSwap = %+v, want %+v", s, c.want)
			}
		})
	}
	bad := []struct{ in, want string }{
		{"", "no =FILE"},
		{"3:GET /api/plans", "no =FILE"},
		{"GET /api/plans=" + body, "no STEP:"},
		{"x:GET /api/plans=" + body, `step "x" is not a positive number`},
		{"0:GET /api/plans=" + body, `step "0" is not a positive number`},
		{"@3:GET /api/plans=" + body, "an empty branch"},
		{"3:/api/plans=" + body, "want METHOD URL"},
		{"3:GET /a /b=" + body, "want METHOD URL"},
		{"3:G3T /api/plans=" + body, `method "G3T" is not an HTTP method`},
		{"3:GET api/plans=" + body, "neither a path"},
		{"3:GET /api/plans=", "no FILE"},
		{"3:GET /api/plans=503:", "no FILE"},
		{"3:GET /api/plans=999:" + body, "status 999"},
		{"3:GET /api/plans=" + filepath.Join(dir, "missing.json"), "the body file"},
	}
	for _, c := range bad {
		t.Run(c.in, func(t *testing.T) {
			_, err := ParseSwap(c.in)
			if !errors.Is(err, ErrSwap) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("ParseSwap(%q) = %v, want ErrSwap saying %q", c.in, err, c.want)
			}
		})
	}
}

// TestWorldContinue: a session served for a branch goes on serving its
// child (World.Continue), as a kept browser session continues its
// parent's: the child's requests are answered from the child's recording,
// matched as if the session had made its prefix's recorded requests, and
// its misses name the child. A plan that does not extend the served one
// by one action, or an address no live Serve gave, is ErrNotServed.
func TestWorldContinue(t *testing.T) {
	src := writeWorldRun(t)
	w := openWorld(t, src, WorldOptions{})
	ctx := context.Background()
	addr, release, err := w.Serve(ctx, "a", planA)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	get := through(addr)
	// A's step, as the parent's session made it (its script not asked).
	expect(t, get, []call{{"/", ok("home")}})
	if err := w.Continue(ctx, addr, "c", planB); err != nil {
		t.Fatalf("continue A to B: %v", err)
	}
	expect(t, get, []call{{"/pricing", ok("pricing")}, {"/api/plans", ok("plans v1")},
		// B's recording holds one / (its prefix's): the session is past it.
		{"/", refused}})
	if m := w.Misses(); len(m) != 1 || m[0].BranchID != "c" || m[0].Step != 2 || m[0].RecordedSteps != 2 {
		t.Errorf("misses %+v, want one of branch c at step 2", m)
	}
	// D was forked and never executed: B's recording goes on serving,
	// then the run-wide index.
	if err := w.Continue(ctx, addr, "d", planD); err != nil {
		t.Fatalf("continue B to D: %v", err)
	}
	expect(t, get, []call{{"/docs", ok("docs")}})
	for _, bad := range []struct {
		addr string
		plan branch.Plan
	}{
		{addr, planC},                 // not an extension of D
		{addr, planA},                 // shorter
		{"http://127.0.0.1:1", planB}, // no live session there
	} {
		if err := w.Continue(ctx, bad.addr, "x", bad.plan); !errors.Is(err, ErrNotServed) {
			t.Errorf("continue %s with %d steps: %v, want ErrNotServed", bad.addr, len(bad.plan), err)
		}
	}
	release()
	if err := w.Continue(ctx, addr, "e", append(planD, click("pay"))); !errors.Is(err, ErrNotServed) {
		t.Errorf("continue a released session: %v, want ErrNotServed", err)
	}
}
