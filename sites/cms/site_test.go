package cms

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// duplicateUsernameNotice is the refusal exactly as a CMS renders it.
const duplicateUsernameNotice = `<div class="notice notice-error"><p><strong>Error:</strong> This username is already registered. Please choose another one.</p></div>`

func TestLoggedOutRedirectsToLogin(t *testing.T) {
	_, srv := newSite(t, Options{})
	c := newClient(t, srv.URL)
	for _, tc := range []struct{ method, path, want string }{
		{"GET", "/admin/", "/login?next=%2Fadmin%2F"},
		{"GET", "/admin/users?s=jo", "/login?next=%2Fadmin%2Fusers%3Fs%3Djo"},
		{"GET", "/admin/users/new", "/login?next=%2Fadmin%2Fusers%2Fnew"},
		{"GET", "/admin/posts", "/login?next=%2Fadmin%2Fposts"},
		{"GET", "/admin/settings", "/login?next=%2Fadmin%2Fsettings"},
		{"POST", "/admin/users", "/login?next=%2Fadmin%2F"},
		{"POST", "/admin/profile", "/login?next=%2Fadmin%2F"},
	} {
		t.Run(tc.method+tc.path, func(t *testing.T) {
			r := c.do(tc.method, tc.path, strings.NewReader(""), "application/x-www-form-urlencoded")
			requireStatus(t, r, http.StatusFound)
			if r.location() != tc.want {
				t.Fatalf("Location = %q, want %q", r.location(), tc.want)
			}
		})
	}
}

func TestLogin(t *testing.T) {
	s, srv := newSite(t, Options{})
	c := newClient(t, srv.URL)
	page := c.get("/login?next=%2Fadmin%2Fusers")
	requireStatus(t, page, http.StatusOK)
	requireContains(t, page.body, `id="loginform"`, `name="redirect_to" value="/admin/users"`, "Log In")
	csrf := formField(t, page.body, "loginform", "_csrf")

	form := func(csrf, user, pass string) url.Values {
		return url.Values{"_csrf": {csrf}, "redirect_to": {"/admin/users"}, "username": {user}, "password": {pass}}
	}
	for _, tc := range []struct {
		name string
		form url.Values
		msg  string
	}{
		{"wrong password", form(csrf, "admin", "nope"), "The username or password you entered is incorrect."},
		{"unknown user", form(csrf, "root", DefaultPassword), "The username or password you entered is incorrect."},
		{"not the administrator", form(csrf, "jdoe", DefaultPassword), "The username or password you entered is incorrect."},
		{"unissued token", form("0123456789", "admin", DefaultPassword), "This login form has expired."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.post("/login", tc.form)
			requireStatus(t, r, http.StatusOK)
			requireContains(t, r.body, `<div class="notice notice-error"><p><strong>Error:</strong> `+tc.msg, `id="loginform"`)
			if r.header.Get("Set-Cookie") != "" {
				t.Fatalf("a refused login set a cookie: %s", r.header.Get("Set-Cookie"))
			}
		})
	}
	if s.Sessions() != 0 {
		t.Fatalf("refused logins opened %d sessions", s.Sessions())
	}

	r := c.post("/login", form(csrf, "admin", DefaultPassword))
	requireStatus(t, r, http.StatusSeeOther)
	if r.location() != "/admin/users" {
		t.Fatalf("Location = %q, want /admin/users", r.location())
	}
	ck := r.header.Get("Set-Cookie")
	if !strings.HasPrefix(ck, SessionCookie+"=") || !strings.Contains(ck, "HttpOnly") || !strings.Contains(ck, "Path=/") {
		t.Fatalf("session cookie = %q, want %s=…; Path=/; HttpOnly", ck, SessionCookie)
	}
	if s.Sessions() != 1 {
		t.Fatalf("Sessions() = %d, want 1", s.Sessions())
	}
	admin := c.get("/admin/")
	requireStatus(t, admin, http.StatusOK)
	requireContains(t, admin.body, "Howdy, <strong", "Ada Admin", `id="logout"`, `id="your-profile"`, `fetch('/api/heartbeat'`)

	// The e-mail address logs in too; an off-site next does not leave.
	c2 := newClient(t, srv.URL)
	p2 := c2.get("/login")
	r = c2.post("/login", url.Values{"_csrf": {formField(t, p2.body, "loginform", "_csrf")}, "redirect_to": {"//evil.example/"},
		"username": {"admin@inkwell.example"}, "password": {DefaultPassword}})
	requireStatus(t, r, http.StatusSeeOther)
	if r.location() != "/admin/" {
		t.Fatalf("Location = %q, want /admin/", r.location())
	}
}

