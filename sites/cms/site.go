package cms

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Default credentials of the administrator account.
const (
	DefaultUsername = "admin"
	DefaultPassword = "inkwell-test-pass"
	// SessionCookie names the session cookie (HttpOnly, path /).
	SessionCookie = "inkwell_session"
)

// ErrInvalidOptions: New was given options it cannot serve.
var ErrInvalidOptions = errors.New("cms: invalid options")

// Options configures [New]. The zero value is a site with the default
// administrator (DefaultUsername / DefaultPassword), the default seed users
// and posts, and no latency.
type Options struct {
	// Username and Password are the credentials that log in; "" means the
	// default. Username must be one of Users and have the administrator
	// role.
	Username, Password string
	// Users are the seed users; nil means DefaultUsers(). IDs are assigned
	// in order from 1; any ID, Seq or ClientReference given is ignored.
	Users []User
	// Latency delays every response except those under /__test/ (cut
	// short when the request's context ends).
	Latency time.Duration
}

// Site is the Inkwell CMS, an [http.Handler]. Safe for concurrent use.
type Site struct {
	username, password string
	latency            time.Duration
	tmpl               *renderer
	mux                *http.ServeMux

	mu         sync.Mutex
	counter    uint64            // source of every session token and nonce
	nonces     map[string]string // issued nonce -> action
	sessions   map[string]string // session token -> username
	loggedOut  int               // sessions ended by a logout request
	users      []*User           // in ID order
	nextUserID int
	created    int              // users created through the site
	refs       map[string]*User // client_reference -> user it created
	posts      []*Post
	settings   Settings
	beats      int
	writes     []Write
}

var _ http.Handler = (*Site)(nil)

// New validates opts and returns a fresh site. Errors wrap
// [ErrInvalidOptions].
func New(opts Options) (*Site, error) {
	if opts.Latency < 0 {
		return nil, fmt.Errorf("%w: latency %s is negative", ErrInvalidOptions, opts.Latency)
	}
	s := &Site{
		username: opts.Username, password: opts.Password, latency: opts.Latency,
		nonces: map[string]string{}, sessions: map[string]string{}, refs: map[string]*User{},
		settings: defaultSettings(),
	}
	if s.username == "" {
		s.username = DefaultUsername
	}
	if s.password == "" {
		s.password = DefaultPassword
	}
	seeds := opts.Users
	if seeds == nil {
		seeds = DefaultUsers()
	}
	for i, u := range seeds {
		u.ID, u.Seq, u.ClientReference = 0, 0, ""
		if u.Role == "" {
			u.Role = RoleSubscriber
		}
		if msg := s.checkNew(&u); msg != "" {
			return nil, fmt.Errorf("%w: users[%d] (%q): %s", ErrInvalidOptions, i, u.Username, msg)
		}
		s.add(u)
	}
	admin := s.userByName(s.username)
	if admin == nil {
		return nil, fmt.Errorf("%w: username %q is not one of the users", ErrInvalidOptions, s.username)
	}
	if admin.Role != RoleAdministrator {
		return nil, fmt.Errorf("%w: user %q has role %s, the login needs %s", ErrInvalidOptions, s.username, admin.Role, RoleAdministrator)
	}
	s.posts = defaultPosts(s.username)
	rd, err := newRenderer()
	if err != nil {
		return nil, err
	}
	s.tmpl = rd
	s.mux = s.routes()
	return s, nil
}

// testPrefix is exempt from latency and from the write record.
const testPrefix = "/__test/"

// ServeHTTP records every state-changing request (see [Site.Writes]),
// waits the latency, then routes.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, testPrefix) {
		s.mux.ServeHTTP(w, r)
		return
	}
	if isWrite(r.Method) {
		sw := &statusWriter{ResponseWriter: w}
		i := s.recordWrite(r)
		defer func() { s.finishWrite(i, sw.status, r) }()
		w = sw
	}
	if s.latency > 0 && !sleep(r.Context(), s.latency) {
		return
	}
	s.mux.ServeHTTP(w, r)
}

// routes builds the router. Method patterns answer 405 with an Allow
// header for a known path and another method.
func (s *Site) routes() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/admin/", http.StatusFound) })
	m.HandleFunc("GET /login", s.loginPage)
	m.HandleFunc("POST /login", s.loginPost)

	m.HandleFunc("GET /admin/{$}", s.admin(s.dashboard))
	m.HandleFunc("GET /admin", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/admin/", http.StatusMovedPermanently)
	})
	m.HandleFunc("GET /admin/profile", s.admin(s.profilePage))
	m.HandleFunc("POST /admin/profile", s.admin(s.profilePost))
	m.HandleFunc("GET /admin/users", s.admin(s.usersPage))
	m.HandleFunc("POST /admin/users", s.admin(s.createUser))
	m.HandleFunc("GET /admin/users/new", s.admin(s.newUserPage))
	m.HandleFunc("GET /admin/users/{id}/edit", s.admin(s.editUserPage))
	m.HandleFunc("POST /admin/users/{id}", s.admin(s.updateUser))
	m.HandleFunc("POST /admin/users/{id}/block", s.admin(s.blockUser))
	m.HandleFunc("GET /admin/users/{id}/delete", s.admin(s.deleteUserPage))
	m.HandleFunc("POST /admin/users/{id}/delete", s.admin(s.deleteUser))
	m.HandleFunc("GET /admin/posts", s.admin(s.postsPage))
	m.HandleFunc("POST /admin/posts", s.admin(s.createPost))
	m.HandleFunc("GET /admin/posts/new", s.admin(s.newPostPage))
	m.HandleFunc("GET /admin/settings", s.admin(s.settingsPage))
	m.HandleFunc("POST /admin/settings", s.admin(s.settingsPost))
	m.HandleFunc("/admin/", s.admin(s.adminNotFound))

	m.HandleFunc("GET /api/users", s.apiUsers)
	m.HandleFunc("POST /api/heartbeat", s.apiHeartbeat)
	m.HandleFunc("POST /api/logout", s.apiLogout)
	m.HandleFunc("DELETE /api/session", s.apiLogout)
	m.HandleFunc("/api/", s.apiNotFound)

	m.HandleFunc("GET /__test/writes", s.testWrites)
	m.HandleFunc("/", s.notFound)
	return m
}

// sleep waits d or until ctx ends; it reports whether d elapsed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// secret keys the derivation of session tokens and nonces. The site is a
// test fixture: its values must be the same on every run, not unguessable.
var secret = []byte("inkwell-cms-test-site")

// nextToken returns a fresh value for kind, derived from the site's
// counter: different on every call, the same sequence on every fresh site.
// The caller holds s.mu.
func (s *Site) nextToken(kind string, size int) string {
	s.counter++
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(kind + ":" + strconv.FormatUint(s.counter, 10)))
	return hex.EncodeToString(mac.Sum(nil))[:size]
}

// issueNonce returns a new nonce valid for action.
func (s *Site) issueNonce(action string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.nextToken("nonce", 10)
	s.nonces[n] = action
	return n
}

// validNonce reports whether n was issued for action. A nonce stays valid
// for repeated submissions of the same page, as a CMS's time-window nonces
// do; one issued for another form is refused.
func (s *Site) validNonce(n, action string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return n != "" && s.nonces[n] == action
}
