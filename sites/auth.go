package sites

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// Accounts: with Knobs.RequireLogin the checkout, the review page and
// orders need a logged-in session. The demo has one account; logging in
// (POST /login, or Vendor.Login) sets the session cookie, and a session
// ends after Knobs.SessionRequests requests when that is set.

// The demo account.
const (
	DemoEmail    = "buyer@nimbus.example"
	DemoPassword = "correct horse battery"
	// SessionCookie names the session cookie.
	SessionCookie = "mv_session"
)

// ErrBadCredentials: Login was given another email or password.
var ErrBadCredentials = errors.New("sites: that email and password do not match an account")

// loginBody is the login page model.
type loginBody struct {
	Next   string
	Failed bool
}

// needsLogin reports whether path is behind the login with RequireLogin.
func needsLogin(path string) bool {
	return path == "/checkout" || strings.HasPrefix(path, "/checkout/") || path == "/orders" || strings.HasPrefix(path, "/orders/")
}

// Login opens a session for the demo account and returns its token (the
// value of the SessionCookie).
func (v *Vendor) Login(email, password string) (string, error) {
	if !strings.EqualFold(strings.TrimSpace(email), DemoEmail) || password != DemoPassword {
		return "", ErrBadCredentials
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	token := hex.EncodeToString(b)
	v.sessMu.Lock()
	defer v.sessMu.Unlock()
	v.sessions[token] = 0
	return token, nil
}

// ExpireSessions ends every live session, as a site does after a restart
// or a password change: the next request behind the login goes to /login.
func (v *Vendor) ExpireSessions() {
	v.sessMu.Lock()
	defer v.sessMu.Unlock()
	clear(v.sessions)
}

// Sessions returns the tokens of the live sessions, sorted: what a test
// looks for where it must not be.
func (v *Vendor) Sessions() []string {
	v.sessMu.Lock()
	defer v.sessMu.Unlock()
	out := make([]string, 0, len(v.sessions))
	for t := range v.sessions {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// loggedIn reports whether r carries a live session, counting the request
// against it; a session past Knobs.SessionRequests ends.
func (v *Vendor) loggedIn(r *http.Request, k Knobs) bool {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return false
	}
	v.sessMu.Lock()
	defer v.sessMu.Unlock()
	n, ok := v.sessions[c.Value]
	if !ok {
		return false
	}
	if k.SessionRequests > 0 && n >= k.SessionRequests {
		delete(v.sessions, c.Value)
		return false
	}
	v.sessions[c.Value] = n + 1
	return true
}

// toLogin sends a visitor without a session to the login page, to come
// back where they were going.
func (v *Vendor) toLogin(w http.ResponseWriter, r *http.Request) {
	next := r.URL.Path
	if r.URL.RawQuery != "" {
		next += "?" + r.URL.RawQuery
	}
	if r.Method != http.MethodGet {
		next = "/pricing"
	}
	http.Redirect(w, r, "/login?next="+url.QueryEscape(next), http.StatusSeeOther)
}

// loginPage renders the login form.
func (v *Vendor) loginPage(w http.ResponseWriter, r *http.Request) {
	v.writePage(w, r, http.StatusOK, view{page: "login", title: "Log in", body: loginBody{Next: safeNext(r.URL.Query().Get("next"))}})
}

// loginPost checks the credentials, sets the session cookie and goes on
// to next; wrong ones show the form again with a notice (401).
func (v *Vendor) loginPost(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxOrderBodyLen)
	_ = r.ParseForm()
	next := safeNext(r.PostForm.Get("next"))
	token, err := v.Login(r.PostForm.Get("email"), r.PostForm.Get("password"))
	if err != nil {
		v.writePage(w, r, http.StatusUnauthorized, view{page: "login", title: "Log in", body: loginBody{Next: next, Failed: true}})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// safeNext keeps a redirect target on this site.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") {
		return "/"
	}
	return next
}
