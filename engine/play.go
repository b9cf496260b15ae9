package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/flow"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/playback"
)

// PlayOptions are a playback's options (see playback.Options).
type PlayOptions struct {
	OnError  string `json:"on_error,omitempty"`
	Timing   string `json:"timing,omitempty"`
	StartURL string `json:"start_url,omitempty"`
	Width    int    `json:"width,omitempty"`
	Height   int    `json:"height,omitempty"`
	// IgnoreHTTPSErrors accepts certificates Chromium does not trust.
	IgnoreHTTPSErrors bool `json:"ignore_https_errors,omitempty"`
	// Values supplies what the flow does not hold (playback.Options.Values);
	// a value "env:NAME" is read from the engine's environment, the only
	// form a secret takes, so that it never travels with the request.
	Values map[string]string `json:"values,omitempty"`
}

// loadFlow reads a request's flow and play options: the flow as
// flow.Parse reads it, every env: value found in the engine's
// environment, among the names the engine lets flows read (env).
func loadFlow(req Request, env []string) (*flow.Flow, playback.Options, error) {
	f, err := flow.Parse("the request's flow", req.Flow)
	if err != nil {
		return nil, playback.Options{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	p := req.Play
	o := playback.Options{OnError: playback.OnError(p.OnError), Timing: playback.Timing(p.Timing), StartURL: p.StartURL,
		Width: p.Width, Height: p.Height, Values: map[string]string{}}
	if o.OnError == "" {
		o.OnError = playback.Continue
	}
	if o.Timing == "" {
		o.Timing = playback.Fast
	}
	if err := o.Check(); err != nil {
		return nil, o, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	for k, v := range p.Values {
		known, secret := playback.Names(f, k)
		switch {
		case !known:
			return nil, o, fmt.Errorf("%w: value %s: the flow has no action %s and no input %s", ErrBadRequest, k, k, k)
		case secret && !strings.HasPrefix(v, "env:"):
			return nil, o, fmt.Errorf("%w: value %s: a secret is supplied by environment reference only (env:NAME)", ErrBadRequest, k)
		}
		if name, isEnv := strings.CutPrefix(v, "env:"); isEnv {
			if !slices.Contains(env, name) {
				return nil, o, fmt.Errorf("%w: value %s=env:%s: the engine lets flows read only the environment variables it was started with (--play-env NAME), and %s is not one", ErrBadRequest, k, name, name)
			}
			val, ok := os.LookupEnv(name)
			if !ok {
				return nil, o, fmt.Errorf("%w: value %s=env:%s: the engine's environment has no %s", ErrBadRequest, k, name, name)
			}
			v = val
		}
		o.Values[k] = v
	}
	return f, o, nil
}

// play plays a job's flow in a session of the warm browser. A playback
// with a failed or skipped action fails (exit orchestrator.ExitVerify),
// as `orchestrator play` does.
func (e *Engine) play(j *job) {
	rep, err := e.playFlow(j)
	if err == nil && !rep.OK() {
		err = fmt.Errorf("%w: playback %s: %d of %d actions failed, %d skipped", orchestrator.ErrVerify, j.rep.ID, rep.Failed, rep.Total, rep.Skipped+rep.NotRun)
	}
	e.set(j, func(r *Report) { r.Playback = rep; ended(r, err) })
}

func (e *Engine) playFlow(j *job) (*playback.Report, error) {
	opts := j.playOpts
	opts.Shots = playback.DirShots(filepath.Join(e.dd, "playback", j.rep.ID))
	so, err := playback.SessionOptions(j.flow, opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", orchestrator.ErrBadInput, err)
	}
	so.Env.IgnoreHTTPSErrors = j.req.Play.IgnoreHTTPSErrors
	rt, err := e.runtime(j.ctx)
	if err != nil {
		return nil, err
	}
	sess, err := rt.NewSession(j.ctx, so)
	if err != nil {
		return nil, interrupted(j.ctx, err)
	}
	defer sess.Close()
	rep, err := playback.Play(j.ctx, sess, j.flow, opts)
	return rep, interrupted(j.ctx, err)
}

// interrupted is err, marked as an interruption (exit 130) when ctx
// ended (the job was cancelled, or the engine closed).
func interrupted(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%w: %v", orchestrator.ErrInterrupted, err)
	}
	return err
}

// FlowJSON is a flow as a Request carries it.
func FlowJSON(f *flow.Flow) (json.RawMessage, error) { return json.Marshal(f) }
