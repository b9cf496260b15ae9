package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// ReplayStatus is a "status" message of a replay stream.
type ReplayStatus struct {
	Phase string `json:"phase"` // bundled, launching, replaying
	Steps int    `json:"steps"`
}

// ReplayResult is the "report" message that ends a replay stream: the
// report (RSR, DVR, TTD, the diff at the divergence) and the error that
// ended the replay, if any.
type ReplayResult struct {
	Report *replay.Report `json:"report,omitempty"`
	Error  string         `json:"error,omitempty"`
}

// handleReplay runs a strict replay of a branch in a fresh Chromium and
// streams it as server-sent events: "status" messages, a "step" (a
// replay.StepReport) per step as it is compared, and a "report" (a
// ReplayResult) at the end. A strict replay serves every request from the
// recording: nothing reaches the site and guarded requests are never
// sent. One replay runs at a time (409 otherwise); a branch that has no
// bundle is answered first, busy or not.
func (s *Server) handleReplay(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	runID, branchID, err := s.branchParams(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	b, err := s.bundleOf(ctx, runID, branchID)
	if err != nil {
		bundleError(w, err)
		return
	}
	select {
	case s.replays <- struct{}{}:
		defer func() { <-s.replays }()
	default:
		writeError(w, http.StatusConflict, ErrReplayBusy)
		return
	}
	out, ok := startSSE(w)
	if !ok {
		writeError(w, http.StatusInternalServerError, fmt.Errorf("streaming unsupported"))
		return
	}
	res := s.runReplay(ctx, out, b)
	out.send("report", 0, res)
}

// runReplay launches Chromium and replays b strictly, sending progress.
func (s *Server) runReplay(ctx context.Context, out *sse, b *bundle.Bundle) ReplayResult {
	out.send("status", 0, ReplayStatus{Phase: "launching", Steps: len(b.Steps)})
	rt, opts, err := s.strict(ctx, b)
	if err != nil {
		return ReplayResult{Error: err.Error()}
	}
	defer rt.Close()
	out.send("status", 0, ReplayStatus{Phase: "replaying", Steps: len(b.Steps)})
	opts.OnStep = func(sr replay.StepReport) { out.send("step", 0, sr) }
	rep, err := replay.Replay(ctx, rt, b, opts)
	res := ReplayResult{Report: rep}
	if err != nil {
		res.Error = err.Error()
	}
	return res
}

// strict launches Chromium for a strict replay of b (never Live: the
// recording answers every request) and returns its options: the run's
// scrubbing key when the data dir holds it (replay.Options.ScrubKey).
func (s *Server) strict(ctx context.Context, b *bundle.Bundle) (*browser.Runtime, replay.Options, error) {
	lctx, cancel := context.WithTimeout(ctx, time.Minute)
	rt, err := browser.Launch(lctx, s.browser)
	cancel()
	if err != nil {
		return nil, replay.Options{}, err
	}
	var opts replay.Options
	if s.stores.DataDir != "" {
		if key, err := scrub.ReadKey(s.stores.DataDir, b.Manifest.RunID); err == nil {
			opts.ScrubKey = key
		}
	}
	return rt, opts, nil
}

// bundleError answers a request for a branch that has no bundle: 404 for
// a run or branch the records do not hold, 409 for one that cannot be
// bundled (a log that does not verify, a missing artifact).
func bundleError(w http.ResponseWriter, err error) {
	if errors.Is(err, ErrNotFound) || errors.Is(err, eventlog.ErrRunNotFound) {
		writeError(w, http.StatusNotFound, err)
		return
	}
	writeError(w, http.StatusConflict, err)
}

// bundleOf is the bundle of a branch: the bundle shown, or one built from
// the data dir after the run's event log verified (a bundle is never made
// from a record that was tampered with).
func (s *Server) bundleOf(ctx context.Context, runID, branchID string) (*bundle.Bundle, error) {
	if b := s.stores.Bundle; b != nil {
		if b.Manifest.RunID != runID || b.Manifest.BranchID != branchID {
			return nil, fmt.Errorf("%w: the bundle holds branch %s of run %s", ErrNotFound, b.Manifest.BranchID, b.Manifest.RunID)
		}
		return b, nil
	}
	st := s.stores
	if st.Artifacts == nil {
		return nil, errors.New("dashboard: the data dir has no artifact store")
	}
	if err := st.Events.Verify(ctx, runID); err != nil {
		return nil, fmt.Errorf("the event log of run %s does not verify: %w", runID, err)
	}
	b, err := replay.Build(ctx, replay.Source{Events: st.Events, Store: st.Artifacts, Ledger: st.Ledger}, runID, branchID, bundle.KindBranch)
	var corrupt *artifacts.CorruptError
	switch {
	case err == nil:
		return b, nil
	case errors.Is(err, replay.ErrNotRecorded) && !s.hasBranch(ctx, runID, branchID):
		return nil, fmt.Errorf("%w: %v", ErrNotFound, err)
	case errors.As(err, &corrupt), errors.Is(err, artifacts.ErrNotFound):
		return nil, fmt.Errorf("run %s branch %s: an artifact is missing or corrupt: %w", runID, branchID, err)
	}
	return nil, err
}

// hasBranch reports whether the run forked branchID.
func (s *Server) hasBranch(ctx context.Context, runID, branchID string) bool {
	es, err := s.events.Events(ctx, runID, eventlog.Query{BranchID: branchID, Kinds: []string{eventlog.KindBranchFork}, Limit: 1})
	return err == nil && len(es) > 0
}
