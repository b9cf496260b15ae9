package orchestrator_test

import (
	"errors"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/sites/cms"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// The acceptance of "safe by default on real apps", end to end in
// Chromium against a server-rendered admin (sites/cms) that counts every
// state-changing request it receives: a profile form with an e-mail field
// on every page, a "Log out" control that posts to the API, "Block user"
// forms, a heartbeat POST, a create-user form with a role select and a
// nonce that changes on every load.

// cmsSite serves a fresh site on a free port.
func cmsSite(t *testing.T, users ...cms.User) (*cms.Site, string) {
	t.Helper()
	opts := cms.Options{}
	if len(users) > 0 {
		opts.Users = append(cms.DefaultUsers(), users...)
	}
	s, err := cms.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL
}

// cmsTask reads testdata/create-user.yaml of sites/cms for the user name,
// e-mail and start path given, without commit when noCommit is set.
func cmsTask(t *testing.T, base, path, user string, noCommit bool, edit func(string) string) *task.Task {
	t.Helper()
	t.Setenv("INKWELL_PASSWORD", cms.DefaultPassword)
	raw, err := os.ReadFile("../sites/cms/testdata/create-user.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.ReplaceAll(string(raw), "newbie", user)
	src = strings.Replace(src, "http://cms.invalid/admin/", base+path, 1)
	if noCommit {
		src = src[:strings.Index(src, "\ncommit:")] + "\n"
	}
	if edit != nil {
		src = edit(src)
	}
	tk, err := task.Parse("create-user.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tk.Budgets.TotalBranches = 24
	return tk
}

// requireNoSpeculativeWrites fails when the site received a request that
// only speculation could have sent: the profile form, a logout, a block.
func requireNoSpeculativeWrites(t *testing.T, s *cms.Site) {
	t.Helper()
	for _, w := range s.Writes() {
		switch {
		case w.Method == "POST" && (w.Path == "/login" || w.Path == "/admin/users" || w.Path == "/api/heartbeat"):
		default:
			t.Errorf("the site received %s %s (fields %v): speculation sent it", w.Method, w.Path, w.Fields)
		}
	}
	if s.LoggedOut() > 0 {
		t.Error("the run logged the shared session out")
	}
}

func TestCMSExplorationSendsNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	// From the dashboard: every admin page offers the profile form, Log
	// out and the side menu; the search may or may not find the form
	// within a small budget, but it must never send anything.
	s, base := cmsSite(t)
	tk := cmsTask(t, base, "/admin/", "xavier", false, nil)
	tk.Budgets.TotalBranches = 16
	sum, err := runTask(t, tk, t.TempDir(), false)
	if err != nil && !errors.Is(err, orchestrator.ErrNoBoundary) {
		t.Fatalf("run: %v", err)
	}
	requireNoSpeculativeWrites(t, s)
	if n := s.Count("POST", "/admin/users"); n > 1 {
		t.Fatalf("%d create requests, want at most the committer's one", n)
	}
	if err == nil && sum.Status != "committed" {
		t.Fatalf("status %s", sum.Status)
	}
	held := map[string]bool{}
	for _, h := range sum.Held {
		held[h.Method+" "+h.Path] = true
	}
	if !held["POST /api/heartbeat"] {
		t.Errorf("the summary does not list the held heartbeat: %+v", sum.Held)
	}
}

func TestCMSCreateUsersOnceEach(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	s, base := cmsSite(t)
	dir := t.TempDir()

	x, err := runTask(t, cmsTask(t, base, "/admin/users/new", "xavier", false, nil), dir, false)
	if err != nil {
		t.Fatalf("create xavier: %v", err)
	}
	y, err := runTask(t, cmsTask(t, base, "/admin/users/new", "yvonne", false, nil), dir, false)
	if err != nil {
		t.Fatalf("create yvonne: %v", err)
	}
	if x.Commit == nil || y.Commit == nil || x.Commit.Key == y.Commit.Key || x.Commit.EntryID == y.Commit.EntryID {
		t.Fatalf("two users must be two keys and two ledger rows: %+v / %+v", x.Commit, y.Commit)
	}
	for _, name := range []string{"xavier", "yvonne"} {
		u, ok := s.User(name)
		if !ok || u.Role != cms.RoleEditor {
			t.Fatalf("user %s: %+v (exists %v), want an editor", name, u, ok)
		}
	}
	if n := s.Count("POST", "/admin/users"); n != 2 {
		t.Fatalf("%d create requests, want 2", n)
	}
	before := len(s.Writes())
	again, err := runTask(t, cmsTask(t, base, "/admin/users/new", "xavier", false, nil), dir, false)
	if err != nil {
		t.Fatalf("create xavier again: %v", err)
	}
	if again.Status != "existing" || again.Commit.Key != x.Commit.Key {
		t.Fatalf("running xavier again: status %s key %s, want existing under %s", again.Status, again.Commit.Key, x.Commit.Key)
	}
	for _, w := range s.Writes()[before:] {
		if w.Path != "/login" && w.Path != "/api/heartbeat" {
			t.Errorf("running xavier again sent %s %s", w.Method, w.Path)
		}
	}
	requireNoSpeculativeWrites(t, s)
}

func TestCMSRefusalIsFinal(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	// zoe exists already: the site refuses with an error notice on a 200
	// page. The row is failed with the notice, and never sent again.
	s, base := cmsSite(t, cms.User{Username: "zoe", Email: "zoe@elsewhere.example", Role: cms.RoleAuthor})
	dir := t.TempDir()
	refused := func(src string) string {
		return strings.Replace(src, "    token:", "    refused: {visible: '.notice-error'}\n    token:", 1)
	}
	sum, err := runTask(t, cmsTask(t, base, "/admin/users/new", "zoe", false, refused), dir, false)
	if orchestrator.ExitCode(err) != orchestrator.ExitAborted {
		t.Fatalf("refused create: err %v (exit %d), want exit %d", err, orchestrator.ExitCode(err), orchestrator.ExitAborted)
	}
	if sum == nil || sum.Commit == nil || sum.Commit.State != "failed" || !strings.Contains(sum.Commit.Error+err.Error(), "already registered") {
		t.Fatalf("summary commit %+v, err %v: want failed with the site's notice", sum.Commit, err)
	}
	if n := s.Count("POST", "/admin/users"); n != 1 {
		t.Fatalf("%d create requests, want 1", n)
	}
	_, err = runTask(t, cmsTask(t, base, "/admin/users/new", "zoe", false, refused), dir, false)
	if orchestrator.ExitCode(err) != orchestrator.ExitAborted || !strings.Contains(err.Error(), "refused earlier") {
		t.Fatalf("second run: %v, want exit 4 refused earlier", err)
	}
	if n := s.Count("POST", "/admin/users"); n != 1 {
		t.Fatalf("the refused create was sent again: %d requests", n)
	}
	requireNoSpeculativeWrites(t, s)
}

func TestCMSWithoutCommitStopsAtTheBoundary(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	// The same goal without commit: the form can be filled, but the goal
	// (a user created) needs the submission, which speculation holds.
	s, base := cmsSite(t)
	tk := cmsTask(t, base, "/admin/users/new", "walter", true, func(src string) string {
		// The goal is the created user, which only the submission shows.
		return strings.Replace(src, "  success:\n", "  success:\n    - {name: created, visible: '#user-created'}\n", 1)
	})
	tk.Budgets.TotalBranches = 30
	sum, err := runTask(t, tk, t.TempDir(), false)
	if !errors.Is(err, orchestrator.ErrSideEffect) || orchestrator.ExitCode(err) != orchestrator.ExitSideEffect {
		t.Fatalf("run: %v (exit %d), want the side-effect boundary (exit %d)", err, orchestrator.ExitCode(err), orchestrator.ExitSideEffect)
	}
	if !strings.Contains(err.Error(), "POST /admin/users") {
		t.Errorf("error %q does not name the request", err)
	}
	if sum == nil || len(sum.SideEffects) == 0 || sum.SideEffects[0].Request != "POST /admin/users" || !strings.Contains(sum.SideEffects[0].Commit, "commit:") {
		t.Fatalf("side effects %+v", sum.SideEffects)
	}
	if n := s.Count("POST", "/admin/users"); n != 0 {
		t.Fatalf("%d create requests, want none", n)
	}
	requireNoSpeculativeWrites(t, s)
}
