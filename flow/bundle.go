package flow

import (
	"fmt"
	"strings"
	"time"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// FromBundle is the flow of a bundle's branch: its plan with every target
// strategy, the environment it was captured in, the guard, when each
// action started (from the bundle's events) and the URL after each step.
// A commit bundle's flow stops before the committer's steps and guards
// what they sent: a flow is never a commit. Values typed from secret
// inputs, and from inputs holding personal data, are redacted; a plain
// input's value is kept.
func FromBundle(b *bundle.Bundle) (*Flow, error) {
	m := &b.Manifest
	f := &Flow{SchemaVersion: SchemaVersion, Name: m.TaskName, Source: fmt.Sprintf("run %s/%s", m.RunID, m.BranchID),
		Origin: m.Origin}
	e := m.Environment
	f.Environment = Environment{Width: e.Width, Height: e.Height, DeviceScaleFactor: e.DeviceScaleFactor, Locale: e.Locale,
		Timezone: e.Timezone, UserAgent: e.UserAgent, ClockMS: e.ClockMS, Seed: m.Seed}
	plan := m.Plan
	if first, _, ok := m.CommitSteps(); ok {
		if first <= 1 {
			return nil, fmt.Errorf("flow: bundle %s/%s: every step is the committer's; a flow never commits", m.RunID, m.BranchID)
		}
		plan = plan[:first-1]
		f.Notes = append(f.Notes, fmt.Sprintf("stops before step %d of %d: the committer's steps are not part of a flow", first, m.Steps))
	}
	// What a live replay of the bundle would never send, a flow of it
	// never sends either.
	guard, all := b.LiveGuard()
	for _, g := range guard {
		f.Guard = append(f.Guard, Guard{Method: g.Method, URL: g.URL})
	}
	for _, g := range m.Allow {
		f.Allow = append(f.Allow, Guard{Method: g.Method, URL: g.URL})
	}
	if all {
		f.Notes = append(f.Notes, "the recording names no guarded requests: every "+strings.Join(bundle.UnsafeMethods, ", ")+" request is guarded")
	}
	starts := startTimes(b.Events)
	for i, a := range plan {
		fa := FromBranch(a)
		if in, ok := m.Inputs[a.Input]; ok {
			switch {
			case in.Secret:
				fa.Secret = true
			case in.Token != "" && !scrub.HoldsToken(in.Token):
				// A plain input the recorded pages show as it is (no
				// personal data in it): the flow keeps its value, so it
				// plays without --set.
				fa.Value, fa.Redacted = in.Token, false
			}
		}
		if i < len(b.Steps) {
			fa.ExpectURL = b.Steps[i].URL
		}
		if t0, ok := starts[1]; ok {
			if t, ok := starts[i+1]; ok && t.After(t0) {
				fa.AtMS = t.Sub(t0).Milliseconds()
			}
		}
		f.Actions = append(f.Actions, fa)
	}
	return f, nil
}

// startTimes is when each step (1-based) was first executed, not as a
// replayed prefix: the wall clock of its action_end less its duration.
func startTimes(evs []eventlog.Event) map[int]time.Time {
	out := map[int]time.Time{}
	for _, e := range evs {
		if e.Kind != eventlog.KindActionEnd {
			continue
		}
		end, err := payload.Decode[payload.ActionEnd](e)
		if err != nil || end.Replayed {
			continue
		}
		if _, seen := out[end.Step]; !seen {
			out[end.Step] = e.Time.Add(-time.Duration(end.DurationMS) * time.Millisecond)
		}
	}
	return out
}
