package rerun

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/learn"
	"github.com/multiverse-orchestrator/multiverse/llm"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/planner"
	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/scrub"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// Mode is how much of the original run a rerun holds fixed.
type Mode string

// Rerun modes.
const (
	// ModeFull holds everything: the task as the run's manifest recorded
	// it (seed, budgets, search, weights, prices), every page from the
	// recording, every model answer from the cassette. It must reproduce
	// the recorded decisions.
	ModeFull Mode = "full"
	// ModeHybrid holds the world (the recorded pages) and runs the
	// current planner on it: the task as given now, the code as built
	// now, the model as the LLM option says.
	ModeHybrid Mode = "hybrid"
)

// ParseMode reads a mode name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeFull, ModeHybrid:
		return m, nil
	}
	return "", fmt.Errorf("rerun: mode %q: want full or hybrid", s)
}

// Errors callers branch on.
var (
	// ErrTaskChanged: the task given (or the file the run names) is not
	// the task the run ran: its digest differs.
	ErrTaskChanged = errors.New("rerun: not the task the run ran")
	// ErrNoCassette: a full rerun of a run whose model was asked live,
	// without a cassette to answer from.
	ErrNoCassette = errors.New("rerun: the run's model answers were not recorded")
	// ErrBadSwap: an action swap names a branch or step the run does not
	// hold.
	ErrBadSwap = errors.New("rerun: bad action swap")
	// ErrNoKey: the run's scrubbing key is not in its data dir.
	ErrNoKey = errors.New("rerun: no scrubbing key")
	// ErrDiffers: a full rerun did not reproduce the recorded decisions.
	ErrDiffers = errors.New("rerun: the decisions differ from the recorded ones")
)

// Options configure Run.
type Options struct {
	// Source holds the original run's records (read only).
	Source replay.Source
	RunID  string
	Mode   Mode
	// Task is the task to rerun; nil loads the task file the run's
	// manifest names with LoadTask (task.Load when nil). Either way its
	// digest must be the run's.
	Task     *task.Task
	LoadTask func(path string) (*task.Task, error)
	// Swaps replace recorded responses (a counterfactual rerun).
	Swaps []replay.Swap
	// ActionSwaps replace a step of a recorded branch: wherever the
	// rerun would fork that branch's plan up to Step, it forks With in
	// place of the step's action.
	ActionSwaps []ActionSwap
	// OutDir is the data dir the rerun records itself in (a run of its
	// own, beside nothing else).
	OutDir string
	// LLM and Cassettes say where model answers come from: a full rerun
	// always replays the cassette the run recorded to (Cassettes
	// overrides its directory); a hybrid one asks as LLM says (replay by
	// default).
	LLM       llm.Mode
	Cassettes string
	Workers   int
	Browser   browser.Options
	Logger    *slog.Logger
	// SourceDir is the data dir Source was opened from, recorded in the
	// rerun's manifest beside the run it reproduces ("" when unknown).
	SourceDir string
	// ScrubKey is the original run's scrubbing key (DATA_DIR/keys/RUN.key):
	// the recorded URLs and bodies hold tokens made with it, and the
	// rerun records its own with it so the two compare.
	ScrubKey []byte
	// Progress, when set, sees the rerun's search as a run's does.
	Progress func(orchestrator.Progress)
}

// ActionSwap is a counterfactual step: the action of step Step of the
// recorded branch BranchID replaced by With.
type ActionSwap struct {
	BranchID string
	Step     int
	With     branch.Action
}

// substitutions resolves action swaps against the run's recorded plans.
func substitutions(orig []eventlog.Event, swaps []ActionSwap) ([]planner.Substitution, []string, error) {
	plans := map[string]branch.Plan{}
	for _, e := range orig {
		if e.Kind == eventlog.KindBranchFork {
			if f, err := payload.Decode[payload.BranchFork](e); err == nil {
				plans[e.BranchID] = f.Plan
			}
		}
	}
	var subs []planner.Substitution
	var said []string
	for _, sw := range swaps {
		p, ok := plans[sw.BranchID]
		switch {
		case !ok:
			return nil, nil, fmt.Errorf("%w: the run forked no branch %s", ErrBadSwap, sw.BranchID)
		case sw.Step < 1 || sw.Step > len(p):
			return nil, nil, fmt.Errorf("%w: branch %s has steps 1 to %d, not %d", ErrBadSwap, sw.BranchID, len(p), sw.Step)
		}
		subs = append(subs, planner.Substitution{Plan: p[:sw.Step], With: sw.With})
		said = append(said, fmt.Sprintf("%s@%d: %s instead of %s", sw.BranchID, sw.Step, sw.With.Describe(), p[sw.Step-1].Describe()))
	}
	return subs, said, nil
}