func TestEveryAdminPageHasTheChrome(t *testing.T) {
	_, srv := newSite(t, Options{})
	c := newClient(t, srv.URL)
	c.login()
	for _, path := range []string{"/admin/", "/admin/users", "/admin/users/new", "/admin/users/2/edit", "/admin/users/2/delete",
		"/admin/profile", "/admin/posts", "/admin/posts/new", "/admin/settings"} {
		t.Run(path, func(t *testing.T) {
			r := c.get(path)
			requireStatus(t, r, http.StatusOK)
			requireContains(t, r.body,
				// top bar with the log-out control posting to the API
				`<button type="button" id="logout"`, `fetch('/api/logout', {method: 'POST'`,
				// flyout side menu
				`class="menu-toggle"`, `<a href="/admin/users/new"`, `.menu-top:hover>.submenu`,
				// the profile form, prefilled, with its own nonce
				`action="/admin/profile"`, `id="profile-email" value="admin@inkwell.example"`, "Update Profile",
				// background polling
				"setInterval(beat, 15000)", "beat();")
			if n := formField(t, r.body, "your-profile", "_nonce"); len(n) != 10 {
				t.Fatalf("profile nonce %q", n)
			}
			requireLacks(t, r.body, "http://", "https://") // self-contained
		})
	}
}

func TestSideMenuShowsTheCurrentSectionOpen(t *testing.T) {
	_, srv := newSite(t, Options{})
	c := newClient(t, srv.URL)
	c.login()
	dash := c.get("/admin/").body
	requireContains(t, dash, `<li class="menu-top has-submenu" id="menu-users">`, `aria-expanded="false" aria-controls="submenu-users"`)
	users := c.get("/admin/users/new").body
	requireContains(t, users, `<li class="menu-top has-submenu current open" id="menu-users">`,
		`<li class="current"><a href="/admin/users/new" aria-current="page">Add New</a></li>`)
}

func TestNonceDiffersPerLoadAndUnknownIsRefused(t *testing.T) {
	s, srv := newSite(t, Options{})
	c := newClient(t, srv.URL)
	c.login()
	a := formField(t, c.get("/admin/users/new").body, "createuser", "_nonce")
	b := formField(t, c.get("/admin/users/new").body, "createuser", "_nonce")
	if a == b || a == "" {
		t.Fatalf("nonces of two loads: %q and %q, want two different values", a, b)
	}
	profileNonce := formField(t, c.get("/admin/").body, "your-profile", "_nonce")
	for _, tc := range []struct{ name, nonce string }{
		{"unknown", "deadbeef00"},
		{"empty", ""},
		{"another form's", profileNonce},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := c.newUserForm("alice", "alice@example.com", RoleEditor)
			f.Set("_nonce", tc.nonce)
			r := c.post("/admin/users", f)
			requireStatus(t, r, http.StatusForbidden)
			requireContains(t, r.body, "The link you followed has expired.")
			if _, ok := s.User("alice"); ok {
				t.Fatal("a refused nonce created the user")
			}
		})
	}
}

