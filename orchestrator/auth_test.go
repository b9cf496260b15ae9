package orchestrator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/sites"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// storageStateFile writes a Playwright storage state holding the demo
// site's session cookie for token.
func storageStateFile(t *testing.T, token string) string {
	t.Helper()
	doc := map[string]any{
		"cookies": []map[string]any{{"name": sites.SessionCookie, "value": token, "domain": "127.0.0.1", "path": "/",
			"expires": -1, "httpOnly": true, "secure": false, "sameSite": "Lax"}},
		"origins": []any{},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestStorageStateLogsEveryBranchIn: with the checkout behind a login, a
// run without auth never reaches the review page (every branch lands on
// the login form); the same task with auth.storage_state (a session the
// user logged into before) explores and commits exactly one order. The
// session token is a secret: it is nowhere in clear in the event log or
// the artifacts.
func TestStorageStateLogsEveryBranchIn(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	s := startSite(t, sites.Knobs{RequireLogin: true})
	url := s.URL()

	tk := checkoutTaskFrom(t, url, nil)
	tk.Budgets.TotalBranches = 8
	_, err := runTask(t, tk, t.TempDir(), false)
	if !errors.Is(err, orchestrator.ErrNoBoundary) {
		t.Fatalf("run without a session = %v, want no boundary", err)
	}

	token, err := s.Vendor.Login(sites.DemoEmail, sites.DemoPassword)
	if err != nil {
		t.Fatal(err)
	}
	state := storageStateFile(t, token)
	tk = checkoutTaskFrom(t, url, func(src string) string {
		return src + "\nauth:\n  storage_state: {secret_file: " + state + "}\n"
	})
	if tk.Auth.StorageState == nil {
		t.Fatal("auth.storage_state was not read")
	}
	dir := t.TempDir()
	sum, err := runTask(t, tk, dir, false)
	if err != nil {
		t.Fatalf("run with a session: %v", err)
	}
	orders := s.Vendor.Orders()
	if sum.Status != "committed" || len(orders) != 1 || orders[0].ID != sum.Commit.OrderID {
		t.Fatalf("status %s, %d orders (%+v), commit %+v; want one order", sum.Status, len(orders), orders, sum.Commit)
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(token)) {
			t.Errorf("the session token is in clear in %s", p)
		}
		return nil
	})
}

// TestStorageStateErrors: a storage state that cannot be read or parsed
// is a task error naming the field, before anything runs.
func TestStorageStateErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"cookies": [{"value": "x"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, ref := range map[string]string{
		"missing file": filepath.Join(t.TempDir(), "nope.json"),
		"no name":      bad,
	} {
		t.Run(name, func(t *testing.T) {
			tk := checkoutTaskFrom(t, "http://127.0.0.1:1", func(src string) string {
				return src + "\nauth:\n  storage_state: {secret_file: " + ref + "}\n"
			})
			err := tk.CheckSecrets()
			var te *task.Error
			if !errors.As(err, &te) || te.Field != "auth.storage_state.secret_file" || te.Line == 0 {
				t.Fatalf("CheckSecrets = %v, want a task error at auth.storage_state.secret_file", err)
			}
			if orchestrator.ExitCode(err) != orchestrator.ExitBadInput {
				t.Fatalf("exit %d, want %d", orchestrator.ExitCode(err), orchestrator.ExitBadInput)
			}
		})
	}
}

// loginTask is the checkout task logging in with a script: the demo
// account's e-mail as a plain input, its password as a secret.
func loginTask(t *testing.T, url, password string) *task.Task {
	t.Helper()
	t.Setenv("MV_TEST_DEMO_PASSWORD", password)
	return checkoutTaskFrom(t, url, func(src string) string {
		src = strings.Replace(src, "inputs:\n", "inputs:\n  login_email: {value: "+sites.DemoEmail+", match: '(?i)^email$'}\n  login_password: {secret_env: MV_TEST_DEMO_PASSWORD, match: '(?i)password'}\n", 1)
		return src + `
auth:
  login:
    - navigate: /login
    - type: {field: email, input: login_email}
    - type: {field: password, input: login_password}
    - click: {role: button, name: Log in}
  login_page: {visible: '[data-testid=login-form]'}
`
	})
}

// TestScriptedLogin: with the checkout behind a login, auth.login runs
// once before exploration (its own login_start / login_step / login_end
// transaction in the event log), and every branch and the committer start
// from the session it left: one order. The password and the session token
// are nowhere in clear in the data dir. A wrong password stops the run
// before it explores, naming the login (exit 2). The commit bundle of the
// logged-in run replays strictly with the site stopped, without the
// credentials.
func TestScriptedLogin(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	s := startSite(t, sites.Knobs{RequireLogin: true})
	dir := t.TempDir()
	sum, err := runTask(t, loginTask(t, s.URL(), sites.DemoPassword), dir, false)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	orders := s.Vendor.Orders()
	if sum.Status != "committed" || len(orders) != 1 {
		t.Fatalf("status %s with %d orders, want one order", sum.Status, len(orders))
	}
	var kinds []string
	for _, e := range events(t, dir, sum.RunID) {
		if strings.HasPrefix(e.Kind, "login_") {
			kinds = append(kinds, e.Kind)
			if e.Kind == "login_end" && !strings.Contains(string(e.Payload), `"status":"ok"`) {
				t.Fatalf("login_end %s", e.Payload)
			}
		}
	}
	if got := strings.Join(kinds, " "); got != "login_start login_step login_step login_step login_step login_end" {
		t.Fatalf("login events %q", got)
	}
	noneInClear(t, dir, sites.DemoPassword)
	tokens := s.Vendor.Sessions()
	if len(tokens) == 0 {
		t.Fatal("the site holds no session after the login")
	}
	for _, tok := range tokens {
		noneInClear(t, dir, tok)
	}

	bad := t.TempDir()
	_, err = runTask(t, loginTask(t, s.URL(), "wrong horse"), bad, false)
	if !errors.Is(err, orchestrator.ErrLoginFailed) || orchestrator.ExitCode(err) != orchestrator.ExitBadInput ||
		!strings.Contains(err.Error(), "login page") {
		t.Fatalf("run with a wrong password = %v (exit %d), want the login failed (exit 2)", err, orchestrator.ExitCode(err))
	}
	if n := len(s.Vendor.Orders()); n != 1 {
		t.Fatalf("%d orders after the failed login, want still 1", n)
	}
	replayStrict(t, sum.Paths.Bundle, s)
}

// noneInClear fails when any file under dir holds secret.
func noneInClear(t *testing.T, dir, secret string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(secret)) {
			t.Errorf("%q is in clear in %s", secret, p)
		}
		return nil
	})
}

