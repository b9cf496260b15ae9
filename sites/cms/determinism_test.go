package cms

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
)

// session runs a fixed sequence of requests on a fresh site, as a browser
// would (login, pages, a created user, a refusal, a heartbeat, a profile
// update, the APIs, a logout), and returns what each answered.
func session(t *testing.T) []string {
	t.Helper()
	_, srv := newSite(t, Options{})
	c := newClient(t, srv.URL)
	var out []string
	note := func(r resp) resp {
		out = append(out, fmt.Sprintf("%d %s %s\n%s", r.status, r.location(), r.header.Get("Set-Cookie"), r.body))
		return r
	}
	note(c.get("/admin/users/new"))
	login := note(c.get("/login?next=%2Fadmin%2Fusers%2Fnew"))
	csrf := formField(t, login.body, "loginform", "_csrf")
	note(c.post("/login", url.Values{"_csrf": {csrf}, "redirect_to": {"/admin/users/new"}, "username": {"admin"}, "password": {"wrong"}}))
	note(c.post("/login", url.Values{"_csrf": {csrf}, "redirect_to": {"/admin/users/new"}, "username": {"admin"}, "password": {DefaultPassword}}))
	note(c.get("/admin/"))
	form := note(c.get("/admin/users/new"))
	f := url.Values{"_nonce": {formField(t, form.body, "createuser", "_nonce")}, "client_reference": {"key-1"},
		"user_login": {"alice"}, "email": {"alice@example.com"}, "role": {RoleEditor}}
	created := note(c.post("/admin/users", f))
	note(c.get(created.location()))
	note(c.post("/admin/users", f)) // replay
	f.Set("client_reference", "")
	note(c.post("/admin/users", f)) // duplicate: a 200 refusal
	note(c.post("/api/heartbeat", url.Values{"interval": {"15"}}))
	prof := note(c.get("/admin/profile"))
	note(c.post("/admin/profile", url.Values{"_nonce": {formField(t, prof.body, "your-profile", "_nonce")}, "email": {"ada@example.com"}}))
	note(c.get("/admin/users?s=a"))
	note(c.get("/api/users"))
	note(c.get("/api/users?client_reference=key-1"))
	note(c.do(http.MethodPost, "/api/logout", nil, ""))
	note(c.get("/admin/"))
	note(c.get("/__test/writes"))
	return out
}

func TestDeterministicBodies(t *testing.T) {
	a, b := session(t), session(t)
	if len(a) != len(b) {
		t.Fatalf("%d and %d responses", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("response %d differs between two fresh sites:\n%s\n---\n%s", i, cut(a[i]), cut(b[i]))
		}
	}
}