func TestCreateUser(t *testing.T) {
	s, srv := newSite(t, Options{})
	c := newClient(t, srv.URL)
	c.login()
	form := c.newUserForm("alice", "alice@example.com", RoleEditor)
	r := c.post("/admin/users", form)
	requireStatus(t, r, http.StatusSeeOther)
	if r.location() != "/admin/users?created=alice" {
		t.Fatalf("Location = %q", r.location())
	}
	u, ok := s.User("alice")
	if !ok || u.Role != RoleEditor || u.Email != "alice@example.com" || u.Seq != 1 || u.ID != 4 {
		t.Fatalf("created user = %+v, %v", u, ok)
	}
	list := c.get(r.location())
	requireStatus(t, list, http.StatusOK)
	requireContains(t, list.body, `<div class="notice notice-success" id="user-created"><p>New user created.`,
		`data-testid="created-user" data-username="alice"`, `<tr id="user-4" data-username="alice">`, "<td>Editor</td>")

	for _, tc := range []struct {
		name, username, email, role string
		notice                      string
	}{
		{"duplicate username", "alice", "other@example.com", RoleAuthor, duplicateUsernameNotice},
		{"duplicate username other case", "Alice", "other@example.com", RoleAuthor, duplicateUsernameNotice},
		{"duplicate email", "alice2", "ALICE@example.com", RoleAuthor, "<strong>Error:</strong> This email is already registered. Please choose another one."},
		{"no username", "", "x@example.com", RoleAuthor, "<strong>Error:</strong> Please enter a username."},
		{"bad email", "bob", "bob-at-example", RoleAuthor, "<strong>Error:</strong> The email address is not correct."},
		{"unknown role", "bob", "bob@example.com", "superuser", "<strong>Error:</strong> Sorry, you are not allowed to give users that role."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(s.Users())
			r := c.post("/admin/users", c.newUserForm(tc.username, tc.email, tc.role))
			requireStatus(t, r, http.StatusOK) // a refusal on a 200 page
			requireContains(t, r.body, tc.notice, `id="createuser"`, `value="`+tc.email+`"`)
			if n := len(s.Users()); n != before {
				t.Fatalf("users %d -> %d after a refusal", before, n)
			}
		})
	}
	// The form keeps the chosen role on the refusal page.
	r = c.post("/admin/users", c.newUserForm("alice", "zed@example.com", RoleEditor))
	requireContains(t, r.body, `<option value="editor" selected>Editor</option>`)
	requireLacks(t, r.body, `<option value="subscriber" selected>`)
}

func TestCreateUserFormShape(t *testing.T) {
	_, srv := newSite(t, Options{})
	c := newClient(t, srv.URL)
	c.login()
	body := c.get("/admin/users/new").body
	requireContains(t, body,
		`<input type="hidden" name="client_reference" id="client_reference" value="">`,
		`<select name="role" id="role">`,
		`<option value="subscriber" selected>Subscriber</option>`,
		`<option value="contributor">Contributor</option>`, `<option value="author">Author</option>`,
		`<option value="editor">Editor</option>`, `<option value="administrator">Administrator</option>`,
		`<input type="submit" name="createuser" id="createusersub" class="button button-primary" value="Add New User">`,
		`id="user_login"`, `id="email"`, `id="first_name"`, `id="last_name"`, `id="pass1"`)
}

func TestClientReferenceReplayCreatesNothing(t *testing.T) {
	s, srv := newSite(t, Options{})
	c := newClient(t, srv.URL)
	c.login()
	const key = "commit:inkwell:create-user:0123abcd"
	send := func(username, email string) resp {
		f := c.newUserForm(username, email, RoleEditor)
		f.Set("client_reference", key)
		return c.post("/admin/users", f)
	}
	first := send("alice", "alice@example.com")
	requireStatus(t, first, http.StatusSeeOther)
	n := len(s.Users())
	again := send("alice", "alice@example.com") // a fresh nonce, the same key
	requireStatus(t, again, http.StatusSeeOther)
	if again.location() != first.location() {
		t.Fatalf("replay went to %q, first to %q", again.location(), first.location())
	}
	if len(s.Users()) != n {
		t.Fatal("a replayed client_reference created a user")
	}
	other := send("bob", "bob@example.com") // the same key for another user
	requireStatus(t, other, http.StatusOK)
	requireContains(t, other.body, "<strong>Error:</strong> This request reference was already used for another user.")
	if _, ok := s.User("bob"); ok {
		t.Fatal("a reused client_reference created another user")
	}

	var got struct{ Users []User }
	api := c.get("/api/users?client_reference=" + url.QueryEscape(key))
	requireStatus(t, api, http.StatusOK)
	if err := json.Unmarshal([]byte(api.body), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Users) != 1 || got.Users[0].Username != "alice" || got.Users[0].ClientReference != key {
		t.Fatalf("/api/users?client_reference: %+v", got.Users)
	}
	for _, q := range []string{"/api/users?client_reference=nope", "/api/users?client_reference="} {
		requireContains(t, c.get(q).body, `"users": []`)
	}
	// The probe needs no session.
	anon := newClient(t, srv.URL)
	requireContains(t, anon.get("/api/users?client_reference="+url.QueryEscape(key)).body, `"username": "alice"`)
	requireContains(t, anon.get("/api/users").body, `"username": "admin"`, `"username": "jdoe"`, `"username": "msmith"`)
}

