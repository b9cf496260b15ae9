package dashboard

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/internal/httpguard"
)

// Server serves the dashboard over Stores. It is safe for concurrent use.
type Server struct {
	stores  Stores
	events  records
	files   artifactGetter // nil when there is no artifact store
	token   string
	poll    time.Duration
	browser browser.Options
	log     *slog.Logger
	replays chan struct{} // one replay at a time
	shots   rendered      // screenshots rendered by replay, on demand
	engine  http.Handler  // forwards to the engine (WithEngine); nil without
}

// New returns a server over st. It fails when st has neither an event log
// nor a bundle, or an option is invalid (ErrInvalidOption).
func New(st Stores, opts ...Option) (*Server, error) {
	s := &Server{stores: st, poll: 250 * time.Millisecond, log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		replays: make(chan struct{}, 1)}
	switch {
	case st.Bundle != nil:
		s.events, s.files = bundleRecords{st.Bundle}, newBundleFiles(st.Bundle)
	case st.Events != nil:
		s.events = st.Events
		if st.Artifacts != nil {
			s.files = st.Artifacts
		}
	default:
		return nil, fmt.Errorf("%w: no event log and no bundle", ErrInvalidOption)
	}
	for _, o := range opts {
		if err := o(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Handler returns the dashboard's HTTP handler: the UI at /, the API
// under /api/.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/runs", s.handleRuns)
	mux.HandleFunc("GET /api/runs/{id}", s.handleRun)
	mux.HandleFunc("GET /api/runs/{id}/stream", s.handleStream)
	mux.HandleFunc("GET /api/runs/{id}/timeline", s.handleTimeline)
	mux.HandleFunc("GET /api/runs/{id}/branches/{bid}", s.handleBranch)
	mux.HandleFunc("POST /api/runs/{id}/branches/{bid}/replay", s.handleReplay)
	mux.HandleFunc("GET /api/runs/{id}/branches/{bid}/steps/{n}/screenshot", s.handleStepShot)
	mux.HandleFunc("GET /api/artifacts/{digest}", s.handleArtifact)
	mux.HandleFunc("GET /api/ledger", s.handleLedger)
	mux.HandleFunc("GET /api/ledger/{id}/evidence/{name}", s.handleEvidence)
	mux.HandleFunc("GET /api/drift", s.handleDrift)
	mux.HandleFunc("GET /api/info", s.handleInfo)
	s.engineRoutes(mux)
	assets := assetHandler()
	mux.Handle("GET /{file}", assets)
	mux.Handle("GET /{$}", assets)
	return s.guard(mux)
}

// guard enforces the token, or without one a loopback Host (so a page on
// another site cannot reach the dashboard through DNS rebinding), and
// refuses cross-origin POSTs.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case s.token != "" && !httpguard.Authorized(r, s.token, true):
			w.Header().Set("WWW-Authenticate", `Bearer realm="multiverse"`)
			writeError(w, http.StatusUnauthorized, errors.New("a token is required: Authorization: Bearer TOKEN or ?token=TOKEN"))
			return
		case s.token == "" && !httpguard.LoopbackHost(r.Host):
			writeError(w, http.StatusForbidden, fmt.Errorf("host %q is not loopback", r.Host))
			return
		case r.Method != http.MethodGet && r.Method != http.MethodHead && !httpguard.SameOrigin(r):
			writeError(w, http.StatusForbidden, errors.New("cross-origin request refused"))
			return
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}

// CheckAddr checks a listen address: host:port with an IP or "localhost"
// as host. Without a token only a loopback host is accepted
// (ErrNonLoopback); an empty host means every interface.
func CheckAddr(addr, token string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("dashboard: address %q: %w", addr, err)
	}
	if port == "" {
		return fmt.Errorf("dashboard: address %q has no port", addr)
	}
	if token == "" && !httpguard.LoopbackHost(host) {
		return fmt.Errorf("%w: %s (give a token: --token-file, MULTIVERSE_TOKEN or --token; or listen on 127.0.0.1)", ErrNonLoopback, addr)
	}
	return nil
}

// writeJSON writes v as the JSON body of a 200 response.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	enc.Encode(v)
}

// apiError is the body of every error response.
type apiError struct {
	Error string `json:"error"`
}

func writeError(w http.ResponseWriter, code int, err error) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(apiError{Error: err.Error()})
}

// fail answers err: 404 for what the records do not hold, 500 otherwise
// (logged).
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, ErrNotFound) || errors.Is(err, eventlog.ErrRunNotFound) {
		writeError(w, http.StatusNotFound, err)
		return
	}
	s.log.Error("dashboard request failed", "path", r.URL.Path, "err", err)
	writeError(w, http.StatusInternalServerError, err)
}
