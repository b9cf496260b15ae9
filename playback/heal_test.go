package playback_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/flow"
	"github.com/multiverse-orchestrator/multiverse/internal/chromiumtest"
	"github.com/multiverse-orchestrator/multiverse/playback"
)

// One Chromium for the package (chromiumtest); a session per playback.
func runtime(t testing.TB) *browser.Runtime { return chromiumtest.Runtime(t) }

func TestMain(m *testing.M) {
	code := m.Run()
	chromiumtest.Close()
	os.Exit(code)
}

// healPage is a page with two plan cards at fixed places; team and
// starter are the controls in them.
const healPage = `<!doctype html><html><head><title>Plans</title><style>
body { margin: 0; font: 16px sans-serif }
section { position: absolute; left: 20px; width: 320px; height: 120px }
#team { top: 20px } #starter { top: 300px }
section > button, .ctl { position: absolute; left: 10px; top: 60px; width: 120px; height: 32px; display: block }
</style></head><body data-clicked=""><main>
<section id="team"><h2>Team plan for groups</h2>%s</section>
<section id="starter"><h2>Starter plan</h2>%s</section>
</main></body></html>`

const (
	clickTeam    = `onclick="document.body.dataset.clicked='team'"`
	clickStarter = `onclick="document.body.dataset.clicked='starter'"`
	plainStarter = `<button ` + clickStarter + `>Choose</button>`
)

// recorded is the team button's target as exploration recorded it on the
// original page.
var recorded = flow.Target{TestID: "buy", AriaLabel: "Buy now", Role: "button", Name: "Buy now", ID: "buy-btn", Field: "buy",
	Text: "Buy now", CSS: "#team > button", Near: "Team plan for groups", Box: &flow.Box{X: 30, Y: 80, W: 120, H: 32}}

// TestCascadeHeals: each level of the cascade finds the team button once
// the levels before it stopped naming it, reports the strategy and the
// selector that worked, and screenshots the healed match; a fallback
// match elsewhere on the page that the neighbourhood and box do not
// confirm is passed over for the control at the recorded box.
func TestCascadeHeals(t *testing.T) {
	if testing.Short() {
		t.Skip("real Chromium")
	}
	span := `<span role="button" tabindex="0" class="ctl" ` + clickTeam + `>Order</span>`
	cases := []struct {
		level, team, starter string
		status, healed       string
		clicked              string
	}{
		{"testid", `<button data-testid="buy" aria-label="Buy now" id="buy-btn" name="buy" ` + clickTeam + `>Buy now</button>`, plainStarter, "ok", "", "team"},
		{"aria_label", `<button data-testid="buy-v2" aria-label="Buy now" id="buy-btn" name="buy" ` + clickTeam + `>Buy now</button>`, plainStarter, "healed", `[aria-label="Buy now"]`, "team"},
		{"role", `<button data-testid="buy-v2" id="buy-btn" name="buy" ` + clickTeam + `>Buy now</button>`, plainStarter, "healed", `role=button[name="Buy now"]`, "team"},
		{"id", `<button aria-label="Purchase" id="buy-btn" name="buy" ` + clickTeam + `>Buy now</button>`, plainStarter, "healed", `[id="buy-btn"]`, "team"},
		// Both cards have a "Buy now" button: the one at the recorded box.
		{"role", `<button data-testid="buy-v2" ` + clickTeam + `>Buy now</button>`, `<button ` + clickStarter + `>Buy now</button>`, "healed", `role=button[name="Buy now"]`, "team"},
		{"field", `<button aria-label="Purchase" id="b2" name="buy" ` + clickTeam + `>Buy now</button>`, plainStarter, "healed", `[name="buy"]`, "team"},
		{"text", `<button aria-label="Purchase" id="b2" name="b2" ` + clickTeam + `>Buy now</button>`, plainStarter, "healed", `text="Buy now"`, "team"},
		{"css", `<button aria-label="Purchase" id="b2" name="b2" ` + clickTeam + `>Order</button>`, plainStarter, "healed", `#team > button`, "team"},
		{"coordinates", span, plainStarter, "healed", `#team > span:nth-of-type(1) @ (90, 96)`, "team"},
		// The starter card now has a "Buy now" button: role and text name
		// it, but it stands elsewhere among other words.
		{"coordinates", span, `<button ` + clickStarter + `>Buy now</button>`, "healed", `#team > span:nth-of-type(1) @ (90, 96)`, "team"},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%d-%s", i, c.level), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprintf(w, healPage, c.team, c.starter)
			}))
			defer srv.Close()
			target := recorded
			f := &flow.Flow{SchemaVersion: flow.SchemaVersion, Name: "heal", Origin: srv.URL, Actions: []flow.Action{
				{Kind: branch.KindNavigate, URL: srv.URL + "/plans"},
				{Kind: branch.KindClick, Target: &target},
			}}
			rep, sess := play(t, f, playback.Options{Shots: dirShots(t.TempDir())})
			r := rep.Results[1]
			if r.Status != c.status || r.SelectorUsed != c.level || r.HealedSelector != c.healed {
				t.Fatalf("click = %+v, want %s by %s with %q", r, c.status, c.level, c.healed)
			}
			if got := clicked(t, sess); got != c.clicked {
				t.Fatalf("clicked %q, want %q", got, c.clicked)
			}
			if c.status == "healed" {
				if rep.Healed != 1 || r.Screenshot == "" || !isPNG(t, r.Screenshot) {
					t.Fatalf("healed step: healed %d, screenshot %q", rep.Healed, r.Screenshot)
				}
			}
		})
	}
}

