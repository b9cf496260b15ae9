package patterns

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"html"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// Credentials that log in.
const (
	Username = "ada"
	Password = "patterns-test-pass"
	// UserID is the short user id the uid cookie holds.
	UserID = "1"
)

// Options configure New. The zero value answers /api/reports after 1.5 s.
type Options struct {
	// Slow is how long /api/reports takes; 0 means 1.5 s.
	Slow time.Duration
}

// Site is the patterns site, an [http.Handler]. Safe for concurrent use.
type Site struct {
	mux   *http.ServeMux
	slow  time.Duration
	loads atomic.Int64 // loads of /twice
	forms forms        // the wizard's form tokens
	// slowRoute is the way of /routes whose Continue takes RouteSlow
	// (the other takes RouteQuick).
	slowRoute atomic.Value
}

// The two ways of /routes, and how long each one's Continue takes.
const (
	RouteStandard = "standard"
	RouteExpress  = "express"
	RouteSlow     = 2 * time.Second
	RouteQuick    = 100 * time.Millisecond
)

// SetSlowRoute makes way's Continue on /routes the slow one (RouteSlow)
// and the other way's the quick one; RouteStandard is slow until set.
func (s *Site) SetSlowRoute(way string) { s.slowRoute.Store(way) }

// New returns a site.
func New(o Options) *Site {
	s := &Site{mux: http.NewServeMux(), slow: o.Slow}
	if s.slow == 0 {
		s.slow = 1500 * time.Millisecond
	}
	m := s.mux
	m.HandleFunc("GET /login", s.loginForm)
	m.HandleFunc("POST /login", s.login)
	m.HandleFunc("GET /welcome", s.page(welcomeTitle, welcomeBody))
	m.HandleFunc("GET /app", s.app)
	m.HandleFunc("GET /mod/{name}", s.module)
	m.HandleFunc("GET /twice", s.twice)
	m.HandleFunc("GET /twice/data", s.twiceData)
	m.HandleFunc("GET /wizard", s.wizard)
	m.HandleFunc("GET /wizard/details", s.wizardDetails)
	m.HandleFunc("GET /wizard/done", s.wizardDone)
	m.HandleFunc("GET /form", s.page("Newsletter", formBody))
	m.HandleFunc("GET /form/thanks", s.thanks)
	m.HandleFunc("GET /live", s.page("Market", liveBody))
	m.HandleFunc("GET /live/ws", s.feed)
	m.HandleFunc("GET /live/events", s.events)
	m.HandleFunc("GET /console", s.page("Widgets", consoleBody))
	m.HandleFunc("GET /spa", s.page("Dashboard", spaBody))
	m.HandleFunc("GET /spa/{view}", s.page("Dashboard", spaBody))
	m.HandleFunc("GET /api/reports", s.reports)
	m.HandleFunc("GET /below", s.page("Terms", belowBody))
	m.HandleFunc("GET /routes", s.page("Checkout", routesBody))
	m.HandleFunc("GET /routes/review", s.page("Review", reviewBody))
	m.HandleFunc("GET /routes/{way}", s.route)
	m.HandleFunc("GET /routes/{way}/continue", s.routeContinue)
	s.slowRoute.Store(RouteStandard)
	return s
}

// ServeHTTP implements http.Handler.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// layout is every page: a header whose logo, at the top-left corner,
// changes when the pointer rests on it and opens a menu.
const layout = `<!doctype html><html><head><meta charset="utf-8"><title>%s</title><style>
body{margin:0;font:16px sans-serif}
header{position:relative;height:40px;background:#eee}
.logo{position:absolute;left:0;top:0;width:120px;height:40px;display:block;background:#ddd}
.logo:hover{background:#fc0;outline:3px solid #c90}
.menu{display:none;position:absolute;left:0;top:40px;background:#fff;border:1px solid #999}
header:hover .menu{display:block}
main{padding:12px}
</style></head><body><header><a class="logo" href="/below">Patterns</a><nav class="menu"><a href="/form">Newsletter</a></nav></header>
<main>%s</main></body></html>`

func render(w http.ResponseWriter, title, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, layout, html.EscapeString(title), body)
}

func (s *Site) page(title, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { render(w, title, body) }
}

const loginBody = `<h1>Sign in</h1><form id="loginform" method="post" action="/login">
<label>Username <input name="username" autocomplete="username"></label>
<label>Password <input name="password" type="password"></label>
<button type="submit">Sign in</button></form>%s`

func (s *Site) loginForm(w http.ResponseWriter, r *http.Request) {
	render(w, "Sign in", fmt.Sprintf(loginBody, ""))
}

