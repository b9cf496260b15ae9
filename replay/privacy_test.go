package replay_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// privateForm is a sign-up form that takes an all-digit PIN, a password
// and an e-mail address by POST and shows a review page echoing the PIN
// and the address (written by echo), with an edit link carrying the
// address in its query.
func privateForm(echo func(string) string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Sign up</title></head><body><main><h1>Sign up</h1>
<form method="post" action="/review">
<div><label for="pin">PIN</label><input id="pin" name="pin" inputmode="numeric"></div>
<div><label for="password">Password</label><input id="password" name="password" type="password"></div>
<div><label for="email">Work email</label><input id="email" name="email" type="email" value="%s"></div>
<button type="submit">Continue</button>
</form></main></body></html>`, html.EscapeString(r.URL.Query().Get("email")))
	})
	mux.HandleFunc("/review", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		pin, pw, email := r.PostFormValue("pin"), r.PostFormValue("password"), r.PostFormValue("email")
		status := "Reviewed"
		if pin == "" || pw == "" || email == "" {
			status = "Incomplete"
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Review</title></head><body><main><h1>Review</h1>
<dl><dt>PIN</dt><dd data-field="pin">%s</dd><dt>Email</dt><dd data-field="email">%s</dd></dl>
<p data-field="status">%s</p>
<a href="/?%s">Edit</a>
<button type="button">Place order</button></main></body></html>`,
			html.EscapeString(pin), echo(email), status, url.Values{"email": {email}}.Encode())
	})
	return mux
}

const privateTask = `version: 1
name: private-form
start_url: %s/
seed: 5
goal:
  text: Fill in the sign-up form and reach its review page.
  milestones:
    - name: review_reached
      url_matches: '/review'
  success:
    - name: reviewed
      text: {selector: '[data-field=status]', equals: Reviewed}
inputs:
  pin: {secret_env: MV_TEST_PIN, match: '(?i)pin'}
  password: {secret_env: MV_TEST_PASSWORD, match: '(?i)pass'}
  email: {value: '%s', match: '(?i)e-?mail'}
# The form posts to its review step, which changes nothing: speculation
# may send it.
explore:
  allow: [{method: POST, url: '^/review$'}]
budgets:
  wall_clock: 2m
  steps_per_branch: 8
  total_branches: 30
search:
  strategy: beam
  beam_width: 2
  min_beam_width: 1
  max_children: 2
  workers: 2
commit:
  boundary: {url_matches: '/review'}
  site: private-form
  flow: sign-up
  intent:
    email: '[data-field=email]'
  action:
    click: {role: button, name: Place order}
  idempotency:
    form_field: '#client_reference'
  guard:
    - {method: POST, url: '/orders'}
  confirm:
    success: {url_matches: '/done'}
    token: '[data-testid=order-id]'
`

// testPIN is the all-digit secret the privacy tests type. It is long
// enough that no timestamp, id, seed or digest of a run holds it by
// chance: with a five-digit PIN, one full-suite run found it in every
// bundle of a run, most likely inside a digit run those bundles share.
const testPIN = "739104826153"

// numericRefs writes a value as a site that spells "+" and "@" as
// numeric character references does (&#43;, &#x40;).
func numericRefs(v string) string {
	return strings.NewReplacer("+", "&#43;", "@", "&#x40;").Replace(html.EscapeString(v))
}

// TestScrubbedReplayReproduces: a run types an all-digit secret PIN, a
// two-character secret password and a plus-addressed e-mail; every
// executed branch's bundle holds none of them in clear and replays
// strictly at RSR 1.0 (the replay types the tokens the recording shows),
// also when the site echoes the address through character references.
func TestScrubbedReplayReproduces(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	for _, c := range []struct {
		name string
		echo func(string) string
	}{
		{"escaped", html.EscapeString},
		{"character references", numericRefs},
	} {
		t.Run(c.name, func(t *testing.T) { scrubbedReplay(t, c.echo) })
	}
}

