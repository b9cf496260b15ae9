package replay

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// proxy is the loopback HTTP proxy a strict replay (server) and a
// recorded world (World) serve through. It scrubs each request's URL and
// body as the capture did, asks answer for the recorded reply, and writes
// it back; a request answer returns nil for is refused: the connection is
// closed. HTTPS requests arrive through CONNECT tunnels the proxy
// terminates itself (see tunnels): it never dials out.
type proxy struct {
	sc *scrub.Scrubber
	// answer is called with the request's method, scrubbed URL and the
	// sha256 of its scrubbed body ("" without a body), in the order the
	// requests arrive; it keeps its own account of what it refused.
	answer  func(ctx context.Context, method, url, bodySHA string) *reply
	tunnels *tunnels
}

// reply is a recorded response as the proxy writes it back.
type reply struct {
	status int
	// header holds the recorded response headers, values of a repeated
	// header joined by "\n"; hop-by-hop ones are not written.
	header map[string]string
	body   []byte
}

// hopHeaders are not replayed: the proxy frames the body itself.
var hopHeaders = map[string]bool{"content-length": true, "content-encoding": true, "transfer-encoding": true,
	"connection": true, "keep-alive": true}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.tunnels.connect(w, r)
		return
	}
	raw := r.URL.String()
	if !r.URL.IsAbs() {
		scheme := "http://"
		if r.TLS != nil {
			scheme = "https://"
		}
		raw = scheme + r.Host + r.URL.RequestURI()
	}
	if r.URL.Path == "/favicon.ico" {
		http.NotFound(w, r) // the browser's own request, never recorded
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	bodySHA := ""
	if len(body) > 0 {
		bodySHA = sha256Hex(p.sc.Body(r.Header.Get("Content-Type"), body))
	}
	rep := p.answer(r.Context(), r.Method, p.sc.URL(raw), bodySHA)
	if rep == nil {
		hijackClose(w)
		return
	}
	names := make([]string, 0, len(rep.header))
	for k := range rep.header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !hopHeaders[strings.ToLower(k)] {
			for _, v := range strings.Split(rep.header[k], "\n") {
				w.Header().Add(k, v)
			}
		}
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(rep.body)))
	w.WriteHeader(rep.status)
	io.Copy(w, bytes.NewReader(rep.body))
}

func hijackClose(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if c, _, err := hj.Hijack(); err == nil {
			c.Close()
			return
		}
	}
	http.Error(w, "unrecorded request", http.StatusBadGateway)
}

// listen serves the proxy on a loopback port until close.
func (p *proxy) listen() (addr string, closeFn func(), err error) {
	if p.tunnels, err = newTunnels(p); err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		p.tunnels.close()
		return "", nil, err
	}
	hs := &http.Server{Handler: p}
	go hs.Serve(ln)
	return "http://" + ln.Addr().String(), func() { hs.Close(); p.tunnels.close() }, nil
}

// server is the strict replay proxy: it answers every request of the
// replayed browser with the bundle's recorded response of the same match
// key, and refuses any request the bundle does not hold, reporting it as
// a divergence.
type server struct {
	proxy
	b       *bundle.Bundle
	index   map[string]*bundle.Entry
	matcher *bundle.Matcher

	mu   sync.Mutex
	step int
	// stepped is closed (and replaced) whenever the step changes: a late
	// answer waits on it.
	stepped    chan struct{}
	served     int
	unrecorded []Unrecorded
}

// Unrecorded is a request the bundle holds no response for.
type Unrecorded struct {
	Step   int    `json:"step"`
	Method string `json:"method"`
	URL    string `json:"url"`
	// AtCapture says the recording holds the request without a response:
	// it failed or was blocked at capture too, so refusing it replays
	// what happened. Otherwise the request is new to the recording.
	AtCapture bool `json:"at_capture,omitempty"`
}

// newServer serves b's recorded responses; sc scrubs the requests the
// page sends to match them (the session's scrubber).
func newServer(b *bundle.Bundle, sc *scrub.Scrubber) *server {
	s := &server{b: b, index: b.Index(), matcher: bundle.NewMatcher(b.Manifest.Origin), stepped: make(chan struct{})}
	s.proxy = proxy{sc: sc, answer: s.answer}
	return s
}

func (s *server) setStep(n int) {
	s.mu.Lock()
	s.step = n
	close(s.stepped)
	s.stepped = make(chan struct{})
	s.mu.Unlock()
}

// after waits until the replay is past step, or ctx ends.
func (s *server) after(ctx context.Context, step int) bool {
	for {
		s.mu.Lock()
		cur, ch := s.step, s.stepped
		s.mu.Unlock()
		if cur > step {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-ch:
		}
	}
}

// answer is the recorded response of the request's match key, or nil
// (refused, and listed as unrecorded at the current step).
func (s *server) answer(ctx context.Context, method, url, bodySHA string) *reply {
	e := s.index[s.matcher.Next(method, url, bodySHA)]
	if e != nil && pending(*e) {
		// Still waiting for its answer when the capture's step ended (the
		// slow request of a slow step): it waits here too, until the page
		// gives up on it or the replay ends.
		<-ctx.Done()
		return nil
	}
	if e != nil && e.Late && !s.after(ctx, e.Step) {
		// Answered after its step was observed: not before the next step.
		return nil
	}
	s.mu.Lock()
	if e == nil || e.Blocked || e.Error != "" {
		s.unrecorded = append(s.unrecorded, Unrecorded{Step: s.step, Method: method, URL: url, AtCapture: e != nil})
		s.mu.Unlock()
		return nil
	}
	s.served++
	s.mu.Unlock()
	var out []byte
	if e.BodySHA256 != "" {
		out, _ = s.b.Body(e.BodySHA256)
	}
	return &reply{status: e.Status, header: e.ResponseHeaders, body: out}
}

// pending reports a recorded request that had no answer yet when its
// step was recorded: no status, no error, not blocked.
func pending(e bundle.Entry) bool { return e.Status == 0 && e.Error == "" && !e.Blocked }

func (s *server) report() (served int, unrecorded []Unrecorded) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.served, append([]Unrecorded(nil), s.unrecorded...)
}
