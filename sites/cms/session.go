package cms

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// ErrBadCredentials: Login was given another username or password.
var ErrBadCredentials = errors.New("cms: the username or password is incorrect")

// maxFormBytes bounds a form body.
const maxFormBytes = 64 << 10

// Login opens a session for the administrator as POST /login does and
// returns its token, the value of the SessionCookie. login is the
// username or the administrator's e-mail address.
func (s *Site) Login(login, password string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.userByName(login)
	if u == nil {
		u = s.userByEmail(login)
	}
	if u == nil || !strings.EqualFold(u.Username, s.username) || password != s.password {
		return "", ErrBadCredentials
	}
	token := s.nextToken("session", 32)
	s.sessions[token] = u.Username
	return token, nil
}

// currentUser returns the user whose live session r carries.
func (s *Site) currentUser(r *http.Request) (User, bool) {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return User{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	name, ok := s.sessions[c.Value]
	if !ok {
		return User{}, false
	}
	u := s.userByName(name)
	if u == nil {
		return User{}, false
	}
	return *u, true
}

// endSession ends the session r carries; it reports whether there was one.
func (s *Site) endSession(r *http.Request) bool {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.sessions[c.Value]; !ok {
		return false
	}
	delete(s.sessions, c.Value)
	s.loggedOut++
	return true
}

// adminHandler serves an admin page for the logged-in user.
type adminHandler func(w http.ResponseWriter, r *http.Request, me User)

// admin puts h behind the login: a request without a live session goes
// to /login (302), to come back where it was going.
func (s *Site) admin(h adminHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		me, ok := s.currentUser(r)
		if !ok {
			next := "/admin/"
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				next = r.URL.Path
				if r.URL.RawQuery != "" {
					next += "?" + r.URL.RawQuery
				}
			}
			http.Redirect(w, r, "/login?next="+url.QueryEscape(next), http.StatusFound)
			return
		}
		h(w, r, me)
	}
}

// loginBody is the login page's model.
type loginBody struct {
	Nonce, Next, Username string
	Error, Message        string
}

// loginPage is GET /login.
func (s *Site) loginPage(w http.ResponseWriter, r *http.Request) {
	b := loginBody{Next: safeNext(r.URL.Query().Get("next"))}
	if r.URL.Query().Get("loggedout") == "true" {
		b.Message = "You are now logged out."
	}
	s.renderLogin(w, b)
}

// renderLogin renders the login form with a fresh CSRF token.
func (s *Site) renderLogin(w http.ResponseWriter, b loginBody) {
	b.Nonce = s.issueNonce("login")
	s.writePage(w, http.StatusOK, "login", page{Title: "Log In", Body: b})
}

// loginPost is POST /login: the right credentials set the session cookie
// and go to next (303); wrong ones, or a form whose token the site did not
// issue, show the form again with an error notice (200).
func (s *Site) loginPost(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	_ = r.ParseForm()
	f := r.PostForm
	b := loginBody{Next: safeNext(f.Get("redirect_to")), Username: f.Get("username")}
	if !s.validNonce(f.Get("_csrf"), "login") {
		b.Error = "This login form has expired. Please try again."
		s.renderLogin(w, b)
		return
	}
	token, err := s.Login(strings.TrimSpace(f.Get("username")), f.Get("password"))
	if err != nil {
		b.Error = "The username or password you entered is incorrect."
		s.renderLogin(w, b)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, b.Next, http.StatusSeeOther)
}

// safeNext keeps a redirect target on this site, under /admin/ by default.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/admin/"
	}
	return next
}

// apiLogout is POST /api/logout and DELETE /api/session: it ends the
// session the request carries, if any, and clears the cookie.
func (s *Site) apiLogout(w http.ResponseWriter, r *http.Request) {
	ended := s.endSession(r)
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	writeJSON(w, http.StatusOK, struct {
		LoggedOut bool   `json:"logged_out"`
		Redirect  string `json:"redirect"`
	}{ended, "/login?loggedout=true"})
}