// TestCascadeFails: a target no level finds fails with selector_not_found
// and a screenshot of the page.
func TestCascadeFails(t *testing.T) {
	if testing.Short() {
		t.Skip("real Chromium")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, healPage, `<p>Sold out</p>`, plainStarter)
	}))
	defer srv.Close()
	target := recorded
	f := &flow.Flow{SchemaVersion: flow.SchemaVersion, Origin: srv.URL, Actions: []flow.Action{
		{Kind: branch.KindNavigate, URL: srv.URL + "/plans"}, {Kind: branch.KindClick, Target: &target}}}
	rep, _ := play(t, f, playback.Options{Shots: dirShots(t.TempDir())})
	r := rep.Results[1]
	if r.Status != branch.StatusFailed || r.ErrorCode != branch.CodeSelectorNotFound || !isPNG(t, r.Screenshot) {
		t.Fatalf("click = %+v", r)
	}
	if rep.OK() || rep.Failed != 1 || rep.Executed != 1 {
		t.Fatalf("report = %+v", rep)
	}
}

// play plays f in a fresh Heal session and returns the report and the
// session (closed with the test).
func play(t *testing.T, f *flow.Flow, opts playback.Options) (*playback.Report, *browser.Session) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	so, err := playback.SessionOptions(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := runtime(t).NewSession(ctx, so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	rep, err := playback.Play(ctx, sess, f, opts)
	if err != nil {
		t.Fatalf("play: %v", err)
	}
	return rep, sess
}

func clicked(t *testing.T, sess *browser.Session) string {
	t.Helper()
	v, _, err := sess.Read(context.Background(), "body", "data-clicked")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// dirShots stores screenshots in a directory.
type dirShots string

func (d dirShots) Save(name string, png []byte) (string, error) {
	p := filepath.Join(string(d), name)
	return p, os.WriteFile(p, png, 0o644)
}

func isPNG(t *testing.T, path string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	return err == nil && strings.HasPrefix(string(b), "\x89PNG")
}

// TestRedirectToLogin: a navigation the site answers with a login page is
// flagged url_mismatch (the step itself is ok), and the target missing on
// the login page is put down to it.
func TestRedirectToLogin(t *testing.T) {
	if testing.Short() {
		t.Skip("real Chromium")
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/account", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/login?next=/account", http.StatusFound)
	})
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Sign in</title><form><input name="user"><button>Sign in</button></form>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	f := &flow.Flow{SchemaVersion: flow.SchemaVersion, Origin: srv.URL, Actions: []flow.Action{
		{Kind: branch.KindNavigate, URL: srv.URL + "/account"},
		{Kind: branch.KindClick, Target: &flow.Target{TestID: "edit-profile", Text: "Edit profile"}},
		{Kind: branch.KindType, Target: &flow.Target{Field: "display_name"}, Value: "Ada"},
	}}
	rep, _ := play(t, f, playback.Options{OnError: playback.SkipDependent})
	nav, click, typ := rep.Results[0], rep.Results[1], rep.Results[2]
	if nav.Status != branch.StatusOK || nav.ErrorCode != playback.CodeURLMismatch || !strings.Contains(nav.PageURL, "/login") {
		t.Fatalf("navigate = %+v", nav)
	}
	if click.Status != branch.StatusFailed || click.LikelyCause != playback.CauseAuthRedirect {
		t.Fatalf("click = %+v", click)
	}
	if typ.Status != playback.StatusSkipped || typ.ErrorCode != playback.CodeSkippedDependency {
		t.Fatalf("type = %+v", typ)
	}
}

