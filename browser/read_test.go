package browser_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
)

// createUserPage is a server-rendered "create user" form: a typed e-mail,
// a role select, a checkbox, a password, a hidden nonce that changes on
// every load, and a field linked to the form by its form attribute.
func createUserPage(n int64) string {
	return fmt.Sprintf(`<!doctype html><html><body>
<p id="note" data-kind="info">Create a user</p>
<form id="createuser" method="post" action="/users">
<input type="hidden" name="_nonce" value="n-%d">
<label>E-mail <input id="email" name="email" type="email" value=""></label>
<label>Role <select id="role" name="role"><option value="subscriber">Subscriber</option><option value="editor">Editor</option></select></label>
<label><input id="notify" name="notify" type="checkbox" value="yes"> Notify</label>
<label>Password <input id="pass" name="pass" type="password"></label>
<input type="hidden" name="client_reference" id="client_reference" value="">
<button type="submit" name="createuser" value="Add New User" data-testid="create">Add New User</button>
</form>
<input name="outside" form="createuser" value="linked">
<button data-testid="lonely">Not in a form</button>
</body></html>`, n)
}

func createUserServer(t *testing.T) *httptest.Server {
	var loads atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, createUserPage(loads.Add(1)))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestReadLiveReadsWhatWillBeSubmitted: typed text is read from the
// value property (also when the task wrote attr: value), a select as its
// selected option's text, a checkbox as its checked state; other
// attributes and elements read as before.
func TestReadLiveReadsWhatWillBeSubmitted(t *testing.T) {
	srv := createUserServer(t)
	s := session(t, srv.URL, 1)
	do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/"})
	do(t, s, branch.Action{Kind: branch.KindType, Target: &branch.Target{ID: "email"}, Value: "x@example.com"})
	do(t, s, branch.Action{Kind: branch.KindSelect, Target: &branch.Target{ID: "role"}, Value: "editor"})
	do(t, s, branch.Action{Kind: branch.KindCheck, Target: &branch.Target{ID: "notify"}})
	ctx := context.Background()
	for _, tc := range []struct {
		selector, attr, want string
		ok                   bool
	}{
		{"#email", "", "x@example.com", true},
		{"#email", "value", "x@example.com", true},
		{"#email", "type", "email", true},
		{"#role", "", "Editor", true},
		{"#notify", "", "true", true},
		{"#note", "", "Create a user", true},
		{"#note", "data-kind", "info", true},
		{"#missing", "", "", false},
	} {
		got, ok, err := s.ReadLive(ctx, tc.selector, tc.attr)
		if err != nil || ok != tc.ok || got != tc.want {
			t.Errorf("ReadLive(%q, %q) = %q, %v, %v; want %q, %v", tc.selector, tc.attr, got, ok, err, tc.want, tc.ok)
		}
	}
	// Read still reads the attribute: empty for typed text.
	if got, _, _ := s.Read(ctx, "#email", "value"); got != "" {
		t.Errorf("Read(#email, value) = %q; the attribute was never written", got)
	}
}

// TestSubmittedForm: the commit button's form is read as FormData would
// send it now, with what each field declares, the key field named; the
// served HTML keeps the defaults; a target outside any form has none.
func TestSubmittedForm(t *testing.T) {
	srv := createUserServer(t)
	s := sessionWith(t, browser.SessionOptions{Env: browser.Env{ActionTimeout: 5 * time.Second}, RunSeed: 1, Origin: srv.URL})
	do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/"})
	do(t, s, branch.Action{Kind: branch.KindType, Target: &branch.Target{ID: "email"}, Value: "x@example.com"})
	do(t, s, branch.Action{Kind: branch.KindSelect, Target: &branch.Target{ID: "role"}, Value: "editor"})
	ctx := context.Background()
	f, err := s.SubmittedForm(ctx, &branch.Target{TestID: "create"}, "#client_reference")
	if err != nil || f == nil {
		t.Fatalf("SubmittedForm = %+v, %v", f, err)
	}
	if f.ID != "createuser" || f.Index != 0 || f.Method != "post" || f.KeyField != "client_reference" {
		t.Errorf("form = %+v", f)
	}
	got := map[string]browser.FormField{}
	var order []string
	for _, fl := range f.Fields {
		got[fl.Name] = fl
		order = append(order, fl.Name)
	}
	want := map[string]string{"_nonce": "n-1", "email": "x@example.com", "role": "editor", "pass": "", "client_reference": "", "createuser": "Add New User", "outside": "linked"}
	for name, v := range want {
		if got[name].Value != v {
			t.Errorf("field %s = %q, want %q (fields %v)", name, got[name].Value, v, order)
		}
	}
	if _, ok := got["notify"]; ok {
		t.Errorf("an unchecked checkbox is not sent, got %+v", got["notify"])
	}
	if got["pass"].Type != "password" || got["_nonce"].Type != "hidden" || got["role"].Type != "select" || got["email"].Type != "email" {
		t.Errorf("declared types: %+v", got)
	}
	if f, err := s.SubmittedForm(ctx, &branch.Target{TestID: "lonely"}, ""); err != nil || f != nil {
		t.Errorf("a button outside any form: %+v, %v", f, err)
	}
	html, err := s.Content(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html, `value="n-1"`) || strings.Contains(html, "x@example.com") {
		t.Errorf("Content holds the served defaults, not typed values:\n%s", html)
	}
}
