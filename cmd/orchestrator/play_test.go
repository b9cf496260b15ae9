package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/flow"
	"github.com/multiverse-orchestrator/multiverse/playback"
	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/sites"
)

// TestPlayExportedFlow commits once on the demo site, exports the sealed
// commit bundle as a flow file, and plays it back against the same site:
// the flow stops before the committer's steps, keeps the plain inputs'
// values and redacts the personal one, every action runs once the
// redacted input is supplied, the last page is the review page, and
// no order request reaches the site (it still holds exactly one order).
// After the site's test ids drift, play heals every target and replay
// --live --heal names the healed steps; behind a login, play reports
// url_mismatch and auth_redirect.
// Without the values, the redacted actions are skipped and play exits 7.
func TestPlayExportedFlow(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	site := startCountingSite(t)
	dir := t.TempDir()
	sum := commitSmallTask(t, site.URL(), dir)
	site.reset()

	path := filepath.Join(dir, "checkout.flow.yaml")
	var o, e bytes.Buffer
	if code := runCLI([]string{"flow", "export", sum.Paths.Bundle, "-o", path}, &o, &e); code != 0 {
		t.Fatalf("flow export: exit %d\n%s%s", code, o.String(), e.String())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := flow.Parse(path, data)
	if err != nil {
		t.Fatalf("the exported flow does not parse: %v\n%s", err, data)
	}
	if len(f.Notes) == 0 || !strings.Contains(f.Notes[0], "committer") {
		t.Errorf("the flow of a commit bundle does not say it stops before the commit: %v", f.Notes)
	}
	if strings.Contains(string(data), "procurement@example.com") {
		t.Errorf("the exported flow holds a typed input in clear:\n%s", data)
	}
	inputs := map[string]string{"seats": "10", "billing": "monthly", "country": "DE", "email": "procurement@example.com"}
	args := []string{"play", path, "--start-url", site.URL() + "/", "--json", "--data-dir", dir}
	for _, a := range f.Actions {
		switch {
		case a.Input != "" && a.Redacted:
			args = append(args, "--set", a.Input+"="+inputs[a.Input])
		case a.Input != "" && a.Value != inputs[a.Input]:
			// A plain input keeps its value in the flow: it plays without --set.
			t.Errorf("the flow's %s action holds %q for input %s, want %q", a.Kind, a.Value, a.Input, inputs[a.Input])
		}
		if a.Input == "email" && !a.Redacted {
			t.Errorf("the e-mail input's action is not redacted: %+v", a)
		}
	}
	o.Reset()
	e.Reset()
	code := runCLI(args, &o, &e)
	rep := playReport(t, o.Bytes(), e.String())
	if code != 0 || !rep.OK() || rep.Executed != len(f.Actions) {
		t.Fatalf("play: exit %d, report %+v\n%s", code, rep, e.String())
	}
	if last := rep.Results[len(rep.Results)-1]; !strings.Contains(last.PageURL, "/checkout/review") {
		t.Errorf("the flow ended on %s, want the review page", last.PageURL)
	}
	if sent := site.reset(); sent["POST /orders"] != 0 {
		t.Errorf("playback sent POST /orders %d times", sent["POST /orders"])
	}
	if n := len(site.Vendor.Orders()); n != 1 {
		t.Errorf("the site holds %d orders after playback, want 1", n)
	}

	// The site renames every test id: each target heals by a later
	// strategy, with a screenshot, and the flow still reaches review.
	if err := site.Vendor.SetKnobs(sites.Knobs{TestIDDrift: true}); err != nil {
		t.Fatal(err)
	}
	o.Reset()
	e.Reset()
	code = runCLI(args, &o, &e)
	rep = playReport(t, o.Bytes(), e.String())
	if code != 0 || rep.Healed == 0 || rep.Executed != len(f.Actions) || len(rep.Screenshots) != rep.Healed {
		t.Fatalf("play after the test ids drifted: exit %d, report %+v\n%s", code, rep, e.String())
	}
	for _, r := range rep.Results {
		if r.Status == "healed" && (r.SelectorUsed == "testid" || r.HealedSelector == "" || r.Screenshot == "") {
			t.Errorf("healed action %d: %+v", r.Index, r)
		}
	}
	if last := rep.Results[len(rep.Results)-1]; !strings.Contains(last.PageURL, "/checkout/review") {
		t.Errorf("the drifted flow ended on %s, want the review page", last.PageURL)
	}

	// replay --heal of the commit bundle against the drifted site names
	// the healed steps (and diverges: the page is not the recorded one).
	o.Reset()
	e.Reset()
	code = runCLI([]string{"replay", sum.Paths.Bundle, "--live", "--heal", "--start-url", site.URL() + "/", "--json"}, &o, &e)
	var rrep replay.Report
	if err := json.Unmarshal(o.Bytes(), &rrep); err != nil {
		t.Fatalf("replay --heal --json: %v\n%s%s", err, o.String(), e.String())
	}
	if code != 7 || rrep.Healed == 0 {
		t.Fatalf("replay --live --heal after drift: exit %d, %d healed\n%s", code, rrep.Healed, e.String())
	}
	for _, st := range rrep.Steps {
		if st.Status == "healed" && (st.HealedSelector == "" || st.Strategy == "testid") {
			t.Errorf("healed step %d: %+v", st.Index, st)
		}
	}

	// The checkout now needs a login: the navigation lands on the login
	// page, and what fails after it is put down to that.
	if err := site.Vendor.SetKnobs(sites.Knobs{RequireLogin: true}); err != nil {
		t.Fatal(err)
	}
	o.Reset()
	e.Reset()
	code = runCLI(append(args, "--on-error", "skip_dependent"), &o, &e)
	rep = playReport(t, o.Bytes(), e.String())
	if code != 7 {
		t.Fatalf("play behind a login: exit %d, want 7", code)
	}
	var mismatch, auth bool
	for _, r := range rep.Results {
		mismatch = mismatch || r.ErrorCode == playback.CodeURLMismatch
		auth = auth || r.LikelyCause == playback.CauseAuthRedirect
	}
	if !mismatch || !auth {
		t.Errorf("behind a login: url_mismatch %v, auth_redirect %v: %+v", mismatch, auth, rep.Results)
	}
	// With --auth naming a task whose scripted login logs in, the flow
	// plays behind the login to the review page.
	t.Setenv("MV_TEST_DEMO_PASSWORD", sites.DemoPassword)
	authTask := filepath.Join(dir, "login.yaml")
	if err := os.WriteFile(authTask, []byte(fmt.Sprintf(`start_url: %s/
goal:
  text: Log in.
  success:
    - {name: in, url_matches: /pricing}
inputs:
  login_email: {value: %s, match: '(?i)^email$'}
  login_password: {secret_env: MV_TEST_DEMO_PASSWORD, match: '(?i)password'}
auth:
  login:
    - navigate: /login
    - type: {field: email, input: login_email}
    - type: {field: password, input: login_password}
    - click: {role: button, name: Log in}
`, site.URL(), sites.DemoEmail)), 0o600); err != nil {
		t.Fatal(err)
	}
	o.Reset()
	e.Reset()
	code = runCLI(append(args, "--auth", authTask), &o, &e)
	rep = playReport(t, o.Bytes(), e.String())
	if code != 0 || !rep.OK() || !strings.Contains(rep.Results[len(rep.Results)-1].PageURL, "/checkout/review") {
		t.Errorf("play --auth behind a login: exit %d, report %+v\n%s", code, rep, e.String())
	}
	if strings.Contains(o.String()+e.String(), sites.DemoPassword) {
		t.Error("the password of the login shows in play's output")
	}
	if err := site.Vendor.SetKnobs(sites.Knobs{}); err != nil {
		t.Fatal(err)
	}
	if sent := site.reset(); sent["POST /orders"] != 0 || len(site.Vendor.Orders()) != 1 {
		t.Errorf("playback reached the order endpoint: %v, %d orders", sent, len(site.Vendor.Orders()))
	}

	// The same flow without the values: redacted actions are skipped.
	o.Reset()
	e.Reset()
	code = runCLI([]string{"play", path, "--json", "--data-dir", dir}, &o, &e)
	rep = playReport(t, o.Bytes(), e.String())
	if code != 7 || rep.Skipped == 0 {
		t.Fatalf("play without values: exit %d, %d skipped", code, rep.Skipped)
	}
	for _, r := range rep.Results {
		if r.Status == playback.StatusSkipped && (r.ErrorCode != "redacted_value" || !strings.Contains(r.Error, "--set")) {
			t.Errorf("skipped action %d: %+v", r.Index, r)
		}
	}
}

func playReport(t *testing.T, out []byte, stderr string) playback.Report {
	t.Helper()
	var rep playback.Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("play --json: %v\n%s\n%s", err, out, stderr)
	}
	return rep
}

