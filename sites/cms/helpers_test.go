package cms

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// newSite returns a fresh site with opts, served on a free port for the
// test's lifetime.
func newSite(t testing.TB, opts Options) (*Site, *httptest.Server) {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

// client is a browser stand-in: a cookie jar that does not follow
// redirects, so tests see each 302 and 303.
type client struct {
	t    testing.TB
	base string
	hc   *http.Client
}

func newClient(t testing.TB, base string) *client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &client{t: t, base: base, hc: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// resp is a response read in full.
type resp struct {
	status int
	header http.Header
	body   string
}

func (r resp) location() string { return r.header.Get("Location") }

func (c *client) do(method, path string, body io.Reader, ctype string) resp {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp{res.StatusCode, res.Header, string(b)}
}

func (c *client) get(path string) resp {
	c.t.Helper()
	return c.do(http.MethodGet, path, nil, "")
}

func (c *client) post(path string, form url.Values) resp {
	c.t.Helper()
	return c.do(http.MethodPost, path, strings.NewReader(form.Encode()), "application/x-www-form-urlencoded")
}

// login logs in with the default credentials through the login form.
func (c *client) login() {
	c.t.Helper()
	page := c.get("/login")
	r := c.post("/login", url.Values{"_csrf": {formField(c.t, page.body, "loginform", "_csrf")},
		"redirect_to": {"/admin/"}, "username": {DefaultUsername}, "password": {DefaultPassword}})
	requireStatus(c.t, r, http.StatusSeeOther)
}

// formField returns the value attribute of the input called name inside
// the form with id formID.
func formField(t testing.TB, body, formID, name string) string {
	t.Helper()
	i := strings.Index(body, `id="`+formID+`"`)
	if i < 0 {
		t.Fatalf("no form #%s in:\n%s", formID, body)
	}
	form := body[i:]
	if j := strings.Index(form, "</form>"); j >= 0 {
		form = form[:j]
	}
	m := regexp.MustCompile(`name="` + regexp.QuoteMeta(name) + `"[^>]*value="([^"]*)"`).FindStringSubmatch(form)
	if m == nil {
		t.Fatalf("form #%s has no field %s:\n%s", formID, name, form)
	}
	return m[1]
}

// newUserForm loads the create-user form and fills it for a user.
func (c *client) newUserForm(username, email, role string) url.Values {
	c.t.Helper()
	page := c.get("/admin/users/new")
	requireStatus(c.t, page, http.StatusOK)
	return url.Values{
		"action": {"createuser"}, "_nonce": {formField(c.t, page.body, "createuser", "_nonce")},
		"client_reference": {""}, "user_login": {username}, "email": {email},
		"first_name": {"First"}, "last_name": {"Last"}, "pass1": {""},
		"send_user_notification": {"1"}, "role": {role}, "createuser": {"Add New User"},
	}
}

func requireStatus(t testing.TB, r resp, want int) {
	t.Helper()
	if r.status != want {
		t.Fatalf("status = %d, want %d; Location %q; body:\n%s", r.status, want, r.location(), cut(r.body))
	}
}

func requireContains(t testing.TB, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Fatalf("body lacks %q; body:\n%s", w, cut(body))
		}
	}
}

func requireLacks(t testing.TB, body string, bad ...string) {
	t.Helper()
	for _, b := range bad {
		if strings.Contains(body, b) {
			t.Fatalf("body unexpectedly has %q; body:\n%s", b, cut(body))
		}
	}
}

// cut returns the <main> element of a page (or the start of the body).
func cut(body string) string {
	if i, j := strings.Index(body, "<main"), strings.Index(body, "</main>"); i >= 0 && j > i {
		return body[i:j]
	}
	if len(body) > 3000 {
		return body[:3000] + "…"
	}
	return body
}
