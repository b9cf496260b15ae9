package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// sse writes server-sent events.
type sse struct {
	w  http.ResponseWriter
	fl http.Flusher
}

// startSSE sends the event-stream headers.
func startSSE(w http.ResponseWriter) (*sse, bool) {
	fl, ok := w.(http.Flusher)
	if !ok {
		return nil, false
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	return &sse{w: w, fl: fl}, true
}

// send writes one event of the given type with v as JSON data, and an id
// when id > 0. It returns the write error (the client went away).
func (s *sse) send(event string, id int64, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if id > 0 {
		if _, err := fmt.Fprintf(s.w, "id: %d\n", id); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", event, data); err != nil {
		return err
	}
	s.fl.Flush()
	return nil
}

// comment keeps an idle connection open through proxies.
func (s *sse) comment() error {
	if _, err := fmt.Fprint(s.w, ": keep-alive\n\n"); err != nil {
		return err
	}
	s.fl.Flush()
	return nil
}

// handleStream streams a run as server-sent events: "snapshot" (a
// RunDetail) first, then "branch" (a Branch) for every branch an event
// changed and "run" (a Run) after each batch, and "end" (a Run) once the
// run has ended, after which the stream closes; "failure" (an error body)
// when the log cannot be read, which also closes it. It polls the event log,
// which another process may be appending to, every poll interval.
func (s *Server) handleStream(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	runID, err := s.runParam(ctx, r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	lr, err := s.openRun(ctx, runID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out, ok := startSSE(w)
	if !ok {
		writeError(w, http.StatusInternalServerError, fmt.Errorf("streaming unsupported"))
		return
	}
	if out.send("snapshot", lr.seq, lr.detail()) != nil {
		return
	}
	tick := time.NewTicker(s.poll)
	defer tick.Stop()
	idle := 0
	for !lr.ended() {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		es, err := s.events.Events(ctx, lr.info.RunID, eventlog.Query{AfterSeq: lr.seq})
		if err != nil {
			out.send("failure", 0, apiError{Error: err.Error()})
			return
		}
		if len(es) == 0 {
			if idle++; idle*int(s.poll/time.Millisecond) >= 15000 {
				idle = 0
				if out.comment() != nil {
					return
				}
			}
			continue
		}
		idle = 0
		if s.sendBatch(out, lr, es) != nil {
			return
		}
	}
	out.send("end", lr.seq, lr.run())
}

// sendBatch folds new events in and sends the branches they changed, then
// the run.
func (s *Server) sendBatch(out *sse, lr *liveRun, es []eventlog.Event) error {
	for _, e := range es {
		for _, b := range lr.apply(e) {
			if err := out.send("branch", e.Seq, b); err != nil {
				return err
			}
		}
	}
	return out.send("run", lr.seq, lr.run())
}
