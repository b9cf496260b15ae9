package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/drift"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// RunList is the body of GET /api/runs.
type RunList struct {
	Runs []Run `json:"runs"`
}

// RunDetail is the body of GET /api/runs/{id} and the first message of
// its stream: the run and its branch tree, as of event Seq.
type RunDetail struct {
	Run      Run      `json:"run"`
	Order    string   `json:"order,omitempty"` // how the winner ranking ordered the boundary branches
	Branches []Branch `json:"branches"`
	Seq      int64    `json:"seq"`
}

// Info is the body of GET /api/info: what the dashboard shows.
type Info struct {
	Mode     string `json:"mode"` // "data-dir" or "bundle"
	DataDir  string `json:"data_dir,omitempty"`
	Bundle   string `json:"bundle,omitempty"` // the bundle's run and branch
	Ledger   bool   `json:"ledger"`
	ReadOnly bool   `json:"read_only"`
	// Engine says runs can be submitted to an engine (WithEngine); the
	// dashboard itself still writes nothing.
	Engine bool `json:"engine"`
}

func (s *Server) handleInfo(w http.ResponseWriter, r *http.Request) {
	in := Info{Mode: "data-dir", DataDir: s.stores.DataDir, Ledger: s.stores.Ledger != nil, ReadOnly: true}
	if b := s.stores.Bundle; b != nil {
		in = Info{Mode: "bundle", Bundle: b.Manifest.RunID + "/" + b.Manifest.BranchID, ReadOnly: true}
	}
	in.Engine = s.engine != nil
	writeJSON(w, in)
}

func (s *Server) handleRuns(w http.ResponseWriter, r *http.Request) {
	runs, err := s.runs(r.Context(), r.URL.Query().Get("outcome"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, RunList{Runs: runs})
}

// runs lists the runs, newest first, keeping those with the given outcome
// when it is not "".
func (s *Server) runs(ctx context.Context, outcome string) ([]Run, error) {
	infos, err := s.events.Runs(ctx)
	if err != nil {
		return nil, err
	}
	out := []Run{}
	for _, info := range infos {
		es, err := s.events.Events(ctx, info.RunID, eventlog.Query{Kinds: summaryKinds})
		if err != nil {
			return nil, err
		}
		forks := 0
		if !hasKind(es, eventlog.KindRunEnd) {
			fs, err := s.events.Events(ctx, info.RunID, eventlog.Query{Kinds: []string{eventlog.KindBranchFork}})
			if err != nil {
				return nil, err
			}
			forks = len(fs)
		}
		if run := summarize(info, es, forks, s.unended()); outcome == "" || run.Outcome == outcome {
			out = append(out, run)
		}
	}
	return out, nil
}

// unended is the outcome of a run without run_end: in progress in a data
// dir, recorded in a bundle (which never holds run_end).
func (s *Server) unended() string {
	if s.stores.Bundle != nil {
		return OutcomeRecorded
	}
	return OutcomeRunning
}

func hasKind(es []eventlog.Event, kind string) bool {
	for _, e := range es {
		if e.Kind == kind {
			return true
		}
	}
	return false
}

func (s *Server) handleRun(w http.ResponseWriter, r *http.Request) {
	runID, err := s.runParam(r.Context(), r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	lr, err := s.openRun(r.Context(), runID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, lr.detail())
}

// runInfo returns the summary row of one run.
func (s *Server) runInfo(ctx context.Context, runID string) (eventlog.RunInfo, error) {
	infos, err := s.events.Runs(ctx)
	if err != nil {
		return eventlog.RunInfo{}, err
	}
	for _, in := range infos {
		if in.RunID == runID {
			return in, nil
		}
	}
	return eventlog.RunInfo{}, fmt.Errorf("%w: run %s", ErrNotFound, runID)
}

func (s *Server) handleBranch(w http.ResponseWriter, r *http.Request) {
	runID, branchID, err := s.branchParams(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	es, err := s.events.Events(r.Context(), runID, eventlog.Query{})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d, err := branchDetail(runID, es, branchID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, d)
}

func (s *Server) handleArtifact(w http.ResponseWriter, r *http.Request) {
	d, err := artifacts.ParseDigest(r.PathValue("digest"))
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	if s.files == nil {
		s.fail(w, r, fmt.Errorf("%w: no artifact store", ErrNotFound))
		return
	}
	data, err := s.files.Get(r.Context(), d)
	switch {
	case errors.Is(err, artifacts.ErrNotFound):
		s.fail(w, r, fmt.Errorf("%w: %v", ErrNotFound, err))
		return
	case err != nil:
		s.fail(w, r, err)
		return
	}
	h := sandboxed(w, data)
	if r.URL.Query().Get("as") == "html" && strings.HasPrefix(http.DetectContentType(data), "text/html") {
		// A recorded DOM snapshot, shown as a page: its styles and inline
		// images, nothing else (no script, no request, a sandbox).
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox")
	}
	h.Set("Cache-Control", "private, max-age=31536000, immutable")
	w.Write(data)
}

// sandboxed sets the headers every stored document is served with: a
// type that never runs as the dashboard's own page, under a sandbox.
func sandboxed(w http.ResponseWriter, data []byte) http.Header {
	h := w.Header()
	h.Set("Content-Type", safeType(data))
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	return h
}

// safeType is the sniffed content type of an artifact, with anything that
// a browser would render as a document (HTML, XML, SVG) served as plain
// text.
func safeType(data []byte) string {
	ct := http.DetectContentType(data)
	base, _, _ := strings.Cut(ct, ";")
	switch {
	case strings.HasPrefix(base, "image/") && base != "image/svg+xml",
		base == "application/pdf", base == "application/json", base == "application/octet-stream":
		return ct
	case strings.HasPrefix(base, "text/"), base == "text/xml":
		return "text/plain; charset=utf-8"
	}
	return "application/octet-stream"
}

// handleDrift reports drift across the runs (package drift), of one task
// with ?task=NAME.
func (s *Server) handleDrift(w http.ResponseWriter, r *http.Request) {
	rep, err := drift.Build(r.Context(), s.events, drift.Options{Task: r.URL.Query().Get("task")})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, rep)
}

func (s *Server) handleLedger(w http.ResponseWriter, r *http.Request) {
	v, err := s.ledgerView(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, v)
}