// TestExpiredSessionIsAuthRequired: the site ends a session after its
// first request behind the login; every later branch lands on the login
// page, which auth.login_page names, so those branches end auth_required
// and the run stops saying the session is missing or expired (exit 2),
// not that a budget ran out.
func TestExpiredSessionIsAuthRequired(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	s := startSite(t, sites.Knobs{RequireLogin: true, SessionRequests: 1})
	token, err := s.Vendor.Login(sites.DemoEmail, sites.DemoPassword)
	if err != nil {
		t.Fatal(err)
	}
	state := storageStateFile(t, token)
	tk := checkoutTaskFrom(t, s.URL(), func(src string) string {
		return src + "\nauth:\n  storage_state: {secret_file: " + state + "}\n  login_page: {visible: '[data-testid=login-form]'}\n"
	})
	sum, err := runTask(t, tk, t.TempDir(), false)
	if !errors.Is(err, orchestrator.ErrAuthRequired) || orchestrator.ExitCode(err) != orchestrator.ExitBadInput ||
		!strings.Contains(err.Error(), "refresh auth.storage_state") {
		t.Fatalf("run = %v (exit %d), want the branches logged out (exit 2)", err, orchestrator.ExitCode(err))
	}
	if sum == nil || sum.Pruned["auth_required"] == 0 {
		t.Fatalf("summary %+v: want auth_required branches", sum)
	}
	if n := len(s.Vendor.Orders()); n != 0 {
		t.Fatalf("%d orders", n)
	}
}

// TestSessionExpiryLogsInAgain: the site ends every session between the
// first and the second wave. The second wave's branches land on the login
// page; the run logs in again once (a second login transaction in the
// event log), runs those branches again with the new session, and commits
// exactly one order.
func TestSessionExpiryLogsInAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	s := startSite(t, sites.Knobs{RequireLogin: true})
	tk := loginTask(t, s.URL(), sites.DemoPassword)
	dir := t.TempDir()
	var once sync.Once
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	sum, err := orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: dir, Workers: 2, NoScreenshots: true,
		Progress: func(p orchestrator.Progress) {
			if p.Wave == 1 && p.Running == 0 {
				once.Do(s.Vendor.ExpireSessions)
			}
		}})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if n := len(s.Vendor.Orders()); sum.Status != "committed" || n != 1 {
		t.Fatalf("status %s with %d orders, want one order", sum.Status, n)
	}
	logins, again := 0, 0
	for _, e := range events(t, dir, sum.RunID) {
		switch e.Kind {
		case "login_end":
			if strings.Contains(string(e.Payload), `"status":"ok"`) {
				logins++
			}
		case "branch_again":
			again++
		}
	}
	if logins != 2 || again == 0 {
		t.Fatalf("%d logins and %d branches run again, want 2 logins and at least one branch again", logins, again)
	}
	noneInClear(t, dir, sites.DemoPassword)
}

// replayStrict replays a bundle strictly with the site stopped: a
// logged-in branch replays from its recording alone, without the
// credentials.
func replayStrict(t *testing.T, path string, s *site) {
	t.Helper()
	b, err := bundle.ReadFile(path, bundle.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s.Server.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rt, err := browser.Launch(ctx, browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	rep, err := replay.Replay(ctx, rt, b, replay.Options{})
	if err != nil || !rep.OK() {
		t.Fatalf("strict replay of %s with the site stopped: RSR %v, %v", path, rep.RSR, err)
	}
}
