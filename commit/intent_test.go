package commit_test

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/commit"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// userAdmin is a small server-rendered admin: a create-user form with a
// typed e-mail, a role select, a hidden nonce and a hidden sequence
// number that both change on every load, and a refusal of a duplicate
// e-mail as an error notice on a 200 page. It counts every POST.
type userAdmin struct {
	mu    sync.Mutex
	loads int
	posts int
	users map[string]string // e-mail -> role
}

func (a *userAdmin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/users/new":
		a.loads++
		fmt.Fprintf(w, `<!doctype html><html><head><title>Add user</title></head><body>
<form method="post" action="/users" id="createuser">
<input type="hidden" name="_nonce" value="n%08d">
<input type="hidden" name="form_seq" value="%d">
<label for="email">E-mail</label> <input id="email" name="email" type="text">
<label for="role">Role</label> <select id="role" name="role"><option value="subscriber">Subscriber</option><option value="editor">Editor</option></select>
<input type="hidden" name="client_reference" id="client_reference" value="">
<button type="submit" name="createuser" value="1">Add New User</button>
</form></body></html>`, a.loads*7919, a.loads)
	case r.Method == http.MethodPost && r.URL.Path == "/users":
		a.posts++
		r.ParseForm()
		email := r.PostForm.Get("email")
		if _, dup := a.users[email]; dup || email == "" {
			fmt.Fprint(w, `<!doctype html><html><head><title>Add user</title></head><body>
<div class="notice notice-error"><p><strong>Error:</strong> This e-mail address is already registered.</p></div>
</body></html>`)
			return
		}
		a.users[email] = r.PostForm.Get("role")
		http.Redirect(w, r, fmt.Sprintf("/users/%d", len(a.users)), http.StatusSeeOther)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/users/"):
		fmt.Fprintf(w, `<!doctype html><html><body><p class="notice-success">New user created: <span id="user-id">U-%s</span></p></body></html>`,
			html.EscapeString(strings.TrimPrefix(r.URL.Path, "/users/")))
	default:
		http.NotFound(w, r)
	}
}

func (a *userAdmin) count() (posts, users int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.posts, len(a.users)
}

const createUserTask = `version: 1
name: create-user
start_url: %s/users/new
goal:
  text: Create a user
  milestones: [{name: form, url_matches: '/users/new'}]
budgets: {action_timeout: 5s}
commit:
  boundary: {url_matches: '/users/new'}
  site: admin
  flow: create-user
  intent:
    role: '#role'
    email: {selector: '#email', attr: value}
  action:
    click: {role: button, name: Add New User}
  idempotency: {form_field: '#client_reference'}
  guard: [{method: POST, url: '/users$'}]
  confirm:
    success: {url_matches: '/users/\d+'}
    refused: {visible: '.notice-error'}
    token: '#user-id'
    timeout: 5s
`

// adminFixture is a commit fixture against a userAdmin.
type adminFixture struct {
	*fixture
	admin *userAdmin
}

func setupAdmin(t *testing.T) *adminFixture {
	t.Helper()
	f := setup(t) // Chromium, artifact store, data dir
	a := &userAdmin{users: map[string]string{}}
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	tk, err := task.Parse("create-user.yaml", []byte(fmt.Sprintf(createUserTask, srv.URL)))
	if err != nil {
		t.Fatal(err)
	}
	f.task, f.url = tk, srv.URL
	return &adminFixture{fixture: f, admin: a}
}

// createUser is the plan that fills the form for email with role.
func (f *adminFixture) createUser(email, role string) commit.Candidate {
	plan := branch.Plan{
		{Kind: branch.KindNavigate, URL: f.url + "/users/new"},
		{Kind: branch.KindType, Target: &branch.Target{ID: "email"}, Value: email},
		{Kind: branch.KindSelect, Target: &branch.Target{ID: "role"}, Value: role},
	}
	return commit.Candidate{BranchID: "01" + strings.ToUpper(role), PlanDigest: plan.Digest(f.task.Digest(), f.task.Origin()), Plan: plan}
}