// Report is what a rerun found.
type Report struct {
	RunID   string `json:"run_id"`
	RerunID string `json:"rerun_id,omitempty"`
	Mode    Mode   `json:"mode"`
	OutDir  string `json:"out_dir"`
	// Status is the rerun's own outcome: explored, dry-run (the commit's
	// preflight held; nothing was sent), or the error that ended it (an
	// aborted commit, no branch at the boundary).
	Status   string         `json:"status"`
	ExitCode int            `json:"exit_code"`
	Error    string         `json:"error,omitempty"`
	Commit   *CommitPreview `json:"commit,omitempty"`
	// Compared is the decisions of the two runs side by side.
	Compared Comparison    `json:"compared"`
	Misses   []replay.Miss `json:"misses,omitempty"`
	Swaps    []string      `json:"swaps,omitempty"`
	Notes    []string      `json:"notes,omitempty"`
	// Branches is how many branches the rerun executed, Warm how many of
	// them continued their parent's session instead of replaying their
	// plan.
	Branches int `json:"branches"`
	Warm     int `json:"warm_branches"`
}

// CommitPreview is what the committer's preflight said in the rerun.
type CommitPreview struct {
	Key     string   `json:"key,omitempty"`
	Skipped []string `json:"skipped,omitempty"`
	Changes []string `json:"changes,omitempty"`
}

// Run reruns a recorded run and compares its decisions with the
// recorded ones. The error is the rerun's failure to run (bad options, a
// task that is not the run's, a missing cassette), or ErrDiffers for a
// full rerun whose decisions differ; the rerun's own outcome, however it
// ended, is in the report.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Mode == "" {
		o.Mode = ModeFull
	}
	if _, err := ParseMode(string(o.Mode)); err != nil {
		return nil, err
	}
	orig, m, err := recorded(ctx, o)
	if err != nil {
		return nil, err
	}
	t, err := taskFor(o, m)
	if err != nil {
		return nil, err
	}
	rep := &Report{RunID: o.RunID, Mode: o.Mode, OutDir: o.OutDir}
	cfg, err := prepare(ctx, o, orig, m, t, rep)
	if err != nil {
		return nil, err
	}
	want, err := Decisions(orig)
	if err != nil {
		return nil, err
	}
	if len(o.ScrubKey) == 0 {
		return nil, fmt.Errorf("%w: the scrubbing key of run %s is missing: its recorded requests cannot be matched", ErrNoKey, o.RunID)
	}
	cfg.ScrubKey = o.ScrubKey
	w, err := replay.OpenWorld(ctx, o.Source, o.RunID, replay.WorldOptions{Swaps: o.Swaps, Scrub: scrub.New(o.ScrubKey, t.SecretValues())})
	if err != nil {
		return nil, err
	}
	defer w.Close()
	for _, s := range o.Swaps {
		rep.Swaps = append(rep.Swaps, s.String())
	}
	cfg.Network = func(ctx context.Context, j *job.Job) (string, func(), error) { return w.Serve(ctx, j.BranchID, j.Plan) }
	cfg.Continue = func(ctx context.Context, proxy string, j *job.Job) error {
		return w.Continue(ctx, proxy, j.BranchID, j.Plan)
	}
	sum, runErr := orchestrator.Run(ctx, cfg)
	rep.Misses = uniqueMisses(w.Misses())
	return finish(ctx, o.Mode, rep, want, sum, runErr)
}

// recorded reads the run's events, after its event log verified, and its
// manifest (run_start).
func recorded(ctx context.Context, o Options) ([]eventlog.Event, payload.RunStart, error) {
	if err := o.Source.Events.Verify(ctx, o.RunID); err != nil {
		return nil, payload.RunStart{}, fmt.Errorf("rerun: the event log of run %s does not verify: %w", o.RunID, err)
	}
	orig, err := o.Source.Events.Events(ctx, o.RunID, eventlog.Query{})
	if err != nil {
		return nil, payload.RunStart{}, fmt.Errorf("rerun: events of run %s: %w", o.RunID, err)
	}
	if len(orig) == 0 || orig[0].Kind != eventlog.KindRunStart {
		return nil, payload.RunStart{}, fmt.Errorf("%w: run %s has no run_start event", replay.ErrNotRecorded, o.RunID)
	}
	m, err := payload.Decode[payload.RunStart](orig[0])
	if err != nil {
		return nil, payload.RunStart{}, fmt.Errorf("rerun: the manifest of run %s: %w", o.RunID, err)
	}
	return orig, m, nil
}