func (s *Site) login(w http.ResponseWriter, r *http.Request) {
	if r.FormValue("username") != Username || r.FormValue("password") != Password {
		render(w, "Sign in", fmt.Sprintf(loginBody, `<p role="alert">Wrong username or password.</p>`))
		return
	}
	var b [16]byte
	rand.Read(b[:])
	http.SetCookie(w, &http.Cookie{Name: "sid", Value: hex.EncodeToString(b[:]), Path: "/", HttpOnly: true})
	http.SetCookie(w, &http.Cookie{Name: "uid", Value: UserID, Path: "/"})
	http.Redirect(w, r, "/welcome", http.StatusSeeOther)
}

const welcomeTitle = "Welcome"

// welcomeBody caches two of the app's modules, as a script loader that
// keeps modules in local storage does on the first page after a login.
const welcomeBody = `<h1>Welcome back</h1><p><a href="/app">Open the app</a></p>
<script>
localStorage.setItem('mod:a', "window.mods.push('Module a ready')");
localStorage.setItem('mod:b', "window.mods.push('Module b ready')");
</script>`

func signedIn(r *http.Request) bool {
	c, err := r.Cookie("sid")
	return err == nil && len(c.Value) == 32
}

// appBody loads modules a to d: the cached ones from local storage, the
// others fetched concurrently (and cached). The user id comes from the
// server and from the page's own cookie.
const appBody = `<h1>App</h1><p id="who">Signed in as user %s</p><p id="cookie"></p>
<ul id="mods"></ul><button type="button" id="count">Count modules</button><p id="out"></p>
<script>
window.mods = [];
document.getElementById('cookie').textContent = 'cookie ' + document.cookie.split('; ').filter(c => c.startsWith('uid=')).join('');
const names = ['a', 'b', 'c', 'd'];
const missing = names.filter(n => !localStorage.getItem('mod:' + n));
Promise.all(missing.map(n => fetch('/mod/' + n + '.js').then(r => r.text()).then(t => localStorage.setItem('mod:' + n, t))))
  .then(() => {
    for (const n of names) { (0, eval)(localStorage.getItem('mod:' + n)); }
    window.mods.sort();
    const ul = document.getElementById('mods');
    for (const m of window.mods) { const li = document.createElement('li'); li.textContent = m; ul.append(li); }
  });
document.getElementById('count').onclick = () => {
  document.getElementById('out').textContent = window.mods.length + ' modules loaded';
};
</script>`

func (s *Site) app(w http.ResponseWriter, r *http.Request) {
	if !signedIn(r) {
		http.Redirect(w, r, "/login", http.StatusFound)
		return
	}
	uid := ""
	if c, err := r.Cookie("uid"); err == nil {
		uid = c.Value
	}
	render(w, "App", fmt.Sprintf(appBody, html.EscapeString(uid)))
}

func (s *Site) module(w http.ResponseWriter, r *http.Request) {
	n := strings.TrimSuffix(r.PathValue("name"), ".js")
	if len(n) != 1 || n[0] < 'a' || n[0] > 'd' {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/javascript")
	fmt.Fprintf(w, "window.mods.push('Module %s ready')", n)
}

// twiceBody fetches its data, then reloads the page once (as a page
// that finds its session refreshed reloads itself): two loads in one
// step, each with its own response and its own data.
const twiceBody = `<h1>Visits</h1><p id="load">Load %d</p><p id="data"></p>
<button type="button" id="done">Done</button><p id="out"></p>
<script>
fetch('/twice/data').then(r => r.text()).then(t => {
  document.getElementById('data').textContent = t;
  if (!sessionStorage.getItem('again')) { sessionStorage.setItem('again', '1'); location.reload(); }
});
document.getElementById('done').onclick = () => { document.getElementById('out').textContent = 'Finished'; };
</script>`

func (s *Site) twice(w http.ResponseWriter, r *http.Request) {
	render(w, "Visits", fmt.Sprintf(twiceBody, s.loads.Add(1)))
}

func (s *Site) twiceData(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "Data of load %d", s.loads.Load())
}

const formBody = `<h1>Newsletter</h1><form action="/form/thanks" method="get">
<label>Full name <input name="fullname"></label>
<label>Email <input name="email" type="email"></label>
<button type="submit">Subscribe</button></form>`

func (s *Site) thanks(w http.ResponseWriter, r *http.Request) {
	render(w, "Thanks", fmt.Sprintf(`<h1>Thanks</h1><p id="msg">Thanks, %s. We will write to %s.</p>`,
		html.EscapeString(r.FormValue("fullname")), html.EscapeString(r.FormValue("email"))))
}