func (f *adminFixture) committerFor(t *testing.T, runID string) *commit.Committer {
	t.Helper()
	l, err := ledger.Open(context.Background(), filepath.Join(f.dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	spec := &job.Spec{Origin: f.task.Origin(), RunSeed: 1, Env: f.task.Environment, Timeout: task.Duration(5 * time.Second),
		Guard: f.task.Commit.Guard, ScrubKey: []byte("test-key")}
	return &commit.Committer{Task: f.task, RunID: runID, Spec: spec, Ledger: l, Store: f.store, Runtime: f.rt, Events: nopRecorder{}}
}

// TestKeyCoversWhatIsSubmitted: two users (a typed e-mail and a role
// select) make two keys and two users; the same user again makes the
// same key although the form's nonce and sequence number changed, and
// sends nothing. The form body keeps the typed e-mail only as a hash.
func TestKeyCoversWhatIsSubmitted(t *testing.T) {
	f := setupAdmin(t)
	ctx := context.Background()
	x, err := f.committerFor(t, "run1").Commit(ctx, []commit.Candidate{f.createUser("x@example.com", "editor")})
	if err != nil || x.Entry.State != ledger.StateCommitted {
		t.Fatalf("commit X: %+v, %v", x, err)
	}
	y, err := f.committerFor(t, "run2").Commit(ctx, []commit.Candidate{f.createUser("y@example.com", "editor")})
	if err != nil || y.Entry.State != ledger.StateCommitted || y.Existing {
		t.Fatalf("commit Y: %+v, %v", y, err)
	}
	if x.Entry.Key == y.Entry.Key {
		t.Fatalf("two users share key %s", x.Entry.Key)
	}
	z, err := f.committerFor(t, "run3").Commit(ctx, []commit.Candidate{f.createUser("y@example.com", "subscriber")})
	if !errors.Is(err, commit.ErrRefused) || z.Existing || z.Entry.Key == y.Entry.Key {
		t.Fatalf("the same e-mail with another role: %+v, %v; want a key of its own, which the site refuses", z, err)
	}
	again, err := f.committerFor(t, "run4").Commit(ctx, []commit.Candidate{f.createUser("x@example.com", "editor")})
	if err != nil || !again.Existing || again.Entry.Key != x.Entry.Key {
		t.Fatalf("X again: %+v, %v; want the existing row under %s", again, err, x.Entry.Key)
	}
	if posts, users := f.admin.count(); posts != 3 || users != 2 {
		t.Fatalf("the site got %d posts and holds %d users, want 3 and 2", posts, users)
	}
	p := string(x.Entry.Payload)
	// The intent field reads the typed value (attr: value), the select its
	// option's text; the form body covers the e-mail only as a hash.
	for _, want := range []string{`"email":"x@example.com"`, `"role":"Editor"`, `"role":["editor"]`, `"createuser":["1"]`, `"email":["sha256:`} {
		if !strings.Contains(p, want) {
			t.Errorf("payload %s lacks %s", p, want)
		}
	}
	for _, gone := range []string{"_nonce", "form_seq", "client_reference"} {
		if strings.Contains(p, gone) {
			t.Errorf("payload %s holds %q", p, gone)
		}
	}
}

// TestRefusalOnAPageIsFinalAndNeverResent: the site refuses a duplicate
// user with an error notice on a 200 page. The row is finalized failed
// with the notice's text; the next commit of the same intent reports the
// refusal and sends nothing.
func TestRefusalOnAPageIsFinalAndNeverResent(t *testing.T) {
	f := setupAdmin(t)
	f.admin.users["dup@example.com"] = "editor" // created by someone else
	ctx := context.Background()
	res, err := f.committerFor(t, "run1").Commit(ctx, []commit.Candidate{f.createUser("dup@example.com", "editor")})
	if !errors.Is(err, commit.ErrRefused) {
		t.Fatalf("commit of a duplicate: %v, want ErrRefused", err)
	}
	if res == nil || res.Entry.State != ledger.StateFailed || !strings.Contains(res.Entry.Error, "already registered") {
		t.Fatalf("row = %+v, want failed with the notice", res)
	}
	if !strings.Contains(err.Error(), "already registered") || !strings.Contains(err.Error(), "commit.nonce") {
		t.Errorf("error %q does not say what the site said and how to retry", err)
	}
	res2, err := f.committerFor(t, "run2").Commit(ctx, []commit.Candidate{f.createUser("dup@example.com", "editor")})
	if !errors.Is(err, commit.ErrRefused) || !strings.Contains(err.Error(), "refused earlier") || !strings.Contains(err.Error(), "already registered") {
		t.Fatalf("second commit: %v, want refused earlier with the notice", err)
	}
	if res2.Entry.State != ledger.StateFailed || res2.Entry.Attempts != 1 {
		t.Errorf("row after the second commit: %+v", res2.Entry)
	}
	if posts, _ := f.admin.count(); posts != 1 {
		t.Fatalf("the site got %d posts, want 1: a refused commit is never sent again", posts)
	}
}
