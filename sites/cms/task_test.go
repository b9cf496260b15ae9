package cms_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/sites/cms"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// TestCreateUserTaskParses checks that testdata/create-user.yaml is a
// valid task once its placeholder start URL points at a served site, and
// that its login steps fit the site's login form.
func TestCreateUserTaskParses(t *testing.T) {
	s, err := cms.New(cms.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	raw, err := os.ReadFile("testdata/create-user.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const placeholder = "http://cms.invalid/admin/"
	if !strings.Contains(string(raw), "start_url: "+placeholder) {
		t.Fatalf("testdata/create-user.yaml lacks the placeholder start_url %s", placeholder)
	}
	src := strings.Replace(string(raw), placeholder, srv.URL+"/admin/", 1)
	tk, err := task.Parse("testdata/create-user.yaml", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if tk.Commit == nil || tk.Commit.Idempotency.FormField != "#client_reference" || len(tk.Auth.Login) != 4 {
		t.Fatalf("task: %+v", tk)
	}
	if got := tk.LoginActions()[0].URL; got != srv.URL+"/login" {
		t.Fatalf("login navigates to %q, want %s/login", got, srv.URL)
	}
	// The fields and the button the login actions name are the login form's.
	res, err := http.Get(srv.URL + "/login")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="loginform"`, `name="username"`, `name="password"`, ">Log In</button>"} {
		if !strings.Contains(string(body), want) {
			t.Fatalf("GET /login (%d) lacks %s", res.StatusCode, want)
		}
	}
}
