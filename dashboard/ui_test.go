package dashboard_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/dashboard"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/sites"
)

var update = flag.Bool("update", false, "rewrite the golden accessibility snapshots in testdata/")

// uiBrowser is the package's one Chromium for driving the dashboard's
// page, launched the way package browser launches it (its driver and
// Chromium discovery, its sandbox flags).
var uiBrowser struct {
	once sync.Once
	pw   *playwright.Playwright
	b    playwright.Browser
	err  error
}

func launchUI() (playwright.Browser, error) {
	uiBrowser.once.Do(func() {
		chromium, err := browser.FindChromium("", false)
		if err != nil {
			uiBrowser.err = err
			return
		}
		drv, err := browser.FindDriver("")
		if err != nil {
			uiBrowser.err = err
			return
		}
		if drv.Node != "" && os.Getenv("PLAYWRIGHT_NODEJS_PATH") == "" {
			os.Setenv("PLAYWRIGHT_NODEJS_PATH", drv.Node)
		}
		pw, err := playwright.Run(&playwright.RunOptions{DriverDirectory: drv.Dir, SkipInstallBrowsers: true, Stdout: nil})
		if err != nil {
			uiBrowser.err = err
			return
		}
		args := append([]string{}, browser.SandboxArgs...)
		if os.Geteuid() == 0 {
			args = append(args, "--no-sandbox")
		}
		uiBrowser.pw = pw
		uiBrowser.b, uiBrowser.err = pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
			ExecutablePath: playwright.String(chromium), Headless: playwright.Bool(true), Args: args})
	})
	return uiBrowser.b, uiBrowser.err
}

func closeUI() {
	if uiBrowser.b != nil {
		uiBrowser.b.Close()
	}
	if uiBrowser.pw != nil {
		uiBrowser.pw.Stop()
	}
}

// newPage opens a page in a fresh context, closed when the test ends.
func newPage(t *testing.T) playwright.Page {
	t.Helper()
	b, err := launchUI()
	if err != nil {
		t.Fatalf("launch Chromium: %v", err)
	}
	bc, err := b.NewContext(playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1400, Height: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bc.Close() })
	p, err := bc.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	p.SetDefaultTimeout(30000)
	lastPage = p
	return p
}

// waitForRun waits until a run in progress has created its stores and
// logged its first event.
func waitForRun(t *testing.T, dir string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "ledger.db")); err != nil {
			continue
		}
		l, err := eventlog.OpenReadOnly(context.Background(), filepath.Join(dir, "events.db"))
		if err != nil {
			continue
		}
		runs, err := l.Runs(context.Background())
		l.Close()
		if err == nil && len(runs) > 0 {
			return
		}
	}
	t.Fatal("the run did not log an event within 60s")
}

type runResult struct {
	sum *orchestrator.Summary
	err error
}

