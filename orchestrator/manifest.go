package orchestrator

import (
	"runtime/debug"
	"strconv"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/scrub"
	"github.com/multiverse-orchestrator/multiverse/task"
)

func (r *run) manifest(fp browser.Fingerprint, natsURL string) payload.RunStart {
	t := r.t
	version := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = bi.Main.Version
	}
	return payload.RunStart{
		Task: t.Name, TaskDigest: t.Digest(), TaskFile: t.File(), StartURL: r.sc.URL(t.StartURL),
		Seed: strconv.FormatUint(t.Seed, 10), SeedFromTask: t.SeedSet,
		Budgets: t.Budgets, Search: t.Search, Weights: t.Weights, Environment: r.environment(),
		Workers: r.workers, NATS: natsURL, MultiverseVersion: version, Fingerprint: payload.Fingerprint(fp),
		ScrubKeySHA256: r.sc.KeyCheck(), RecallSalt: r.sc.RecallSalt(), RecallIterations: scrub.RecallIterations,
		Origin: t.Origin(), Inputs: r.inputTokens(), Guard: r.spec.Guard,
		Explore: explorePtr(r.spec.Explore), HoldsWrites: true,
		Goal: t.Goal.Goal, Boundary: r.spec.Boundary, Prices: t.Prices,
		GoalFailure: t.Goal.Failure, Extract: t.Extract, HasCommit: t.HasCommit(),
		Proposer: t.Planner.Proposer, Model: modelRoute(t, r.llmMode(), r.cassetteDir()),
		Reproduces: r.cfg.Reproduces, NetDigest: branch.NetDigestMultiset, Learning: r.learning.ref,
	}
}

// environment is the task's environment for the manifest, header values
// replaced by their tokens.
func (r *run) environment() task.Environment {
	e := r.t.Environment
	if len(e.Headers) > 0 {
		hs := make(map[string]task.Input, len(e.Headers))
		for name, h := range e.Headers {
			if !h.Secret() {
				h.Value = r.sc.Token(h.Value)
			}
			hs[name] = h
		}
		e.Headers = hs
	}
	return e
}

// inputTokens says, for each task input, what a replay types in its
// place: the scrubbed form the recorded pages show (a token for personal
// data and secrets, the literal value otherwise). Raw values never leave.
func (r *run) inputTokens() map[string]payload.Input {
	out := map[string]payload.Input{}
	for name, in := range r.t.Inputs {
		v, err := in.Resolve()
		if err != nil {
			continue
		}
		tok := r.sc.Text(v)
		if tok == v && (in.Secret() || scrub.SensitiveKey(name)) {
			tok = r.sc.Token(v)
		}
		out[name] = payload.Input{Token: tok, Secret: in.Secret()}
	}
	return out
}

// explorePtr is the task's explore section for the manifest, nil when it
// says nothing.
func explorePtr(e task.Explore) *task.Explore {
	if e.IsZero() {
		return nil
	}
	return &e
}