func scrubbedReplay(t *testing.T, echo func(string) string) {
	const (
		pin      = testPIN
		password = "Zq"
		email    = "buyer+test@example.com"
	)
	t.Setenv("MV_TEST_PIN", pin)
	t.Setenv("MV_TEST_PASSWORD", password)
	srv := httptest.NewServer(privateForm(echo))
	defer srv.Close()
	tk, err := task.Parse("private.yaml", []byte(fmt.Sprintf(privateTask, srv.URL, email)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx := context.Background()
	sum, err := orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: dir, Workers: 2, ExploreOnly: true})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	winner, ids := executedBranches(t, dir, sum.RunID)
	if winner == "" || len(sum.Winner.Steps) < 5 {
		t.Fatalf("the run found no winner that filled the form: %+v", sum.Winner)
	}
	src, closeSrc := source(t, dir)
	defer closeSrc()
	var events bytes.Buffer
	evs, err := src.Events.Events(ctx, sum.RunID, eventlog.Query{})
	if err != nil {
		t.Fatal(err)
	}
	eventlog.WriteJSONL(&events, evs)
	for _, needle := range []string{pin, email, "buyer%2Btest", "buyer", "&#43;test", `"Zq"`, `=Zq&`, `: Zq\n`, `=Zq"`} {
		if bytes.Contains(events.Bytes(), []byte(needle)) {
			t.Errorf("the event log holds %q", needle)
		}
	}
	portable := t.TempDir()
	for _, id := range ids {
		b, err := replay.Build(ctx, src, sum.RunID, id, bundle.KindBranch)
		if err != nil {
			t.Fatalf("bundle %s: %v", id, err)
		}
		path := filepath.Join(portable, id+".bundle")
		if err := bundle.WriteFile(path, b); err != nil {
			t.Fatal(err)
		}
		raw := bundleTar(t, path)
		for _, needle := range []string{pin, email, "buyer%2Btest", "buyer", "&#43;test", `"Zq"`, `=Zq&`, ": Zq\n", `=Zq"`} {
			if bytes.Contains(raw, []byte(needle)) {
				t.Errorf("bundle %s holds %q", id, needle)
			}
		}
	}
	srv.Close()
	for _, id := range ids {
		b, err := bundle.ReadFile(filepath.Join(portable, id+".bundle"), bundle.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := replay.Replay(ctx, runtime(t), b, replay.Options{})
		if err != nil || rep.RSR != 1 {
			t.Errorf("branch %s (winner %v): RSR %.2f, %v\n%s", id, id == winner, repRSR(rep), err, repDiff(rep))
		}
	}
}

// bundleTar returns a bundle file's uncompressed bytes.
func bundleTar(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zstd.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFailureBundlesAreScrubbed: a run of the sign-up form whose boundary
// no page matches types the secret PIN and password and the e-mail, then
// ends without a boundary (exit 3); the bundles it hands over hold none of
// them in clear, and replay strictly at RSR 1.0.
func TestFailureBundlesAreScrubbed(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	const (
		pin      = testPIN
		password = "Zq"
		email    = "buyer+test@example.com"
	)
	t.Setenv("MV_TEST_PIN", pin)
	t.Setenv("MV_TEST_PASSWORD", password)
	srv := httptest.NewServer(privateForm(html.EscapeString))
	defer srv.Close()
	src := strings.Replace(fmt.Sprintf(privateTask, srv.URL, email), "boundary: {url_matches: '/review'}", "boundary: {url_matches: '/never'}", 1)
	tk, err := task.Parse("private.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sum, err := orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: t.TempDir(), Workers: 2, NoScreenshots: true, FailureBundles: 5})
	if !errors.Is(err, orchestrator.ErrNoBoundary) || sum == nil {
		t.Fatalf("run: %v, want no boundary", err)
	}
	fbs := sum.Paths.FailureBundles
	if len(fbs) == 0 || fbs[0].Reason != replay.PickBest {
		t.Fatalf("failure bundles %+v, want the best branch first", fbs)
	}
	srv.Close()
	typed := map[string]bool{}
	for _, fb := range fbs {
		if fb.Error != "" {
			t.Fatalf("bundle of %s not written: %s", fb.BranchID, fb.Error)
		}
		raw := bundleTar(t, fb.Path)
		for _, needle := range []string{pin, email, "buyer%2Btest", "buyer", `"Zq"`, `=Zq&`, ": Zq\n", `=Zq"`} {
			if bytes.Contains(raw, []byte(needle)) {
				t.Errorf("bundle of %s (%s) holds %q", fb.BranchID, fb.Reason, needle)
			}
		}
		b, err := bundle.ReadFile(fb.Path, bundle.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range b.Manifest.Plan {
			typed[a.Input] = true
		}
		if rep, err := replay.Replay(ctx, runtime(t), b, replay.Options{FailOnUnrecorded: true}); err != nil || rep.RSR != 1 {
			t.Errorf("bundle of %s (%s): RSR %.2f, %v\n%s", fb.BranchID, fb.Reason, repRSR(rep), err, repDiff(rep))
		}
	}
	if !typed["pin"] || !typed["password"] || !typed["email"] {
		t.Errorf("the bundles typed %v: not every secret was put to the test", typed)
	}
}