func TestProfileUpdateIsCountedAndChangesTheEmail(t *testing.T) {
	s, srv := newSite(t, Options{})
	c := newClient(t, srv.URL)
	c.login()
	page := c.get("/admin/users/new")
	r := c.post("/admin/profile", url.Values{"_nonce": {formField(t, page.body, "your-profile", "_nonce")},
		"email": {"goal@example.com"}, "display_name": {"Ada Admin"}})
	requireStatus(t, r, http.StatusSeeOther)
	if got := s.Count("POST", "/admin/profile"); got != 1 {
		t.Fatalf("Count(POST, /admin/profile) = %d, want 1", got)
	}
	if u, _ := s.User("admin"); u.Email != "goal@example.com" {
		t.Fatalf("admin e-mail = %q, want goal@example.com", u.Email)
	}
	requireContains(t, c.get(r.location()).body, "Profile updated.", `id="profile-email" value="goal@example.com"`)

	// Another user's address is refused on a 200 page and changes nothing.
	page = c.get("/admin/")
	r = c.post("/admin/profile", url.Values{"_nonce": {formField(t, page.body, "your-profile", "_nonce")}, "email": {"jdoe@inkwell.example"}})
	requireStatus(t, r, http.StatusOK)
	requireContains(t, r.body, "<strong>Error:</strong> This email is already registered.")
	if u, _ := s.User("admin"); u.Email != "goal@example.com" {
		t.Fatalf("admin e-mail = %q after a refusal", u.Email)
	}
}

func TestLogoutKillsTheSession(t *testing.T) {
	for _, tc := range []struct{ method, path string }{
		{"POST", "/api/logout"},
		{"DELETE", "/api/session"},
	} {
		t.Run(tc.method+tc.path, func(t *testing.T) {
			s, srv := newSite(t, Options{})
			c := newClient(t, srv.URL)
			c.login()
			// A second client shares the session cookie, as branches do.
			shared := newClient(t, srv.URL)
			u, _ := url.Parse(srv.URL)
			shared.hc.Jar.SetCookies(u, c.hc.Jar.Cookies(u))
			requireStatus(t, shared.get("/admin/"), http.StatusOK)

			r := c.do(tc.method, tc.path, nil, "")
			requireStatus(t, r, http.StatusOK)
			requireContains(t, r.body, `"logged_out": true`, `"redirect": "/login?loggedout=true"`)
			if s.LoggedOut() != 1 || s.Sessions() != 0 {
				t.Fatalf("LoggedOut() = %d, Sessions() = %d; want 1, 0", s.LoggedOut(), s.Sessions())
			}
			requireStatus(t, shared.get("/admin/"), http.StatusFound)
			if s.Count(tc.method, tc.path) != 1 {
				t.Fatalf("the logout was not counted: %+v", s.Writes())
			}
			requireContains(t, c.get("/login?loggedout=true").body, "You are now logged out.")
			// Logging out again ends nothing more.
			requireContains(t, shared.do(tc.method, tc.path, nil, "").body, `"logged_out": false`)
			if s.LoggedOut() != 1 {
				t.Fatalf("LoggedOut() = %d after a second logout without session", s.LoggedOut())
			}
		})
	}
}

func TestHeartbeatIsCounted(t *testing.T) {
	s, srv := newSite(t, Options{})
	c := newClient(t, srv.URL)
	anon := c.post("/api/heartbeat", url.Values{"interval": {"15"}})
	requireStatus(t, anon, http.StatusOK)
	requireContains(t, anon.body, `"auth": false`)
	c.login()
	for i := 1; i <= 2; i++ {
		r := c.post("/api/heartbeat", url.Values{"interval": {"15"}, "screen_id": {"dashboard"}})
		requireStatus(t, r, http.StatusOK)
		requireContains(t, r.body, `"auth": true`)
	}
	if got := s.Count("POST", "/api/heartbeat"); got != 3 {
		t.Fatalf("Count(POST, /api/heartbeat) = %d, want 3", got)
	}
	if s.Heartbeats() != 2 {
		t.Fatalf("Heartbeats() = %d, want 2", s.Heartbeats())
	}
	// A GET is not a heartbeat.
	requireStatus(t, c.get("/api/heartbeat"), http.StatusNotFound)
}

