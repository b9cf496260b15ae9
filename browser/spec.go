package browser

import (
	"fmt"
	"regexp"

	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/scrub"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// SessionOptionsFor builds the options of a session that executes a
// branch of the spec: its frozen environment, guards, scrubber and
// starting state, with header values, secret inputs and the storage
// state resolved in this process. The caller sets a scripted login's
// state (and the matching scrubber, job.Spec.ScrubberWith) itself. It
// fails on a guard pattern that does not compile or a header or storage
// state that does not resolve.
func SessionOptionsFor(spec *job.Spec, store Putter) (SessionOptions, error) {
	guards, err := Patterns("guard", spec.Guard)
	if err != nil {
		return SessionOptions{}, err
	}
	allow, err := Patterns("explore.allow", spec.Explore.Allow)
	if err != nil {
		return SessionOptions{}, err
	}
	secretInputs := map[string]bool{}
	for name, in := range spec.Inputs {
		if in.Secret() {
			secretInputs[name] = true
		}
	}
	env := spec.Env
	headers := map[string]string{}
	for name, h := range env.Headers {
		v, err := h.Resolve()
		if err != nil {
			return SessionOptions{}, fmt.Errorf("browser: header %s: %w", name, err)
		}
		headers[name] = v
	}
	var state *task.StorageState
	secrets := spec.InputSecrets()
	if spec.StorageState != nil {
		st, err := task.ResolveStorageState(*spec.StorageState)
		if err != nil {
			return SessionOptions{}, fmt.Errorf("browser: auth.storage_state: %w", err)
		}
		state = st
		secrets = append(secrets, st.Secrets()...)
	}
	return SessionOptions{
		State: state,
		Env: Env{
			Width: env.Viewport.Width, Height: env.Viewport.Height, DeviceScaleFactor: env.DeviceScaleFactor,
			Locale: env.Locale, Timezone: env.Timezone, UserAgent: env.UserAgent, Clock: env.Clock,
			StepAdvance: env.StepAdvance.D(), ActionTimeout: spec.Timeout.D(), Headers: headers,
			IgnoreHTTPSErrors: env.IgnoreHTTPSErrors,
		},
		RunSeed:      spec.RunSeed,
		Origin:       spec.Origin,
		Guard:        guards,
		Allow:        allow,
		Origins:      spec.Explore.Origins,
		Store:        store,
		Scrub:        scrub.New(spec.ScrubKey, secrets),
		Record:       true,
		SecretInputs: secretInputs,
	}, nil
}

// Patterns compiles request patterns; what names the list in errors.
func Patterns(what string, ps []task.RequestPattern) ([]GuardPattern, error) {
	out := make([]GuardPattern, 0, len(ps))
	for i, g := range ps {
		re, err := regexp.Compile(g.URL)
		if err != nil {
			return nil, fmt.Errorf("browser: %s[%d] %q: %w", what, i, g.URL, err)
		}
		out = append(out, GuardPattern{Method: g.Method, URL: re})
	}
	return out, nil
}
