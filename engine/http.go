package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/multiverse-orchestrator/multiverse/internal/httpguard"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// maxRequest bounds a submitted request's body.
const maxRequest = 1 << 20

// Handler serves the engine's API:
//
//	POST /api/engine/runs              submit a Request (JSON): 202 and the Report (queued)
//	GET  /api/engine/runs/{id}         the run's Report (404 when unknown)
//	POST /api/engine/runs/{id}/cancel  cancel the run: the Report as it stands
//	GET  /api/engine/runs/{id}/watch   NDJSON, a Message at each change, the last one the ended
//	                                   run's report; for a run that already ended, its Report as JSON
//	GET  /api/engine/health            the engine's data dir
//
// With a token, every request needs it (Authorization: Bearer TOKEN);
// without one, only a loopback Host is answered (a page of another site
// cannot reach the engine through DNS rebinding). A request that is not a
// GET must be JSON from the same origin: a page of another site can
// neither post a form to the engine nor send it JSON without a CORS
// preflight, which the engine never answers.
func (e *Engine) Handler(token string) http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("POST /api/engine/runs", e.serveSubmit)
	m.HandleFunc("GET /api/engine/runs/{id}", e.serveStatus)
	m.HandleFunc("POST /api/engine/runs/{id}/cancel", e.serveCancel)
	m.HandleFunc("GET /api/engine/runs/{id}/watch", e.serveWatch)
	m.HandleFunc("GET /api/engine/health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"data_dir": e.dd, "nats": e.nats.ClientURL()})
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case token != "" && !httpguard.Authorized(r, token, false):
			writeJSON(w, http.StatusUnauthorized, errorBody{Error: "this engine needs its token (Authorization: Bearer TOKEN)", Code: orchestrator.ExitBadInput})
		case token == "" && !httpguard.LoopbackHost(r.Host):
			writeJSON(w, http.StatusForbidden, errorBody{Error: fmt.Sprintf("engine: host %q is not loopback", r.Host), Code: orchestrator.ExitBadInput})
		case r.Method != http.MethodGet && (!httpguard.SameOrigin(r) || !isJSON(r)):
			writeJSON(w, http.StatusForbidden, errorBody{Error: "engine: a request that is not a GET must be JSON (Content-Type: application/json) from the same origin",
				Code: orchestrator.ExitBadInput})
		default:
			w.Header().Set("X-Content-Type-Options", "nosniff")
			m.ServeHTTP(w, r)
		}
	})
}

func isJSON(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "application/json"
}

func (e *Engine) serveCancel(w http.ResponseWriter, r *http.Request) {
	rep, err := e.Cancel(r.Context(), r.PathValue("id"))
	writeReport(w, http.StatusAccepted, rep, err)
}

// Message is one line of a watch: the run's progress, or its report when
// it changed state.
type Message struct {
	Progress *orchestrator.Progress `json:"progress,omitempty"`
	Report   *Report                `json:"report,omitempty"`
}

type errorBody struct {
	Error string `json:"error"`
	// Code is the exit code the refusal maps to.
	Code int `json:"code"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (e *Engine) serveSubmit(w http.ResponseWriter, r *http.Request) {
	var req Request
	dec := json.NewDecoder(io.LimitReader(r.Body, maxRequest))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody{Error: "engine: the request: " + err.Error(), Code: orchestrator.ExitBadInput})
		return
	}
	rep, err := e.Submit(req)
	switch {
	case errors.Is(err, ErrBadRequest):
		writeJSON(w, http.StatusBadRequest, errorBody{Error: err.Error(), Code: orchestrator.ExitBadInput})
	case err != nil: // closed, or the queue is full
		writeJSON(w, http.StatusServiceUnavailable, errorBody{Error: err.Error(), Code: orchestrator.ExitEnvironment})
	default:
		writeJSON(w, http.StatusAccepted, rep)
	}
}

func (e *Engine) serveStatus(w http.ResponseWriter, r *http.Request) {
	rep, err := e.Status(r.Context(), r.PathValue("id"))
	writeReport(w, http.StatusOK, rep, err)
}

// writeReport answers with rep (status ok), or with err: 404 for a run
// the engine does not know.
func writeReport(w http.ResponseWriter, ok int, rep Report, err error) {
	switch {
	case errors.Is(err, ErrNotFound):
		writeJSON(w, http.StatusNotFound, errorBody{Error: err.Error(), Code: orchestrator.ExitBadInput})
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, errorBody{Error: err.Error(), Code: orchestrator.ExitInternal})
	default:
		writeJSON(w, ok, rep)
	}
}

// serveWatch streams the run's changes until it ended (or the client
// went away). A run the engine does not hold but its data dir does is
// one line, its stored report.
func (e *Engine) serveWatch(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	e.mu.Lock()
	j := e.jobs[id]
	e.mu.Unlock()
	if j == nil {
		e.serveStatus(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	var lastState string
	for {
		rep, prog, changed := j.watch()
		if rep.State != lastState || rep.Done() {
			lastState = rep.State
			enc.Encode(Message{Report: &rep})
		} else {
			enc.Encode(Message{Progress: &prog})
		}
		flush()
		if rep.Done() {
			return
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		}
	}
}