// liveBody renders a WebSocket feed and an EventSource stream; its button
// sends a frame and shows the answer.
const liveBody = `<h1>Market</h1><ul id="prices"></ul><ul id="news"></ul>
<button type="button" id="ping">Ping</button><p id="pong"></p>
<script>
const ws = new WebSocket(location.origin.replace(/^http/, 'ws') + '/live/ws');
ws.onopen = () => ws.send('subscribe prices');
ws.onmessage = (e) => {
  if (e.data.startsWith('echo ')) { document.getElementById('pong').textContent = e.data; return; }
  const li = document.createElement('li'); li.textContent = e.data; document.getElementById('prices').append(li);
};
document.getElementById('ping').onclick = () => ws.send('ping');
const es = new EventSource('/live/events');
es.addEventListener('headline', (e) => {
  const li = document.createElement('li'); li.textContent = e.data; document.getElementById('news').append(li);
});
es.onmessage = (e) => { document.getElementById('news').dataset.last = e.data; };
</script>`

// feed sends three prices once the page subscribes, then echoes what the
// page sends.
func (s *Site) feed(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	ctx := r.Context()
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			return
		}
		if string(msg) == "subscribe prices" {
			for _, p := range []string{"ACME 101.5", "INIT 7.25", "ZETA 42.0"} {
				if c.Write(ctx, websocket.MessageText, []byte(p)) != nil {
					return
				}
			}
			continue
		}
		if c.Write(ctx, websocket.MessageText, append([]byte("echo "), msg...)) != nil {
			return
		}
	}
}

// events streams two events and keeps the stream open.
func (s *Site) events(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fmt.Fprint(w, "event: headline\ndata: Markets open higher\n\ndata: tick 1\n\nevent: headline\ndata: Rates unchanged\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	select {
	case <-r.Context().Done():
	case <-time.After(time.Minute):
	}
}

const consoleBody = `<h1>Widgets</h1><p id="state">Loading widgets</p><button type="button" id="go">Continue</button><p id="out"></p>
<script>console.error('widget config missing: using defaults'); console.warn('deprecated API used');</script>
<script>document.getElementById('state').textContent = 'Widgets ready'; throw new Error('widget 3 failed to render');</script>
<script>
document.getElementById('go').onclick = () => {
  console.error('analytics blocked');
  document.getElementById('out').textContent = 'Continued';
  null.boom;
};
</script>`

// spaBody is a single-page app: the Reports link changes the address
// with history.pushState and loads its data from a slow API.
const spaBody = `<h1>Dashboard</h1><nav><a href="/spa/reports" id="reports">Reports</a></nav><section id="view">Home</section>
<script>
document.getElementById('reports').onclick = (e) => {
  e.preventDefault();
  history.pushState({}, '', '/spa/reports');
  document.getElementById('view').textContent = 'Loading reports';
  fetch('/api/reports').then(r => r.json()).then(d => {
    document.getElementById('view').innerHTML = '<h2>Reports</h2><p id="total">' + d.count + ' reports</p>';
  });
};
</script>`

func (s *Site) reports(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
		return
	case <-time.After(s.slow):
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, `{"count": 12}`)
}

const belowBody = `<h1>Terms</h1><p>Read the terms below.</p><div style="height:2400px"></div>
<p>By confirming you accept the terms.</p><button type="button" id="confirm">Confirm</button><p id="out"></p>
<script>document.getElementById('confirm').onclick = () => { document.getElementById('out').textContent = 'Confirmed'; };</script>`

// routesBody is a checkout that offers two equal ways on (a standard and
// an express form, say, backed by services of different speed): each has
// a Continue to the same review, one answering in RouteSlow, the other in
// RouteQuick.
const routesBody = `<h1>Checkout</h1><p>Choose how to go on.</p>
<ul><li><a href="/routes/standard">Standard checkout</a></li><li><a href="/routes/express">Express checkout</a></li></ul>`

const reviewBody = `<h1>Review your order</h1><p id="status">Ready to review</p>`

func (s *Site) route(w http.ResponseWriter, r *http.Request) {
	way := r.PathValue("way")
	if way != RouteStandard && way != RouteExpress {
		http.NotFound(w, r)
		return
	}
	render(w, "Checkout", fmt.Sprintf(`<h1>%s checkout</h1><p>Your details are on file.</p>
<a data-testid="continue" href="/routes/%s/continue">Continue</a>`, strings.ToUpper(way[:1])+way[1:], way))
}

func (s *Site) routeContinue(w http.ResponseWriter, r *http.Request) {
	way := r.PathValue("way")
	if way != RouteStandard && way != RouteExpress {
		http.NotFound(w, r)
		return
	}
	d := RouteQuick
	if way == s.slowRoute.Load().(string) {
		d = RouteSlow
	}
	select {
	case <-time.After(d):
	case <-r.Context().Done():
		return
	}
	http.Redirect(w, r, "/routes/review", http.StatusSeeOther)
}
