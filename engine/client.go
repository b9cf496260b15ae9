package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// ErrUnreachable: no engine answers at the address (exit
// orchestrator.ExitEnvironment).
var ErrUnreachable = errors.New("engine: not reachable")

// unreachableError is ErrUnreachable with its exit code.
type unreachableError struct{ msg string }

func (e *unreachableError) Error() string { return e.msg }

func (e *unreachableError) Unwrap() []error {
	return []error{ErrUnreachable, &orchestrator.CodedError{Code: orchestrator.ExitEnvironment, Msg: e.msg}}
}

func unreachable(format string, a ...any) error {
	return &unreachableError{msg: fmt.Sprintf(format, a...)}
}

// Client speaks to an engine's API.
type Client struct {
	base  string
	token string
	http  *http.Client
}

// NewClient returns a client of the engine at addr (HOST:PORT, or an
// http:// URL), sending token when it is not "".
func NewClient(addr, token string) *Client {
	base := strings.TrimSuffix(addr, "/")
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	return &Client{base: base, token: token, http: &http.Client{}}
}

// RefusedError is the engine's refusal of a request: its message and
// the exit code it maps to.
type RefusedError struct {
	Status int
	Msg    string
	Code   int
}

func (e *RefusedError) Error() string { return e.Msg }

// Unwrap carries the exit code (orchestrator.ExitCode reads it).
func (e *RefusedError) Unwrap() error { return &orchestrator.CodedError{Code: e.Code, Msg: e.Msg} }

// Is makes a 404 match ErrNotFound and a 400 ErrBadRequest.
func (e *RefusedError) Is(target error) bool {
	return target == ErrNotFound && e.Status == http.StatusNotFound || target == ErrBadRequest && e.Status == http.StatusBadRequest
}

func (c *Client) do(ctx context.Context, method, path string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, unreachable("engine: not reachable: %s: %v", c.base, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, unreachable("engine: not reachable at %s: %v", c.base, err)
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		var eb errorBody
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		if json.Unmarshal(b, &eb) != nil || eb.Error == "" {
			eb.Error = fmt.Sprintf("engine at %s: %s: %s", c.base, resp.Status, strings.TrimSpace(string(b)))
		}
		if eb.Code == 0 {
			eb.Code = orchestrator.ExitInternal
		}
		return nil, &RefusedError{Status: resp.StatusCode, Msg: eb.Error, Code: eb.Code}
	}
	return resp, nil
}

// Submit submits a run and returns its report (queued, with its id).
func (c *Client) Submit(ctx context.Context, req Request) (Report, error) {
	return c.report(ctx, http.MethodPost, "/api/engine/runs", req)
}

// Status returns the run's report; an error matching ErrNotFound when the
// engine knows no such run.
func (c *Client) Status(ctx context.Context, id string) (Report, error) {
	return c.report(ctx, http.MethodGet, "/api/engine/runs/"+url.PathEscape(id), nil)
}

// Cancel asks the engine to stop the run and returns its report as it
// stands.
func (c *Client) Cancel(ctx context.Context, id string) (Report, error) {
	return c.report(ctx, http.MethodPost, "/api/engine/runs/"+url.PathEscape(id)+"/cancel", struct{}{})
}

// report makes a request the engine answers with a Report.
func (c *Client) report(ctx context.Context, method, path string, body any) (Report, error) {
	resp, err := c.do(ctx, method, path, body)
	if err != nil {
		return Report{}, err
	}
	defer resp.Body.Close()
	var r Report
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return Report{}, fmt.Errorf("engine at %s: the report: %w", c.base, err)
	}
	return r, nil
}

// Watch follows the run until it ended, calling progress (when not nil)
// at each change, and returns its last report. When ctx ends first (the
// person pressed Ctrl-C), it cancels the run on the engine and returns an
// error wrapping orchestrator.ErrInterrupted: stopping the command stops
// the run, as it does a run started here.
func (c *Client) Watch(ctx context.Context, id string, progress func(orchestrator.Progress)) (Report, error) {
	rep, err := c.watch(ctx, id, progress)
	if err != nil && ctx.Err() != nil {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if last, cerr := c.Cancel(cctx, id); cerr == nil {
			rep = last
		}
		return rep, fmt.Errorf("%w: run %s was cancelled on the engine", orchestrator.ErrInterrupted, id)
	}
	return rep, err
}

func (c *Client) watch(ctx context.Context, id string, progress func(orchestrator.Progress)) (Report, error) {
	resp, err := c.do(ctx, http.MethodGet, "/api/engine/runs/"+url.PathEscape(id)+"/watch", nil)
	if err != nil {
		return Report{}, err
	}
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/x-ndjson") {
		var r Report // a run that already ended: its stored report
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			return r, fmt.Errorf("engine at %s: the report: %w", c.base, err)
		}
		if !r.Done() {
			return r, unreachable("engine at %s: run %s is %s, and the engine no longer follows it (it stopped meanwhile)", c.base, id, r.State)
		}
		return r, nil
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), maxReport)
	var last Report
	for sc.Scan() {
		var m Message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return last, fmt.Errorf("engine at %s: a watch line: %w", c.base, err)
		}
		if m.Progress != nil && progress != nil {
			progress(*m.Progress)
		}
		if m.Report != nil {
			last = *m.Report
			if last.Done() {
				return last, nil
			}
		}
	}
	if err := sc.Err(); err != nil {
		return last, unreachable("engine at %s: the watch of run %s ended: %v", c.base, id, err)
	}
	return last, unreachable("engine at %s: the watch of run %s ended before the run", c.base, id)
}

// Err is the error of an ended run as its report says (nil for exit 0),
// carrying its exit code (orchestrator.ExitCode reads it); for a run that
// has not ended, an internal error.
func (r Report) Err() error {
	if r.ExitCode == 0 && r.State == StateCompleted {
		return nil
	}
	if !r.Done() {
		return &orchestrator.CodedError{Code: orchestrator.ExitInternal, Msg: fmt.Sprintf("run %s is %s: it has not ended", r.ID, r.State)}
	}
	msg := r.Error
	if msg == "" {
		msg = fmt.Sprintf("run %s %s", r.ID, r.State)
	}
	return &orchestrator.CodedError{Code: r.ExitCode, Msg: msg}
}