// TestUILiveRunAndReplay drives the dashboard in real Chromium: a run
// starts in-process on a slowed demo site, the page follows it and the
// branch tree grows while the run is in progress; once it commits, the
// winner's steps show their screenshots, and a click on replay reads RSR
// 1. Accessibility snapshots of the views match testdata/ (-update
// rewrites them).
func TestUILiveRunAndReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	_, url, err := startSite(sites.Knobs{Latency: 150 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	done := make(chan runResult, 1)
	go func() {
		sum, err := runDemo(context.Background(), url, dir)
		done <- runResult{sum, err}
	}()
	waitForRun(t, dir)
	ts := serve(t, openStores(t, dir), dashboard.WithPollInterval(100*time.Millisecond))
	page := newPage(t)
	if _, err := page.Goto(ts.URL + "/#/"); err != nil {
		t.Fatal(err)
	}
	must(t, page.Locator("main table tbody a").First().Click())

	counts, res := watchTree(t, page, done)
	if res.err != nil {
		t.Fatalf("run: %v", res.err)
	}
	if len(counts) < 2 {
		t.Fatalf("the tree did not grow while the run was in progress: node counts seen %v", counts)
	}
	sum := res.sum
	// The stream brings the end of the run without a reload.
	must(t, page.Locator("dd.outcome-committed").WaitFor())
	if n, _ := page.Locator("button.node").Count(); n != sum.Branches.Forked {
		t.Errorf("the tree shows %d branches after the run, want %d", n, sum.Branches.Forked)
	}
	t.Logf("tree node counts seen during the run: %v", counts)
	// The heatmap: nodes of different scores get different colours.
	colours, err := page.Locator("button.node").EvaluateAll(`(els) => [...new Set(els.map((e) => getComputedStyle(e).backgroundColor))].length`)
	if err != nil || colours.(int) < 3 {
		t.Errorf("the tree's nodes show %v distinct background colours, want a heatmap (%v)", colours, err)
	}

	must(t, page.Locator("button.node.status-winner").Click())
	must(t, page.Locator("article.step").Nth(len(sum.Winner.Steps)-1).WaitFor())
	if n, _ := page.Locator("article.step").Count(); n != len(sum.Winner.Steps) {
		t.Errorf("%d steps shown, want %d", n, len(sum.Winner.Steps))
	}
	checkImages(t, page)
	checkGolden(t, page, "run.aria")

	// The timeline: a bar per executed branch on its worker's lane; the
	// winner's bar leads to the winner.
	must(t, page.GetByText("Timeline: the branches on each worker over time").Click())
	must(t, page.Locator(".lane .bar").First().WaitFor())
	if n, _ := page.Locator(".lane .bar").Count(); n != sum.Branches.Executed {
		t.Errorf("the timeline shows %d bars, want one per executed branch (%d)", n, sum.Branches.Executed)
	}
	if n, _ := page.Locator(".lane .bar.status-winner").Count(); n != 1 {
		t.Errorf("the timeline shows %d winner bars, want 1", n)
	}
	if n, _ := page.Locator(".lane .wave-mark").Count(); n < sum.Waves {
		t.Errorf("the timeline marks %d wave starts, want at least %d (one per wave on each lane)", n, sum.Waves)
	}
	keepShot(t, page, "timeline")

	// The frontier heatmap: every forked branch counted in a cell of its
	// depth and wave.
	must(t, page.GetByText("Frontier: branches by depth and wave").Click())
	must(t, page.Locator("table.heat").WaitFor())
	total, err := page.Locator("table.heat tbody td").EvaluateAll(`(tds) => tds.reduce((n, td) => n + (parseInt(td.textContent) || 0), 0)`)
	if err != nil || total.(int) != sum.Branches.Forked {
		t.Errorf("the heatmap counts %v branches (%v), want %d", total, err, sum.Branches.Forked)
	}
	keepShot(t, page, "frontier")

	// The recorded DOM of the winner's last step, rendered in a sandboxed
	// frame where no script runs.
	must(t, page.GetByText("Render the recorded DOM").Last().Click())
	frame := page.FrameLocator("article.step iframe[sandbox]").Last()
	must(t, frame.Locator("body").WaitFor())
	if txt, err := frame.Locator("body").InnerText(); err != nil || !strings.Contains(txt, "Nimbus") {
		t.Errorf("the rendered DOM reads %.80q (%v), want the demo site's page", txt, err)
	}
	keepShot(t, page, "dom")

	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Replay this branch (strict)"}).Click())
	done2 := page.Locator(".replay p[role=status].verdict-ok, .replay p[role=status].verdict-bad, .replay p[role=status].error")
	must(t, done2.WaitFor(playwright.LocatorWaitForOptions{Timeout: playwright.Float(120000)}))
	text, _ := done2.TextContent()
	if !strings.HasPrefix(text, "Replay done: RSR 1,") {
		t.Fatalf("replay: %q", text)
	}
	steps, _ := page.Locator(".replay ol li").AllTextContents()
	if len(steps) != len(sum.Winner.Steps) || strings.Contains(strings.Join(steps, "\n"), "DIVERGED") {
		t.Errorf("replayed steps %q", steps)
	}

	// A page the run did not screenshot is rendered by a strict replay.
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Render: Page after step 1", Exact: playwright.Bool(true)}).Click())
	rendered := page.Locator(`article.step img[alt="Page after step 1"]`)
	must(t, rendered.WaitFor(playwright.LocatorWaitForOptions{Timeout: playwright.Float(120000)}))
	if ok, err := rendered.Evaluate(`async (el) => { if (!el.complete) await new Promise((r) => el.addEventListener("load", r, {once: true})); return el.naturalWidth > 0 }`, nil); err != nil || ok != true {
		t.Errorf("the rendered screenshot did not load: %v %v", ok, err)
	}

	for _, v := range []struct{ hash, heading, ready, golden string }{{"#/", "Runs", "main table tbody tr", "runs.aria"},
		{"#/ledger", "Commit ledger", "main table tbody tr", "ledger.aria"}, {"#/drift", "Drift", "main table caption", "drift.aria"}} {
		if _, err := page.Goto(ts.URL + "/" + v.hash); err != nil {
			t.Fatal(err)
		}
		// The hash changes without a load: wait for the view itself.
		must(t, page.GetByRole("heading", playwright.PageGetByRoleOptions{Name: v.heading, Exact: playwright.Bool(true)}).WaitFor())
		must(t, page.Locator(v.ready).First().WaitFor())
		checkGolden(t, page, v.golden)
	}
}

// watchTree counts the tree's nodes until the run ends, and returns the
// distinct counts seen while it was in progress.
func watchTree(t *testing.T, page playwright.Page, done <-chan runResult) ([]int, runResult) {
	var counts []int
	for {
		select {
		case res := <-done:
			return counts, res
		case <-time.After(100 * time.Millisecond):
		}
		n, err := page.Locator("button.node").Count()
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 && (len(counts) == 0 || n != counts[len(counts)-1]) {
			counts = append(counts, n)
		}
	}
}

// checkImages asserts that every screenshot on the page loaded.
func checkImages(t *testing.T, page playwright.Page) {
	t.Helper()
	imgs := page.Locator("article.step img")
	n, _ := imgs.Count()
	if n == 0 {
		t.Fatal("no screenshots shown")
	}
	for i := 0; i < n; i++ {
		img := imgs.Nth(i)
		img.ScrollIntoViewIfNeeded()
		ok, err := img.Evaluate(`async (el) => { if (!el.complete) await new Promise((r) => el.addEventListener("load", r, {once: true})); return el.naturalWidth > 0 }`, nil)
		if err != nil || ok != true {
			alt, _ := img.GetAttribute("alt")
			t.Errorf("screenshot %q did not load: %v", alt, err)
		}
	}
}

// checkGolden compares the accessibility snapshot of the page's main
// region, normalised, with testdata/NAME.
func checkGolden(t *testing.T, page playwright.Page, name string) {
	t.Helper()
	snap, err := page.Locator("main").AriaSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("DASHBOARD_SCREENSHOTS"); dir != "" {
		page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(filepath.Join(dir, name+".png")), FullPage: playwright.Bool(true)})
		page.Evaluate("window.scrollTo(0, 0)")
		page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(filepath.Join(dir, name+".top.png"))})
	}
	got := normalise(snap)
	path := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("accessibility snapshot of %s differs from %s (run with -update to accept):\n%s", name, path, lineDiff(string(want), got))
	}
}

