package playback

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/flow"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// SessionOptions are the options of the session a flow plays in with
// opts: the flow's frozen environment (opts' viewport when set), its seed
// and pinned clock, its guard, healing on, and a scrubber with a fresh key
// for what the session reports. The values opts supplies stand for what
// the flow does not hold (redacted, tokenized, secret): the scrubber
// knows them, and the fields they are typed into are masked in
// screenshots, as a task's secret inputs are.
func SessionOptions(f *flow.Flow, opts Options) (browser.SessionOptions, error) {
	width, height := opts.Width, opts.Height
	e := f.Environment
	env := browser.Env{Width: e.Width, Height: e.Height, DeviceScaleFactor: e.DeviceScaleFactor, Locale: e.Locale,
		Timezone: e.Timezone, UserAgent: e.UserAgent}
	if width > 0 && height > 0 {
		env.Width, env.Height = width, height
	}
	if e.ClockMS != 0 {
		env.Clock = time.UnixMilli(e.ClockMS).UTC()
	}
	so := browser.SessionOptions{Env: env, Origin: f.Origin, Heal: true, SecretInputs: map[string]bool{}}
	var secrets []string
	for i, a := range f.Actions {
		if v, ok := supplied(opts.Values, i, a); ok {
			secrets = append(secrets, v)
			so.SecretInputs[suppliedInput(i)] = true
		}
	}
	so.Scrub = scrub.New(scrub.NewKey(), append(secrets, opts.Secrets...))
	if e.Seed != "" {
		seed, err := strconv.ParseUint(e.Seed, 10, 64)
		if err != nil {
			return so, fmt.Errorf("playback: environment seed %q: %w", e.Seed, err)
		}
		so.RunSeed = seed
	}
	var err error
	if so.Guard, err = compilePatterns("guard", f.Guard); err != nil {
		return so, err
	}
	// Playback is speculation: it holds every state-changing request
	// but those the flow allows (SessionOptions.SendWrites stays false).
	so.Allow, err = compilePatterns("allow", f.Allow)
	return so, err
}

// compilePatterns compiles a flow's request patterns; what names the
// list in errors.
func compilePatterns(what string, gs []flow.Guard) ([]browser.GuardPattern, error) {
	var out []browser.GuardPattern
	for i, g := range gs {
		re, err := regexp.Compile(g.URL)
		if err != nil {
			return nil, fmt.Errorf("playback: %s[%d] %q: %w", what, i, g.URL, err)
		}
		out = append(out, browser.GuardPattern{Method: g.Method, URL: re})
	}
	return out, nil
}
