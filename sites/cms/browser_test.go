package cms_test

import (
	"context"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/internal/chromiumtest"
	"github.com/multiverse-orchestrator/multiverse/sites/cms"
	"github.com/playwright-community/playwright-go"
)

func TestMain(m *testing.M) {
	code := m.Run()
	chromiumtest.Close()
	os.Exit(code)
}

// TestBrowserSmoke drives the site's scripts in real Chromium: the login
// form, the heartbeat at load, the flyout menu's click toggle, the
// create-user form and the "Log out" control's POST to the API.
func TestBrowserSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	site, err := cms.New(cms.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(site)
	defer srv.Close()
	store, err := artifacts.OpenFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := chromiumtest.Runtime(t).NewSession(ctx, browser.SessionOptions{
		Env: browser.Env{ActionTimeout: 5 * time.Second}, Origin: srv.URL, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := s.Page()
	p.SetDefaultTimeout(10000)
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	poll := func(what string, ok func() bool) {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); !ok(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("timed out waiting for %s; writes: %+v", what, site.Writes())
			}
		}
	}

	_, err = p.Goto(srv.URL + "/admin/")
	must("goto", err)
	must("fill username", p.Locator("#user_login").Fill(cms.DefaultUsername))
	must("fill password", p.Locator("#user_pass").Fill(cms.DefaultPassword))
	must("log in", p.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Log In"}).Click())
	must("dashboard", p.WaitForURL(srv.URL+"/admin/"))
	poll("the heartbeat at load", func() bool { return site.Count("POST", "/api/heartbeat") >= 1 })

	addNew := p.Locator(`#submenu-users a[href="/admin/users/new"]`)
	if vis, _ := addNew.IsVisible(); vis {
		t.Fatal("the Users flyout is open before any click")
	}
	must("open Users", p.Locator("#menu-users .menu-toggle").Click())
	must("Add New", addNew.Click())
	must("create-user form", p.WaitForURL(srv.URL+"/admin/users/new"))
	must("username", p.Locator("#user_login").Fill("newbie"))
	must("email", p.Locator("#email").Fill("newbie@example.com"))
	_, err = p.Locator("#role").SelectOption(playwright.SelectOptionValues{Labels: playwright.StringSlice("Editor")})
	must("role", err)
	must("Add New User", p.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Add New User"}).Click())
	must("created", p.Locator("#user-created").WaitFor())
	if u, ok := site.User("newbie"); !ok || u.Role != cms.RoleEditor {
		t.Fatalf("newbie = %+v, %v", u, ok)
	}

	must("Log out", p.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Log out"}).Click())
	must("login page", p.WaitForURL(srv.URL+"/login?loggedout=true"))
	if site.LoggedOut() != 1 || site.Sessions() != 0 || site.Count("POST", "/api/logout") != 1 {
		t.Fatalf("LoggedOut %d, Sessions %d, writes %+v", site.LoggedOut(), site.Sessions(), site.Writes())
	}
	if n := site.Count("POST", "/admin/profile"); n != 0 {
		t.Fatalf("the profile form was sent %d times", n)
	}
}