var normalisers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`[0-9A-HJKMNP-TV-Z]{26}`), "<id>"},
	{regexp.MustCompile(`…[0-9A-HJKMNP-TV-Z]{8}`), "…<id>"},
	{regexp.MustCompile(`[0-9a-f]{64}`), "<sha256>"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC`), "<time>"},
	{regexp.MustCompile(`\d+(\.\d+)? (ms|s)\b`), "<duration>"},
	{regexp.MustCompile(`Its events \(\d+\)`), "Its events (<n>)"},
	{regexp.MustCompile(`tok_[0-9a-f]{16}`), "tok_<scrubbed>"},
	{regexp.MustCompile(`http://127\.0\.0\.1:\d+`), "<origin>"},
	{regexp.MustCompile(`(term: (?:Events|Responses served)\n\s*- definition: )"\d+"`), `$1"<n>"`},
}

func normalise(s string) string {
	for _, n := range normalisers {
		s = n.re.ReplaceAllString(s, n.with)
	}
	return s
}

// lineDiff lists the lines that differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("- " + wl + "\n+ " + gl + "\n")
		}
	}
	return b.String()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		if lastPage != nil {
			text, _ := lastPage.Locator("main").InnerText()
			lastPage.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(filepath.Join(os.TempDir(), "dashboard-fail.png")), FullPage: playwright.Bool(true)})
			t.Logf("main at the failure:\n%.3000s", text)
		}
		t.Fatal(err)
	}
}

// lastPage is the page must describes when a step fails.
var lastPage playwright.Page

// keepShot keeps a screenshot of the page in the test's artifact
// directory (go test -artifacts keeps it after the run).
func keepShot(t *testing.T, page playwright.Page, name string) {
	t.Helper()
	path := filepath.Join(t.ArtifactDir(), name+".png")
	if _, err := page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(path), FullPage: playwright.Bool(true)}); err != nil {
		t.Errorf("screenshot %s: %v", name, err)
	}
}

// TestUIRunListFollows: the run list, open in real Chromium, shows a run
// another process starts after the page loaded, without a reload.
func TestUIRunListFollows(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	s := newSynthLog(t)
	first := s.start(t, "first-task")
	first.forks(t, 2)
	first.end(t, "no_boundary")
	ts := serve(t, openStores(t, s.dir))
	page := newPage(t)
	if _, err := page.Goto(ts.URL + "/#/"); err != nil {
		t.Fatal(err)
	}
	must(t, page.GetByRole("caption").Filter(playwright.LocatorFilterOptions{HasText: "1 run"}).WaitFor())
	later := s.start(t, "later-task")
	later.forks(t, 1)
	later.end(t, "no_boundary")
	row := page.GetByRole("cell", playwright.PageGetByRoleOptions{Name: "later-task", Exact: playwright.Bool(true)})
	if err := row.WaitFor(playwright.LocatorWaitForOptions{Timeout: playwright.Float(25000)}); err != nil {
		t.Fatalf("the run started after the page loaded did not show up: %v", err)
	}
	keepShot(t, page, "runs-follow")
}