// TestModesInChromium: one flow whose second click misses, played in
// each on_error mode and with recorded timing against a real page.
func TestModesInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("real Chromium")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Form</title><form><input name="name" aria-label="Name"><button type="button" onclick="document.body.dataset.clicked='save'">Save</button></form>`)
	}))
	defer srv.Close()
	f := &flow.Flow{SchemaVersion: flow.SchemaVersion, Origin: srv.URL, Actions: []flow.Action{
		{Kind: branch.KindNavigate, URL: srv.URL + "/form"},
		{Kind: branch.KindClick, Target: &flow.Target{Role: "button", Name: "Open editor"}, AtMS: 400},
		{Kind: branch.KindType, Target: &flow.Target{Field: "name"}, Value: "Ada", AtMS: 300},
		{Kind: branch.KindClick, Target: &flow.Target{Role: "button", Name: "Save"}, AtMS: 99_000},
	}}
	cases := []struct {
		mode   playback.OnError
		want   string
		status string
	}{
		{playback.Continue, "ok failed ok ok", "completed"},
		{playback.SkipDependent, "ok failed skipped ok", "completed"},
		{playback.Stop, "ok failed", "failed"},
	}
	for _, c := range cases {
		t.Run(string(c.mode), func(t *testing.T) {
			var waited []time.Duration
			wait := func(_ context.Context, d time.Duration) error { waited = append(waited, d); return nil }
			rep, _ := play(t, f, playback.Options{OnError: c.mode, Timing: playback.Recorded, Wait: wait})
			var got []string
			for _, r := range rep.Results {
				got = append(got, r.Status)
			}
			if strings.Join(got, " ") != c.want || rep.Status != c.status {
				t.Fatalf("statuses %v (%s), want %q (%s)", got, rep.Status, c.want, c.status)
			}
			// Recorded delays: 400 ms, none for a step recorded earlier than
			// the one before it, 30 s at most; a skipped step waits too.
			want := []time.Duration{400 * time.Millisecond, 0, playback.MaxDelay}[:len(got)-1]
			if fmt.Sprint(waited) != fmt.Sprint(want) {
				t.Fatalf("waited %v, want %v", waited, want)
			}
		})
	}
}

// TestPlayNeverSubmits: a flow that names no guard, or guards another
// origin, still sends nothing that changes the site: playback is
// speculation and holds every state-changing request. Its step ends at
// the side-effect boundary; what the flow allows goes out.
func TestPlayNeverSubmits(t *testing.T) {
	if testing.Short() {
		t.Skip("real Chromium")
	}
	var mu sync.Mutex
	posts := map[string]int{}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			mu.Lock()
			posts[r.URL.Path]++
			mu.Unlock()
		}
		fmt.Fprint(w, `<!doctype html><title>Review</title>
