package replay

import (
	"bytes"
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

// server is the replay proxy: it answers every request of the replayed
// browser with the recorded response of the same match key, and refuses
// (closes the connection on) any request the bundle does not hold,
// reporting it as a divergence. HTTPS requests arrive through CONNECT
// tunnels the proxy terminates itself (see tunnels): it never dials out.
type server struct {
	b       *bundle.Bundle
	index   map[string]*bundle.Entry
	matcher *bundle.Matcher
	sc      *scrub.Scrubber
	tunnels *tunnels

	mu         sync.Mutex
	step       int
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

func newServer(b *bundle.Bundle) *server {
	return &server{b: b, index: b.Index(), matcher: bundle.NewMatcher(b.Manifest.Origin), sc: scrub.New(scrub.NewKey(), nil)}
}

func (s *server) setStep(n int) {
	s.mu.Lock()
	s.step = n
	s.mu.Unlock()
}

// hopHeaders are not replayed: the proxy frames the body itself.
var hopHeaders = map[string]bool{"content-length": true, "content-encoding": true, "transfer-encoding": true,
	"connection": true, "keep-alive": true}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		s.tunnels.connect(w, r)
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
		bodySHA = sha256Hex(s.sc.Body(r.Header.Get("Content-Type"), body))
	}
	key := s.matcher.Next(r.Method, s.sc.URL(raw), bodySHA)
	e := s.index[key]
	s.mu.Lock()
	step := s.step
	if e == nil || e.Blocked || e.Error != "" {
		s.unrecorded = append(s.unrecorded, Unrecorded{Step: step, Method: r.Method, URL: s.sc.URL(raw), AtCapture: e != nil})
		s.mu.Unlock()
		hijackClose(w)
		return
	}
	s.served++
	s.mu.Unlock()
	names := make([]string, 0, len(e.ResponseHeaders))
	for k := range e.ResponseHeaders {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !hopHeaders[strings.ToLower(k)] {
			for _, v := range strings.Split(e.ResponseHeaders[k], "\n") {
				w.Header().Add(k, v)
			}
		}
	}
	var out []byte
	if e.BodySHA256 != "" {
		out, _ = s.b.Body(e.BodySHA256)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(e.Status)
	io.Copy(w, bytes.NewReader(out))
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

func (s *server) report() (served int, unrecorded []Unrecorded) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.served, append([]Unrecorded(nil), s.unrecorded...)
}

// listen serves the proxy on a loopback port until close.
func (s *server) listen() (addr string, closeFn func(), err error) {
	if s.tunnels, err = newTunnels(s); err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.tunnels.close()
		return "", nil, err
	}
	hs := &http.Server{Handler: s}
	go hs.Serve(ln)
	return "http://" + ln.Addr().String(), func() { hs.Close(); s.tunnels.close() }, nil
}
