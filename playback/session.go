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

// SessionOptions are the options of the session a flow plays in: the
// flow's frozen environment (viewport width and height when positive),
// its seed and pinned clock, its guard, healing on, and a scrubber with a
// fresh key for what the session reports.
func SessionOptions(f *flow.Flow, width, height int) (browser.SessionOptions, error) {
	e := f.Environment
	env := browser.Env{Width: e.Width, Height: e.Height, DeviceScaleFactor: e.DeviceScaleFactor, Locale: e.Locale,
		Timezone: e.Timezone, UserAgent: e.UserAgent}
	if width > 0 && height > 0 {
		env.Width, env.Height = width, height
	}
	if e.ClockMS != 0 {
		env.Clock = time.UnixMilli(e.ClockMS).UTC()
	}
	so := browser.SessionOptions{Env: env, Origin: f.Origin, Scrub: scrub.New(scrub.NewKey(), nil), Heal: true}
	if e.Seed != "" {
		seed, err := strconv.ParseUint(e.Seed, 10, 64)
		if err != nil {
			return so, fmt.Errorf("playback: environment seed %q: %w", e.Seed, err)
		}
		so.RunSeed = seed
	}
	for i, g := range f.Guard {
		re, err := regexp.Compile(g.URL)
		if err != nil {
			return so, fmt.Errorf("playback: guard[%d] %q: %w", i, g.URL, err)
		}
		so.Guard = append(so.Guard, browser.GuardPattern{Method: g.Method, URL: re})
	}
	return so, nil
}