<form method=post action="/orders"><input type=hidden name=plan value=team><button>Place order</button></form>
<form method=post action="/preview"><button>Preview</button></form>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, guard := range [][]flow.Guard{nil, {{Method: "POST", URL: `^https://elsewhere\.example/orders`}}} {
		f := &flow.Flow{SchemaVersion: flow.SchemaVersion, Origin: srv.URL, Guard: guard,
			Allow: []flow.Guard{{Method: "POST", URL: `^/preview$`}}, Actions: []flow.Action{
				{Kind: branch.KindNavigate, URL: srv.URL + "/review"},
				{Kind: branch.KindClick, Target: &flow.Target{Role: "button", Name: "Preview", Text: "Preview"}},
				{Kind: branch.KindNavigate, URL: srv.URL + "/review"},
				{Kind: branch.KindClick, Target: &flow.Target{Role: "button", Name: "Place order", Text: "Place order"}},
			}}
		rep, _ := play(t, f, playback.Options{OnError: playback.Continue})
		if got := rep.Results[3]; got.Status != branch.StatusFailed || got.ErrorCode != branch.CodeSideEffect {
			t.Errorf("guard %v: the order click = %+v, want a side-effect boundary", guard, got)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if posts["/orders"] != 0 || posts["/preview"] != 2 {
		t.Fatalf("the site received %v, want two allowed previews and no order", posts)
	}
}

// TestCoordinatesBelowTheFold: the coordinate fallback finds a control
// recorded below the fold: the recorded box is a place on the page, and
// the fallback scrolls there before it looks.
func TestCoordinatesBelowTheFold(t *testing.T) {
	if testing.Short() {
		t.Skip("real Chromium")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>Plans</title><style>
body { margin: 0; font: 16px sans-serif; height: 3000px }
section { position: absolute; left: 20px; width: 320px; height: 120px }
#team { top: 1500px } #starter { top: 20px }
.ctl { position: absolute; left: 10px; top: 60px; width: 120px; height: 32px; display: block }
</style></head><body data-clicked=""><main>
<section id="starter"><h2>Starter plan</h2><button `+clickStarter+`>Choose</button></section>
<section id="team"><h2>Team plan for groups</h2><span role="button" tabindex="0" class="ctl" `+clickTeam+`>Order</span></section>
</main></body></html>`)
	}))
	defer srv.Close()
	target := recorded
	target.Box = &flow.Box{X: 30, Y: 1560, W: 120, H: 32}
	f := &flow.Flow{SchemaVersion: flow.SchemaVersion, Name: "heal", Origin: srv.URL, Actions: []flow.Action{
		{Kind: branch.KindNavigate, URL: srv.URL + "/plans"},
		{Kind: branch.KindClick, Target: &target},
	}}
	rep, sess := play(t, f, playback.Options{Shots: dirShots(t.TempDir())})
	r := rep.Results[1]
	if r.Status != "healed" || r.SelectorUsed != "coordinates" || r.HealedSelector != "#team > span:nth-of-type(1) @ (90, 1576)" {
		t.Fatalf("click = %+v, want healed by coordinates at (90, 1576)", r)
	}
	if got := clicked(t, sess); got != "team" {
		t.Fatalf("clicked %q, want team", got)
	}
}

// TestVocabularyInChromium: an action's own timeout_ms bounds it (a click
// on a button an overlay covers fails in that time, with the browser's
// own timeout, not the environment's action timeout) and the session
// plays on (the overlay closed, the click goes through); a screenshot
// checkpoint stores the page as a PNG; an unknown kind is skipped.
func TestVocabularyInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("real Chromium")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Form</title><button type="button" onclick="document.body.dataset.clicked='save'">Save</button>`+
			`<div id="cover" style="position:fixed;inset:0"></div><button type="button" style="position:fixed;bottom:0" onclick="cover.remove()">Close</button>`)
	}))
	defer srv.Close()
	f := &flow.Flow{SchemaVersion: flow.SchemaVersion, Origin: srv.URL, Actions: []flow.Action{
		{Kind: branch.KindNavigate, URL: srv.URL + "/form"},
		{Kind: branch.KindClick, Target: &flow.Target{Role: "button", Name: "Save"}, TimeoutMS: 300},
		{Kind: "drag_and_drop", Target: &flow.Target{CSS: "button"}},
		{Kind: flow.KindScreenshot, Label: "the form"},
		{Kind: branch.KindClick, Target: &flow.Target{Role: "button", Name: "Close"}},
		{Kind: branch.KindClick, Target: &flow.Target{Role: "button", Name: "Save"}},
	}}
	dir := t.TempDir()
	rep, sess := play(t, f, playback.Options{Shots: dirShots(dir)})
	var got []string
	for _, r := range rep.Results {
		got = append(got, r.Status)
	}
	if strings.Join(got, " ") != "ok failed skipped ok ok ok" {
		t.Fatalf("statuses %v, want ok failed skipped ok ok ok: %+v", got, rep.Results)
	}
	if r := rep.Results[1]; r.DurationMS > 3000 || r.ErrorCode != branch.CodeTimeout || !strings.Contains(r.Error, "Timeout 300ms") {
		t.Errorf("the click with timeout_ms 300: %+v; want a timeout of the browser's within 300 ms", r)
	}
	if r := rep.Results[2]; r.ErrorCode != branch.CodeUnsupported {
		t.Errorf("unknown kind: %+v", r)
	}
	if r := rep.Results[3]; r.Screenshot == "" || !isPNG(t, r.Screenshot) {
		t.Errorf("checkpoint %+v: want a PNG", r)
	}
	if clicked(t, sess) != "save" {
		t.Error("the click after the timed-out wait did not run")
	}
}

