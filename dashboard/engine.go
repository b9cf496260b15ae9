package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
)

// WithEngine lets the dashboard submit runs to the warm engine at addr
// (HOST:PORT or an http:// URL; orchestrator engine), sending token
// when it is not "". The dashboard forwards three requests of the
// engine's API, under the same paths, after its own checks (its token,
// a loopback Host, the same origin): POST /api/engine/runs (submit a
// task file on the engine's machine), GET /api/engine/runs/{id} (the
// run's state) and POST /api/engine/runs/{id}/cancel. Show the engine's
// data dir to follow a submitted run as it runs.
func WithEngine(addr, token string) Option {
	return func(s *Server) error {
		base := strings.TrimSuffix(addr, "/")
		if !strings.Contains(base, "://") {
			base = "http://" + base
		}
		u, err := url.Parse(base)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return fmt.Errorf("%w: engine address %q: want HOST:PORT or an http:// URL", ErrInvalidOption, addr)
		}
		s.engine = engineProxy(u, token, s)
		return nil
	}
}

// engineProxy forwards a request to the engine at u as the engine's own
// client would send it: none of the browser's credentials, cookies,
// origin or query (the dashboard's token), the engine's token instead.
func engineProxy(u *url.URL, token string, s *Server) http.Handler {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.URL.RawQuery = ""
			for _, h := range []string{"Authorization", "Cookie", "Origin", "Referer"} {
				pr.Out.Header.Del(h)
			}
			if token != "" {
				pr.Out.Header.Set("Authorization", "Bearer "+token)
			}
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			s.log.Warn("the engine does not answer", "engine", u.Host, "err", err)
			writeError(w, http.StatusBadGateway, fmt.Errorf("the engine at %s does not answer: %w", u.Host, err))
		},
	}
}

// engineRoutes adds the forwarded engine requests to mux, or answers
// them 404 naming the missing flag when there is no engine.
func (s *Server) engineRoutes(mux *http.ServeMux) {
	h := s.engine
	if h == nil {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			writeError(w, http.StatusNotFound, errors.New("no engine: start the dashboard with --engine ADDR to submit runs"))
		})
	}
	mux.Handle("POST /api/engine/runs", h)
	mux.Handle("GET /api/engine/runs/{id}", h)
	mux.Handle("POST /api/engine/runs/{id}/cancel", h)
}