func TestWritesRecord(t *testing.T) {
	s, srv := newSite(t, Options{})
	c := newClient(t, srv.URL)
	c.get("/admin/")
	c.login()
	c.get("/admin/users")
	c.do(http.MethodHead, "/admin/users", nil, "")
	c.do(http.MethodOptions, "/admin/users", nil, "")
	f := c.newUserForm("alice", "alice@example.com", RoleEditor)
	c.post("/admin/users", f)
	c.do(http.MethodPut, "/api/users", strings.NewReader("{}"), "application/json")
	c.get("/__test/writes")

	want := []Write{
		{Seq: 1, Method: "POST", Path: "/login", Fields: []string{"_csrf", "password", "redirect_to", "username"}, Status: 303},
		{Seq: 2, Method: "POST", Path: "/admin/users", Fields: []string{"_nonce", "action", "client_reference", "createuser", "email",
			"first_name", "last_name", "pass1", "role", "send_user_notification", "user_login"}, Status: 303},
		{Seq: 3, Method: "PUT", Path: "/api/users", Status: 404},
	}
	got := s.Writes()
	if len(got) != len(want) {
		t.Fatalf("writes = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Seq != want[i].Seq || got[i].Method != want[i].Method || got[i].Path != want[i].Path ||
			got[i].Status != want[i].Status || strings.Join(got[i].Fields, ",") != strings.Join(want[i].Fields, ",") {
			t.Fatalf("writes[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, tc := range []struct {
		method, prefix string
		want           int
	}{{"", "", 3}, {"post", "", 2}, {"POST", "/admin/", 1}, {"PUT", "/api/", 1}, {"DELETE", "", 0}, {"", "/admin/profile", 0}} {
		if n := s.Count(tc.method, tc.prefix); n != tc.want {
			t.Errorf("Count(%q, %q) = %d, want %d", tc.method, tc.prefix, n, tc.want)
		}
	}
	var doc struct{ Writes []Write }
	r := c.get("/__test/writes")
	if err := json.Unmarshal([]byte(r.body), &doc); err != nil || len(doc.Writes) != 3 || doc.Writes[1].Path != "/admin/users" {
		t.Fatalf("/__test/writes = %s (%v)", r.body, err)
	}
	requireLacks(t, r.body, "alice@example.com") // names, never values
}

func TestBlockAndDeleteUser(t *testing.T) {
	s, srv := newSite(t, Options{})
	c := newClient(t, srv.URL)
	c.login()
	list := c.get("/admin/users")
	requireContains(t, list.body, `action="/admin/users/2/block"`, `data-confirm="Block jdoe?`, `<a class="delete" href="/admin/users/2/delete">Delete</a>`)
	requireLacks(t, list.body, `action="/admin/users/1/block"`, `href="/admin/users/1/delete"`) // not oneself
	nonce := formField(t, list.body, "the-list", "_nonce")

	requireStatus(t, c.post("/admin/users/2/block", url.Values{}), http.StatusForbidden) // the hidden field is required
	if u, _ := s.User("jdoe"); u.Blocked {
		t.Fatal("blocked without the nonce")
	}
	r := c.post("/admin/users/2/block", url.Values{"_nonce": {nonce}})
	requireStatus(t, r, http.StatusSeeOther)
	if u, _ := s.User("jdoe"); !u.Blocked {
		t.Fatal("jdoe not blocked")
	}
	requireContains(t, c.get(r.location()).body, "User blocked.", "<td>Blocked</td>")
	requireContains(t, c.post("/admin/users/1/block", url.Values{"_nonce": {nonce}}).body, "You cannot block yourself.")

	// Delete: the link is a GET to a confirmation page, whose form posts.
	conf := c.get("/admin/users/3/delete")
	requireStatus(t, conf, http.StatusOK)
	requireContains(t, conf.body, "ID #3: msmith", "Confirm Deletion")
	if _, ok := s.User("msmith"); !ok {
		t.Fatal("the confirmation page deleted the user")
	}
	r = c.post("/admin/users/3/delete", url.Values{"_nonce": {formField(t, conf.body, "deleteuser", "_nonce")}})
	requireStatus(t, r, http.StatusSeeOther)
	if _, ok := s.User("msmith"); ok {
		t.Fatal("msmith not deleted")
	}
	requireStatus(t, c.get("/admin/users/3/edit"), http.StatusNotFound)
}

func TestEditUser(t *testing.T) {
	s, srv := newSite(t, Options{})
	c := newClient(t, srv.URL)
	c.login()
	page := c.get("/admin/users/2/edit")
	requireContains(t, page.body, `<option value="author" selected>Author</option>`, "Update User")
	r := c.post("/admin/users/2", url.Values{"_nonce": {formField(t, page.body, "edituser", "_nonce")},
		"email": {"jane@example.com"}, "first_name": {"Jane"}, "last_name": {"Doe"}, "role": {RoleEditor}})
	requireStatus(t, r, http.StatusSeeOther)
	if u, _ := s.User("jdoe"); u.Email != "jane@example.com" || u.Role != RoleEditor {
		t.Fatalf("jdoe = %+v", u)
	}
}

func TestSearchUsers(t *testing.T) {
	_, srv := newSite(t, Options{})
	c := newClient(t, srv.URL)
	c.login()
	r := c.get("/admin/users?s=JANE")
	requireContains(t, r.body, `data-username="jdoe"`, `name="s" value="JANE"`)
	requireLacks(t, r.body, `data-username="msmith"`, `data-username="admin"`)
	requireContains(t, c.get("/admin/users?s=nobody").body, "No users found.")
	r = c.get("/admin/users?role=subscriber")
	requireContains(t, r.body, `data-username="msmith"`)
	requireLacks(t, r.body, `data-username="jdoe"`)
}

func TestPostsAndSettings(t *testing.T) {
	s, srv := newSite(t, Options{})
	c := newClient(t, srv.URL)
	c.login()
	dash := c.get("/admin/")
	r := c.post("/admin/posts", url.Values{"_nonce": {formField(t, dash.body, "quick-draft", "_nonce")}, "status": {"draft"}, "post_title": {"Idea"}})
	requireStatus(t, r, http.StatusSeeOther)
	requireContains(t, c.get(r.location()).body, "Draft saved.", "<strong>Idea</strong>")
	set := c.get("/admin/settings")
	r = c.post("/admin/settings", url.Values{"_nonce": {formField(t, set.body, "settings", "_nonce")}, "blogname": {"My Site"}, "blogdescription": {""}})
	requireStatus(t, r, http.StatusSeeOther)
	requireContains(t, c.get(r.location()).body, "Settings saved.", `<a class="site-name" href="/admin/">My Site</a>`)
	if s.Count("POST", "/admin/") != 2 {
		t.Fatalf("writes: %+v", s.Writes())
	}
}

func TestNotFound(t *testing.T) {
	_, srv := newSite(t, Options{})
	c := newClient(t, srv.URL)
	requireStatus(t, c.get("/nope"), http.StatusNotFound)
	requireContains(t, c.get("/api/nope").body, `"error": "no such endpoint: GET /api/nope"`)
	requireStatus(t, c.get("/"), http.StatusFound)
	c.login()
	requireStatus(t, c.get("/admin/nope"), http.StatusNotFound)
	requireStatus(t, c.get("/admin/users/x/edit"), http.StatusNotFound)
}

func TestOptions(t *testing.T) {
	custom := Options{Username: "chief", Password: "s3cret", Users: []User{
		{Username: "chief", Email: "chief@example.com", Role: RoleAdministrator},
	}}
	s, srv := newSite(t, custom)
	if us := s.Users(); len(us) != 1 || us[0].ID != 1 || us[0].DisplayName != "chief" {
		t.Fatalf("users = %+v", us)
	}
	if _, err := s.Login("chief", "s3cret"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Login("chief", DefaultPassword); !errors.Is(err, ErrBadCredentials) {
		t.Fatalf("Login with the default password: %v", err)
	}
	requireStatus(t, newClient(t, srv.URL).get("/login"), http.StatusOK)

	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"login not a user", Options{Username: "nobody"}, `username "nobody" is not one of the users`},
		{"login not an administrator", Options{Username: "jdoe"}, `user "jdoe" has role author`},
		{"duplicate seed", Options{Users: append(DefaultUsers(), User{Username: "admin", Email: "x@example.com"})}, `users[3] ("admin"): This username is already registered.`},
		{"bad seed role", Options{Users: []User{{Username: "admin", Email: "a@example.com", Role: "root"}}}, "users[0]"},
		{"negative latency", Options{Latency: -time.Second}, "latency -1s is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.opts)
			if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New: %v, want ErrInvalidOptions with %q", err, tc.want)
			}
		})
	}
}

func TestLatency(t *testing.T) {
	s, srv := newSite(t, Options{Latency: 60 * time.Millisecond})
	c := newClient(t, srv.URL)
	start := time.Now()
	c.get("/login")
	if d := time.Since(start); d < 60*time.Millisecond {
		t.Fatalf("a page answered in %s with 60ms latency", d)
	}
	start = time.Now()
	c.get("/__test/writes")
	if d := time.Since(start); d >= 60*time.Millisecond {
		t.Fatalf("/__test/writes waited the latency (%s)", d)
	}
	_ = s
}
