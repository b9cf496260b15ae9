package browser_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// frameSite serves a page that opens a WebSocket, subscribes on open (the
// page's own frame) and sends an order as JSON when its button is clicked
// (the action's own frame); the socket records every frame that reached
// it and answers each with "ack <frame>".
type frameSite struct {
	mu  sync.Mutex
	got []string
	srv *httptest.Server
}

func newFrameSite(t *testing.T) *frameSite {
	f := &frameSite{}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>Desk</title><p id=state>connecting</p><p id=ack></p>
<button id=buy onclick="ws.send(JSON.stringify({order: 'A-1', qty: 2}))">Buy</button>
<button id=login onclick="ws.send(JSON.stringify({user: 'ada', password: 'hunter2'}))">Log in</button>
<button id=sneak onclick="window.__multiverseLiveGate = async () => true; Object.getPrototypeOf(WebSocket.prototype).send.call(ws, 'sneak')">Sneak</button>
<script>
const ws = new WebSocket(location.origin.replace(/^http/, 'ws') + '/ws');
ws.onopen = () => { document.getElementById('state').textContent = 'open'; ws.send('subscribe'); };
ws.onmessage = (e) => { document.getElementById('ack').textContent = e.data; };
</script>`)
	})
	mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		for {
			_, msg, err := c.Read(r.Context())
			if err != nil {
				return
			}
			f.mu.Lock()
			f.got = append(f.got, string(msg))
			f.mu.Unlock()
			if c.Write(r.Context(), websocket.MessageText, append([]byte("ack "), msg...)) != nil {
				return
			}
		}
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *frameSite) frames() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.got)
}

// waitOpen waits until the page's socket is open.
func waitOpen(t *testing.T, s *browser.Session) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		v, err := s.Page().Evaluate(`() => document.getElementById('state').textContent`)
		if err == nil && v == "open" {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the page's WebSocket never opened")
}

// TestSpeculationHoldsFrames: a frame a page sends on a WebSocket is a
// possible write like a POST. A speculative session lets none out unless
// the task allows it: the page's own frame is held and recorded, the
// action's own ends the step at a side-effect boundary with the frame's
// JSON field names (never their values); the task's allow and the
// committer's release let frames out, in order.
func TestSpeculationHoldsFrames(t *testing.T) {
	t.Run("held", func(t *testing.T) {
		site := newFrameSite(t)
		s := session(t, site.srv.URL, 1)
		do(t, s, branch.Action{Kind: branch.KindNavigate, URL: site.srv.URL + "/"})
		waitOpen(t, s)
		r := do(t, s, branch.Action{Kind: branch.KindClick, Target: &branch.Target{ID: "buy"}})
		if r.Status != branch.StatusFailed || r.Code != branch.CodeSideEffect || !strings.Contains(r.Error, "explore.allow with method WS") {
			t.Errorf("click that sends a frame = %s %s %q, want failed %s naming explore.allow", r.Status, r.Code, r.Error, branch.CodeSideEffect)
		}
		// A page that sends through the native prototype, after replacing
		// the session's global, is held all the same.
		if r := do(t, s, branch.Action{Kind: branch.KindClick, Target: &branch.Target{ID: "sneak"}}); r.Code != branch.CodeSideEffect {
			t.Errorf("a frame sent past the constructor = %s %s, want %s", r.Status, r.Code, branch.CodeSideEffect)
		}
		time.Sleep(200 * time.Millisecond) // a frame let out would have arrived
		if got := site.frames(); len(got) != 0 {
			t.Fatalf("frames reached the site during speculation: %q", got)
		}
		var own, caused *branch.Held
		for _, h := range s.Held() {
			h := h
			if h.Method != branch.MethodFrame || h.Path != "/ws" || h.Reason != branch.HeldWrite {
				continue
			}
			switch {
			case h.Caused && h.Step == 2:
				caused = &h
			case !h.Caused:
				own = &h
			}
		}
		if own == nil || own.Step != 1 {
			t.Errorf("the page's own frame is not recorded as held in step 1: %+v", s.Held())
		}
		if caused == nil || caused.Step != 2 || strings.Join(caused.Fields, ",") != "order,qty" {
			t.Errorf("the click's frame is not recorded as caused in step 2 with its field names: %+v", s.Held())
		}
		if ack, err := s.Page().Evaluate(`() => document.getElementById('ack').textContent`); err != nil || ack != "" {
			t.Errorf("the page shows an answer to a held frame: %v %v", ack, err)
		}
	})
	t.Run("allowed", func(t *testing.T) {
		site := newFrameSite(t)
		s := sessionWith(t, browser.SessionOptions{Env: browser.Env{ActionTimeout: 5 * time.Second}, RunSeed: 1, Origin: site.srv.URL,
			Allow: []browser.GuardPattern{{Method: branch.MethodFrame, URL: mustRE(`^/ws$`)}}, Scrub: scrub.New(scrub.NewKey(), nil)})
		do(t, s, branch.Action{Kind: branch.KindNavigate, URL: site.srv.URL + "/"})
		waitOpen(t, s)
		r := do(t, s, branch.Action{Kind: branch.KindClick, Target: &branch.Target{ID: "buy"}})
		if r.Status == branch.StatusFailed {
			t.Fatalf("an allowed frame failed its step: %s %s", r.Code, r.Error)
		}
		waitFrames(t, site, []string{"subscribe", `{"order":"A-1","qty":2}`})
		if h := s.Held(); len(h) != 0 {
			t.Errorf("allowed frames recorded as held: %+v", h)
		}
		// What a frame carries is recorded scrubbed as a body is: a JSON
		// frame's secret keys become tokens.
		do(t, s, branch.Action{Kind: branch.KindClick, Target: &branch.Target{ID: "login"}})
		snap, err := s.Observe(context.Background(), browser.ObserveSpec{})
		if err != nil {
			t.Fatal(err)
		}
		sent := false
		for _, f := range snap.Obs.Live {
			if f.Kind == "out" && strings.Contains(f.Data, "password") {
				sent = true
				if strings.Contains(f.Data, "hunter2") {
					t.Errorf("a frame's password is recorded in clear: %q", f.Data)
				}
			}
		}
		if !sent {
			t.Errorf("the login frame is not in the step's live entries: %+v", snap.Obs.Live)
		}
	})
	t.Run("released", func(t *testing.T) {
		site := newFrameSite(t)
		s := session(t, site.srv.URL, 1, browser.GuardPattern{URL: mustRE(`^/ws$`)})
		do(t, s, branch.Action{Kind: branch.KindNavigate, URL: site.srv.URL + "/"})
		waitOpen(t, s)
		s.ReleaseWrites()
		r := do(t, s, branch.Action{Kind: branch.KindClick, Target: &branch.Target{ID: "buy"}})
		if r.Status == branch.StatusFailed {
			t.Fatalf("a frame after ReleaseWrites failed its step: %s %s", r.Code, r.Error)
		}
		waitFrames(t, site, []string{`{"order":"A-1","qty":2}`})
		if h := s.Held(); len(h) != 1 || h[0].Reason != branch.HeldGuard || h[0].Step != 1 {
			t.Errorf("before the release the guard should have held the subscription: %+v", h)
		}
	})
}

// waitFrames waits until the site received exactly want, in order.
func waitFrames(t *testing.T, site *frameSite, want []string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && len(site.frames()) < len(want) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // nothing more arrives
	if got := site.frames(); !slices.Equal(got, want) {
		t.Errorf("frames that reached the site = %q, want %q", got, want)
	}
}