// prepare is the rerun's configuration from the run's records: the
// action swaps as substitutions, the volatile parts the commit recorded,
// the site's record the run read (pinned). It notes in rep what makes
// the decisions differ or what was pinned.
func prepare(ctx context.Context, o Options, orig []eventlog.Event, m payload.RunStart, t *task.Task, rep *Report) (orchestrator.Config, error) {
	cfg, err := configFor(o, m, t, rep)
	if err != nil {
		return cfg, err
	}
	for _, e := range orig {
		if e.Kind != eventlog.KindPlanCache {
			continue
		}
		if pc, err := payload.Decode[payload.PlanCache](e); err == nil && pc.What == "followed" {
			rep.Notes = append(rep.Notes, "the run followed a cached plan; a rerun searches from zero, so the decisions where it was guided differ")
			break
		}
	}
	subs, said, err := substitutions(orig, o.ActionSwaps)
	if err != nil {
		return cfg, err
	}
	cfg.Substitutions = subs
	cfg.CommitVolatile = recordedVolatile(orig)
	if cfg.Learned, err = pinnedLearning(ctx, o, m, t); err != nil {
		return cfg, err
	}
	if m.Learning != nil {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the site's record the run read: version %d, %d steps (pinned)", cfg.Learned.Version, len(cfg.Learned.Steps)))
	}
	rep.Swaps = append(rep.Swaps, said...)
	return cfg, nil
}

// finish completes rep from the rerun's summary and error and compares
// its decisions with want; a full rerun whose decisions differ, or that
// missed a request the recording does not hold, is ErrDiffers.
func finish(ctx context.Context, mode Mode, rep *Report, want []Decision, sum *orchestrator.Summary, runErr error) (*Report, error) {
	rep.ExitCode = orchestrator.ExitCode(runErr)
	if runErr != nil {
		rep.Error = runErr.Error()
	}
	if sum == nil || sum.RunID == "" {
		return nil, runErr // the rerun never started: nothing to compare
	}
	rep.RerunID, rep.Status = sum.RunID, sum.Status
	rep.Branches, rep.Warm = sum.Branches.Executed, sum.Warm
	if runErr != nil {
		rep.Status = "failed"
	}
	if c := sum.Commit; c != nil {
		rep.Commit = &CommitPreview{Key: c.Key, Skipped: c.Skipped, Changes: c.Changes}
	}
	got, err := rerunDecisions(ctx, sum.Paths.Events, sum.RunID)
	if err != nil {
		return rep, err
	}
	rep.Compared = Compare(want, got)
	if mode == ModeFull && (!rep.Compared.Same || len(newMisses(rep.Misses)) > 0) {
		return rep, fmt.Errorf("%w: %s", ErrDiffers, firstDifference(rep))
	}
	return rep, nil
}

// newMisses are the misses of requests the recording does not hold at
// all: one that failed or was blocked at capture too is refused again,
// which replays what happened.
func newMisses(ms []replay.Miss) []replay.Miss {
	var out []replay.Miss
	for _, m := range ms {
		if !m.AtCapture {
			out = append(out, m)
		}
	}
	return out
}

func firstDifference(rep *Report) string {
	if !rep.Compared.Same {
		return fmt.Sprintf("decision #%d: recorded %s, rerun %s", rep.Compared.First+1, orNone(rep.Compared.Want), orNone(rep.Compared.Got))
	}
	ms := newMisses(rep.Misses)
	return fmt.Sprintf("%d requests the recording does not hold, the first %s", len(ms), ms[0])
}

// taskFor is the task to rerun: the one given or the file the manifest
// names, checked against the run's task digest.
func taskFor(o Options, m payload.RunStart) (*task.Task, error) {
	t := o.Task
	if t == nil {
		if m.TaskFile == "" {
			return nil, fmt.Errorf("%w: run %s names no task file: give the task", ErrTaskChanged, o.RunID)
		}
		load := o.LoadTask
		if load == nil {
			load = task.Load
		}
		var err error
		if t, err = load(m.TaskFile); err != nil {
			return nil, fmt.Errorf("rerun: the run's task file (give the task if it moved): %w", err)
		}
	}
	if t.Origin() != m.Origin && m.Origin != "" {
		// The digest folds the origin: the same task on the recorded site.
		moved, err := t.WithStartURL(m.Origin + t.StartURL[len(t.Origin()):])
		if err != nil {
			return nil, err
		}
		t = moved
	}
	if d := t.Digest(); d != m.TaskDigest {
		return nil, fmt.Errorf("%w: %s has digest %.12s, run %s ran %.12s (its goal, inputs, commit or environment changed)",
			ErrTaskChanged, orDash(t.File()), d, o.RunID, m.TaskDigest)
	}
	return t, nil
}