// TestTabsInChromium: a click opens a popup and the flow goes on in it (the
// newest tab); tab: 0 brings the flow back to the first tab, where it
// stays; a tab the session does not have fails with no_such_tab.
func TestTabsInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("real Chromium")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/help" {
			fmt.Fprint(w, `<!doctype html><title>Help</title><button type="button" onclick="document.body.dataset.clicked='got it'">Got it</button>`)
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Form</title><a href="/help" target="_blank">Open help</a>`+
			`<button type="button" onclick="document.body.dataset.clicked='save'">Save</button>`)
	}))
	defer srv.Close()
	first, missing := 0, 3
	f := &flow.Flow{SchemaVersion: flow.SchemaVersion, Origin: srv.URL, Actions: []flow.Action{
		{Kind: branch.KindNavigate, URL: srv.URL + "/form"},
		{Kind: branch.KindClick, Target: &flow.Target{Role: "link", Name: "Open help"}},
		{Kind: branch.KindClick, Target: &flow.Target{Role: "button", Name: "Got it"}},
		{Kind: branch.KindClick, Target: &flow.Target{Role: "button", Name: "Save"}, Tab: &first},
		{Kind: branch.KindClick, Target: &flow.Target{Role: "button", Name: "Save"}, Tab: &missing},
	}}
	rep, sess := play(t, f, playback.Options{})
	var got []string
	for _, r := range rep.Results {
		got = append(got, r.Status)
	}
	if strings.Join(got, " ") != "ok ok ok ok failed" {
		t.Fatalf("statuses %v, want ok ok ok ok failed: %+v", got, rep.Results)
	}
	for _, r := range rep.Results {
		t.Logf("%s %s %dms", r.Label, r.Status, r.DurationMS)
	}
	if r := rep.Results[4]; r.ErrorCode != branch.CodeNoSuchTab {
		t.Errorf("tab 3: %+v; want no_such_tab", r)
	}
	if clicked(t, sess) != "save" {
		t.Error("the session is not on the first tab after tab: 0")
	}
}