// TestPlayValues: --set takes an action index or an input name, reads
// env:NAME from the environment, and refuses a secret in clear.
func TestPlayValues(t *testing.T) {
	t.Setenv("MV_TEST_PASSWORD", "s3cret")
	f := &flow.Flow{Actions: []flow.Action{
		{Kind: "navigate", URL: "http://a.test/"},
		{Kind: "type", Target: &flow.Target{Field: "email"}, Input: "email", Redacted: true},
		{Kind: "type", Target: &flow.Target{Field: "password"}, Redacted: true, Secret: true},
	}}
	cases := []struct {
		set     []string
		want    map[string]string
		wantErr string
	}{
		{[]string{"email=a@b.test", "3=env:MV_TEST_PASSWORD"}, map[string]string{"email": "a@b.test", "3": "s3cret"}, ""},
		{[]string{"2=x@y.test"}, map[string]string{"2": "x@y.test"}, ""},
		{[]string{"3=s3cret"}, nil, "a secret is supplied by environment reference only"},
		{[]string{"3=env:MV_TEST_UNSET"}, nil, "the environment has no MV_TEST_UNSET"},
		{[]string{"9=x"}, nil, "the flow has no action 9"},
		{[]string{"=x"}, nil, "want INDEX=VALUE"},
	}
	for _, c := range cases {
		got, err := playValues(c.set, f, true)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%v: err %v, want %q", c.set, err, c.wantErr)
			}
			continue
		}
		if err != nil || len(got) != len(c.want) {
			t.Errorf("%v: %v, %v", c.set, got, err)
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%v: %s = %q, want %q", c.set, k, got[k], v)
			}
		}
	}
}

