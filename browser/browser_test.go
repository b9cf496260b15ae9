package browser_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/internal/chromiumtest"
	"github.com/multiverse-orchestrator/multiverse/internal/sitetest"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/scrub"
	"github.com/multiverse-orchestrator/multiverse/sites"
)

// One Chromium for the package (chromiumtest); a session per test.
func runtime(t testing.TB) *browser.Runtime { return chromiumtest.Runtime(t) }

func TestMain(m *testing.M) {
	code := m.Run()
	chromiumtest.Close()
	os.Exit(code)
}

func vendor(t testing.TB, k sites.Knobs) *httptest.Server { return sitetest.HTTPTest(t, k) }

func session(t testing.TB, origin string, seed uint64, guard ...browser.GuardPattern) *browser.Session {
	t.Helper()
	return sessionWith(t, browser.SessionOptions{Env: browser.Env{ActionTimeout: 5 * time.Second},
		RunSeed: seed, Origin: origin, Guard: guard})
}

// sessionWith opens a recording session with its own artifact store,
// closed when the test ends.
func sessionWith(t testing.TB, opts browser.SessionOptions) *browser.Session {
	t.Helper()
	store, err := artifacts.OpenFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	opts.Store, opts.Record = store, true
	s, err := runtime(t).NewSession(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func do(t testing.TB, s *browser.Session, a branch.Action) branch.StepResult {
	t.Helper()
	r, err := s.Do(context.Background(), a, func(name string) (string, error) { return "v-" + name, nil })
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func click(testid string) branch.Action {
	return branch.Action{Kind: branch.KindClick, Target: &branch.Target{TestID: testid}}
}

func TestNavigateClickObserve(t *testing.T) {
	srv := vendor(t, sites.Knobs{})
	s := session(t, srv.URL, 1)
	if r := do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/"}); r.Status != branch.StatusOK {
		t.Fatalf("navigate: %+v", r)
	}
	if r := do(t, s, click("nav-pricing")); r.Status != branch.StatusOK {
		t.Fatalf("click: %+v", r)
	}
	probe := scoring.Probe{Kind: scoring.ProbeElement, Selector: "[data-testid=billing-shown]"}
	snap, err := s.Observe(context.Background(), browser.ObserveSpec{Probes: []scoring.Probe{probe}, Text: true, Screenshot: true, Store: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(snap.Obs.URL, "/pricing") || snap.Obs.Title == "" || snap.Obs.Status != 200 {
		t.Fatalf("obs = %q %q %d", snap.Obs.URL, snap.Obs.Title, snap.Obs.Status)
	}
	if a := snap.Answers[probe]; !a.Found || !a.Visible || a.Text == "" {
		t.Fatalf("probe answer = %+v", a)
	}
	if snap.Obs.ScreenshotHash == "" || snap.Obs.DOMArtifact == "" || len(snap.Obs.DOMHash) != 64 {
		t.Fatalf("hashes missing: %+v", snap.Obs)
	}
	var choose bool
	for _, a := range snap.Obs.Affordances {
		if a.Target.Name == "Choose Team" && a.Kind == "link" {
			choose = true
		}
	}
	if !choose {
		t.Fatalf("no Choose Team affordance in %d affordances", len(snap.Obs.Affordances))
	}
	if got := snap.Obs.VirtualTime - time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC).UnixMilli(); got != 2000 {
		t.Fatalf("virtual time advanced %d ms over two steps, want 2000", got)
	}
}

// TestDeterminism: with chaos that uses Math.random, Date, performance.now
// and timers, two sessions with the same seed reach the same strict hashes;
// another seed differs.
func TestDeterminism(t *testing.T) {
	srv := vendor(t, sites.Knobs{PageRandom: true, TimerRace: true, LateBanner: true})
	run := func(seed uint64) (string, string) {
		s := session(t, srv.URL, seed)
		do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/"})
		do(t, s, click("nav-pricing"))
		snap, err := s.Observe(context.Background(), browser.ObserveSpec{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(snap.DOM, "Session") {
			t.Fatalf("page-random chaos not in DOM")
		}
		return snap.Obs.DOMHash, snap.Obs.AXHash
	}
	d1, a1 := run(42)
	d2, a2 := run(42)
	d3, _ := run(43)
	if d1 != d2 || a1 != a2 {
		t.Fatalf("same seed, different hashes: %s/%s vs %s/%s", d1, a1, d2, a2)
	}
	if d1 == d3 {
		t.Fatal("different seeds gave the same DOM although the page shows Math.random")
	}
}

func TestGuardBlocksOrders(t *testing.T) {
	srv := vendor(t, sites.Knobs{})
	guard := browser.GuardPattern{Method: "POST", URL: mustRE(`/orders`)}
	s := session(t, srv.URL, 1, guard)
	do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/checkout/review?plan=team&billing=monthly&seats=10&country=DE&email=a%40b.example"})
	r := do(t, s, click("place-order"))
	_ = r
	if len(s.Blocked()) != 1 || !strings.HasPrefix(s.Blocked()[0], "POST ") {
		t.Fatalf("blocked = %v", s.Blocked())
	}
	var seen bool
	for _, n := range s.NetSince(0) {
		if n.Method == "POST" && n.Blocked {
			seen = true
		}
	}
	if !seen {
		t.Fatal("blocked request not recorded")
	}
}

func TestSelectorNotFound(t *testing.T) {
	srv := vendor(t, sites.Knobs{})
	s := session(t, srv.URL, 1)
	do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/"})
	r := do(t, s, click("no-such-thing"))
	if r.Status != branch.StatusFailed || r.Code != branch.CodeSelectorNotFound {
		t.Fatalf("result = %+v", r)
	}
}

func TestServerError(t *testing.T) {
	srv := vendor(t, sites.Knobs{FailStatus: map[string]int{"/": 500}})
	s := session(t, srv.URL, 1)
	r := do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/"})
	if r.Status != branch.StatusFailed || r.Code != branch.CodeHTTPError {
		t.Fatalf("result = %+v", r)
	}
}

// TestStepErrorScrubbed: a step's error quotes the URL that failed; the
// session scrubs it, so personal data in the query never reaches the
// result its callers record.
func TestStepErrorScrubbed(t *testing.T) {
	srv := vendor(t, sites.Knobs{FailStatus: map[string]int{"/": 500}})
	s := sessionWith(t, browser.SessionOptions{Env: browser.Env{ActionTimeout: 5 * time.Second},
		RunSeed: 1, Origin: srv.URL, Scrub: scrub.New(scrub.NewKey(), nil)})
	r := do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/?email=jane.doe%40example.com"})
	if r.Code != branch.CodeHTTPError || !strings.Contains(r.Error, "answered 500") {
		t.Fatalf("result = %+v", r)
	}
	if strings.Contains(r.Error, "jane.doe") {
		t.Fatalf("the step's error holds the e-mail in clear: %q", r.Error)
	}
}

// TestObservingLeavesNoTrace: observing a page, screenshot included, must
// not change it; a branch that continues a context its parent observed
// must see the same DOM as one that never was. (Playwright's default
// caret hiding left style="" on a field.)
func TestObservingLeavesNoTrace(t *testing.T) {
	srv := vendor(t, sites.Knobs{})
	plan := []branch.Action{
		{Kind: branch.KindNavigate, URL: srv.URL + "/"},
		click("nav-pricing"), click("choose-team"),
		{Kind: branch.KindSelect, Target: &branch.Target{Role: "combobox", Name: "Billing", ID: "billing"}, Value: "monthly"},
		{Kind: branch.KindType, Target: &branch.Target{Role: "spinbutton", Name: "Seats", ID: "seats"}, Value: "10"},
	}
	run := func(observeEach bool) string {
		s := session(t, srv.URL, 1)
		for _, a := range plan {
			do(t, s, a)
			if observeEach {
				if _, err := s.Observe(context.Background(), browser.ObserveSpec{Screenshot: true, Store: true, Text: true}); err != nil {
					t.Fatal(err)
				}
			}
		}
		snap, err := s.Observe(context.Background(), browser.ObserveSpec{})
		if err != nil {
			t.Fatal(err)
		}
		return snap.DOM
	}
	observed, plain := run(true), run(false)
	if observed != plain {
		i := 0
		for i < len(observed) && i < len(plain) && observed[i] == plain[i] {
			i++
		}
		t.Fatalf("observing changed the page at byte %d:\nobserved: %.120s\nplain:    %.120s", i, observed[max(0, i-40):], plain[max(0, i-40):])
	}
}

// TestScreenshotMasksSecrets: a field a secret was typed into is painted
// over in the step's screenshot, so its pixels do not depend on the
// secret; the same field holding a plain input shows its value.
func TestScreenshotMasksSecrets(t *testing.T) {
	srv := vendor(t, sites.Knobs{})
	shot := func(secret bool, value string) string {
		store, err := artifacts.OpenFS(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		s, err := runtime(t).NewSession(context.Background(), browser.SessionOptions{
			Env: browser.Env{ActionTimeout: 5 * time.Second}, RunSeed: 1, Origin: srv.URL, Store: store,
			SecretInputs: map[string]bool{"vat": secret},
		})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/checkout?plan=team"})
		r, err := s.Do(context.Background(), branch.Action{Kind: branch.KindType, Input: "vat", Target: &branch.Target{ID: "vat_id"}},
			func(string) (string, error) { return value, nil })
		if err != nil || r.Status != branch.StatusOK {
			t.Fatalf("type: %+v %v", r, err)
		}
		snap, err := s.Observe(context.Background(), browser.ObserveSpec{Screenshot: true})
		if err != nil || snap.Obs.ScreenshotHash == "" {
			t.Fatalf("observe: %v %+v", err, snap.Obs)
		}
		return snap.Obs.ScreenshotHash
	}
	if a, b := shot(true, "DE111111111"), shot(true, "DE999999999"); a != b {
		t.Fatal("the screenshot of a secret field depends on the secret")
	}
	if a, b := shot(false, "DE111111111"), shot(false, "DE999999999"); a == b {
		t.Fatal("plain fields should show their values (the check above could not fail)")
	}
}

// TestLiveTrafficRecorded: a WebSocket and an event stream are recorded
// as live frames in the step's observation (the connections, their
// opening, the stream's event), and the open stream does not make the
// step slow; a service worker registration cannot be recorded and
// replayed, and is reported, not silently dropped.
func TestLiveTrafficRecorded(t *testing.T) {
	done := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>live</title><p>live updates</p><script>
new WebSocket("ws://" + location.host + "/ws");
new EventSource("/events");
navigator.serviceWorker.register("/sw.js");
</script>`)
	})
	mux.HandleFunc("/events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "retry: 600000\ndata: hello\n\n")
		w.(http.Flusher).Flush()
		select { // the stream stays open
		case <-r.Context().Done():
		case <-done:
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer close(done)
	s := session(t, srv.URL, 1)
	res := do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/"})
	if res.Slow != "" {
		t.Errorf("an open event stream made the step slow: %s", res.Slow)
	}
	snap, err := s.Observe(context.Background(), browser.ObserveSpec{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range snap.Obs.Live {
		got = append(got, fmt.Sprintf("%d %s %s%s", f.Conn, f.Kind, strings.TrimPrefix(strings.TrimPrefix(f.URL, "ws://"), "http://"), f.Data))
	}
	all := strings.Join(got, "; ")
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, want := range []string{"1 new " + host + "/ws", "2 new " + host + "/events", "2 open ", "2 in hello"} {
		if !strings.Contains(all, want) {
			t.Errorf("live entries %q lack %q", all, want)
		}
	}
	if u := strings.Join(s.Unsupported(), "\n"); !strings.Contains(u, "service worker registration on "+srv.URL) || strings.Contains(u, "websocket") {
		t.Errorf("unsupported traffic %q: want the service worker only", u)
	}
}

// TestCrashedTab: a renderer crash mid-branch is a failed step with the
// page_crash code, observing says so too, and the session still closes.
func TestCrashedTab(t *testing.T) {
	srv := vendor(t, sites.Knobs{})
	s := session(t, srv.URL, 1)
	do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/pricing"})
	cdp, err := s.Page().Context().NewCDPSession(s.Page())
	if err != nil {
		t.Fatal(err)
	}
	// Page.crash does not answer: the renderer is gone.
	go cdp.Send("Page.crash", nil)
	deadline := time.Now().Add(10 * time.Second)
	for !s.Crashed() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !s.Crashed() {
		t.Fatal("the crash event never arrived")
	}
	r := do(t, s, click("nav-pricing"))
	if r.Status != branch.StatusFailed || r.Code != branch.CodePageCrash {
		t.Fatalf("step after the crash = %+v, want failed %s", r, branch.CodePageCrash)
	}
	if _, err := s.Observe(context.Background(), browser.ObserveSpec{}); err == nil || !strings.Contains(err.Error(), "crashed") {
		t.Fatalf("observe after the crash: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("close after the crash: %v", err)
	}
}