// configFor is the orchestrator configuration of the rerun: explore-only
// with the committer's dry preflight, no plan cache, in the recorded
// world, a child continuing its parent's session where the worker kept it
// (World.Continue); a full rerun pins what the manifest recorded.
func configFor(o Options, m payload.RunStart, t *task.Task, rep *Report) (orchestrator.Config, error) {
	if o.Mode == ModeFull {
		c := *t
		seed, err := strconv.ParseUint(m.Seed, 10, 64)
		if err != nil {
			return orchestrator.Config{}, fmt.Errorf("rerun: the manifest's seed %q: %w", m.Seed, err)
		}
		c.Seed, c.SeedSet = seed, m.SeedFromTask
		c.Budgets, c.Search, c.Weights, c.Prices = m.Budgets, m.Search, m.Weights, m.Prices
		t = &c
	}
	cfg := orchestrator.Config{Task: t, DataDir: o.OutDir, Workers: o.Workers, Browser: o.Browser, Logger: o.Logger, Progress: o.Progress,
		ExploreOnly: true, DryCommit: t.HasCommit(), NoCache: true, NoScreenshots: true, FailureBundles: 0,
		Reproduces: &payload.Reproduction{RunID: o.RunID, Mode: string(o.Mode), DataDir: o.SourceDir}}
	if cfg.Workers == 0 {
		cfg.Workers = -1
	}
	if !t.UsesModel() {
		return cfg, nil
	}
	cfg.LLM, cfg.Cassettes = o.LLM, o.Cassettes
	if m.Model != nil && cfg.Cassettes == "" {
		cfg.Cassettes = m.Model.Cassettes
	}
	if o.Mode == ModeFull || cfg.LLM == "" {
		cfg.LLM = llm.ModeReplay
	}
	if cfg.LLM == llm.ModeReplay && cfg.Cassettes == "" {
		return cfg, fmt.Errorf("%w: run %s asked its model live, without a cassette; record one (run --llm record) to rerun it, or rerun hybrid with --llm live",
			ErrNoCassette, o.RunID)
	}
	if cfg.LLM == llm.ModeRecord {
		return cfg, fmt.Errorf("rerun: --llm record would write the cassette from a rerun: use replay or live")
	}
	rep.Notes = append(rep.Notes, fmt.Sprintf("model answers: %s (%s)", cfg.LLM, orDash(cfg.Cassettes)))
	return cfg, nil
}

// pinnedLearning is the record of the site the run's search read, from
// the artifact its manifest names: a rerun's search reads the same, so its
// decisions can be the same. A run that read none (learning off, a run
// older than learning) is rerun with an empty record, never with what
// the rerun's own data dir holds.
func pinnedLearning(ctx context.Context, o Options, m payload.RunStart, t *task.Task) (*learn.Snapshot, error) {
	l := m.Learning
	if l == nil {
		return learn.Empty(orchestrator.LearnSite(t)), nil
	}
	if l.Artifact == "" {
		return nil, fmt.Errorf("%w: run %s read version %d of its site's record, which it did not keep", replay.ErrNotRecorded, o.RunID, l.Version)
	}
	b, err := o.Source.Store.Get(ctx, artifacts.Digest(l.Artifact))
	if err != nil {
		return nil, fmt.Errorf("%w: the site's record run %s read (version %d): %v", replay.ErrNotRecorded, o.RunID, l.Version, err)
	}
	snap, err := learn.Decode("artifact "+l.Artifact, b)
	if err != nil {
		return nil, fmt.Errorf("rerun: the site's record run %s read: %w", o.RunID, err)
	}
	return snap, nil
}

// rerunDecisions reads the rerun's own decisions from its event log.
func rerunDecisions(ctx context.Context, events, runID string) ([]Decision, error) {
	l, err := eventlog.OpenReadOnly(ctx, events)
	if err != nil {
		return nil, fmt.Errorf("rerun: the rerun's event log: %w", err)
	}
	defer l.Close()
	evs, err := l.Events(ctx, runID, eventlog.Query{})
	if err != nil {
		return nil, fmt.Errorf("rerun: the rerun's events: %w", err)
	}
	return Decisions(evs)
}

// uniqueMisses drops repeats of a miss (Chromium asks again once for a
// refused navigation), keeping the first of each.
func uniqueMisses(ms []replay.Miss) []replay.Miss {
	seen := map[string]bool{}
	var out []replay.Miss
	for _, m := range ms {
		k := fmt.Sprint(m.BranchID, m.Step, m.Method, m.URL)
		if !seen[k] {
			seen[k] = true
			out = append(out, m)
		}
	}
	return out
}

// recordedVolatile is the commit form's fields the recorded run's
// committer found changing on every load of the boundary page, from its
// ledger event; nil when it recorded none (then the rerun's committer
// looks for itself).
func recordedVolatile(evs []eventlog.Event) []string {
	for _, e := range evs {
		if e.Kind != eventlog.KindLedger {
			continue
		}
		p, err := payload.Decode[payload.Ledger](e)
		if err != nil || p.Form == nil {
			continue
		}
		out := []string{}
		for _, d := range p.Form.Dropped {
			if d.Reason == "changes_per_load" {
				out = append(out, d.Name)
			}
		}
		return out
	}
	return nil
}