// TestPartialLine: a playback that skipped or stopped ends by saying what
// it did not run and why; one that ran everything does not.
func TestPartialLine(t *testing.T) {
	rep := &playback.Report{Flow: "f", Status: "failed", Total: 4, NotRun: 1, Results: []playback.Result{
		{Index: 1, Label: "open", Status: "ok"},
		{Index: 2, Label: `type input email into "Email"`, Status: playback.StatusSkipped, ErrorCode: "redacted_value", Error: "needs --set email=VALUE"},
		{Index: 3, Label: `click "Continue"`, Status: "failed", ErrorCode: "selector_not_found"},
	}}
	var b bytes.Buffer
	printPlayback(&b, "p1", rep)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	last := lines[len(lines)-1]
	for _, want := range []string{"partial:", "#2", "redacted_value", "--set email=VALUE", "stopped at #3", "selector_not_found", "1 action(s) after it not run"} {
		if !strings.Contains(last, want) {
			t.Errorf("the last line %q lacks %q", last, want)
		}
	}
	b.Reset()
	printPlayback(&b, "p2", &playback.Report{Flow: "f", Status: "completed", Total: 1, Executed: 1, Results: []playback.Result{{Index: 1, Status: "ok"}}})
	if strings.Contains(b.String(), "partial") {
		t.Errorf("a complete playback says partial:\n%s", b.String())
	}
}
