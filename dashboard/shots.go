package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/multiverse-orchestrator/multiverse/replay"
)

// A run records screenshots only where a person looks (a failed step,
// the boundary, the goal: capture.screenshots: looked). Any other step's
// page is rendered on demand: a strict replay of its branch, served from
// the recording (nothing reaches the site), with a screenshot after every
// step. The screenshots of a replayed branch are kept in memory for the
// next ask.

// maxRenderedBranches bounds the branches whose rendered screenshots the
// server keeps.
const maxRenderedBranches = 16

// renderWait bounds how long a render waits for a replay already running.
const renderWait = 2 * time.Minute

// rendered keeps rendered screenshots by run and branch, the oldest
// branch dropped first.
type rendered struct {
	mu    sync.Mutex
	shots map[string]map[int][]byte
	order []string
}

func (c *rendered) get(key string, step int) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	shots, ok := c.shots[key]
	if !ok {
		return nil, false
	}
	png, ok := shots[step]
	return png, ok
}

// known reports whether the branch was rendered already (a step it lacks
// does not exist or failed to render).
func (c *rendered) known(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.shots[key]
	return ok
}

func (c *rendered) put(key string, shots map[int][]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shots == nil {
		c.shots = map[string]map[int][]byte{}
	}
	if _, ok := c.shots[key]; !ok {
		c.order = append(c.order, key)
	}
	c.shots[key] = shots
	for len(c.order) > maxRenderedBranches {
		delete(c.shots, c.order[0])
		c.order = c.order[1:]
	}
}

// handleStepShot serves the screenshot of the page after step n of a
// branch, rendering it by a strict replay of the branch when the run did
// not record one. It waits for a replay already running (up to
// renderWait), then answers 409.
func (s *Server) handleStepShot(w http.ResponseWriter, r *http.Request) {
	runID, branchID, err := s.branchParams(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 {
		writeError(w, http.StatusBadRequest, fmt.Errorf("dashboard: step %q is not a step number", r.PathValue("n")))
		return
	}
	key := runID + "/" + branchID
	if png, ok := s.shots.get(key, n); ok {
		servePNG(w, png)
		return
	}
	if s.shots.known(key) {
		s.fail(w, r, fmt.Errorf("%w: branch %s has no step %d to render", ErrNotFound, branchID, n))
		return
	}
	ctx := r.Context()
	wait, cancel := context.WithTimeout(ctx, renderWait)
	defer cancel()
	select {
	case s.replays <- struct{}{}:
		defer func() { <-s.replays }()
	case <-wait.Done():
		writeError(w, http.StatusConflict, ErrReplayBusy)
		return
	}
	if png, ok := s.shots.get(key, n); ok { // rendered while this one waited
		servePNG(w, png)
		return
	}
	shots, err := s.render(ctx, runID, branchID)
	if err == nil {
		s.shots.put(key, shots) // a replay cut short is not kept: the next ask tries again
	}
	png, ok := shots[n]
	switch {
	case ok:
		servePNG(w, png)
	case err != nil:
		bundleError(w, err)
	default:
		s.fail(w, r, fmt.Errorf("%w: branch %s has no step %d to render", ErrNotFound, branchID, n))
	}
}

// render replays a branch strictly and returns the screenshot after each
// step it reached; the error says why it stopped short.
func (s *Server) render(ctx context.Context, runID, branchID string) (map[int][]byte, error) {
	b, err := s.bundleOf(ctx, runID, branchID)
	if err != nil {
		return nil, err
	}
	rt, opts, err := s.strict(ctx, b)
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	shots := map[int][]byte{}
	// Replay calls OnShot from its own loop, in this goroutine.
	opts.OnShot = func(step int, png []byte) { shots[step] = png }
	// A replay that diverged still went through every step: its pages
	// are what the recording serves.
	if _, err := replay.Replay(ctx, rt, b, opts); err != nil && !errors.Is(err, replay.ErrDiverged) {
		return shots, fmt.Errorf("dashboard: rendering branch %s: %w", branchID, err)
	}
	return shots, nil
}

func servePNG(w http.ResponseWriter, png []byte) {
	h := w.Header()
	h.Set("Content-Type", "image/png")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cache-Control", "private, max-age=3600")
	w.Write(png)
}
