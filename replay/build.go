package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/eventlog/payload"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// ErrNotRecorded: the run's records lack something the bundle needs (the
// branch was never executed, say).
var ErrNotRecorded = errors.New("replay: not recorded")

// Source is where a run's records live.
type Source struct {
	Events *eventlog.Log
	Store  *artifacts.FS
	// Ledger is needed for commit bundles.
	Ledger *ledger.Ledger
}

// recordedStep is what the events say about a branch's last step; a nil
// part was not recorded (or did not decode).
type recordedStep struct {
	end  *payload.ActionEnd
	nav  *payload.Nav
	snap *payload.DOMSnapshot
	// net is the requests of the branch's own step; prefix, those of the
	// prefix it replayed in a context of its own, recorded when prefixNet
	// (each record's Step says which step).
	net, prefix []branch.NetRecord
	executed    bool
	warm        bool // it continued its parent's context
	prefixNet   bool
}

// Build assembles the bundle of a branch of a run. A branch bundle holds
// the branch's steps; a commit bundle (kind commit) adds the committer's
// own steps (writing the key, the commit action) and their recorded
// network, so a third party can replay the submit against the recorded
// response.
func Build(ctx context.Context, src Source, runID, branchID string, kind bundle.Kind) (*bundle.Bundle, error) {
	rr, err := readRun(ctx, src, runID)
	if err != nil {
		return nil, err
	}
	return build(ctx, src, rr, branchID, kind)
}

// runRecords is what a run's events say, sorted by branch: read once, it
// builds the bundle of any of the run's branches.
type runRecords struct {
	runID    string
	evs      []eventlog.Event
	rs       payload.RunStart
	forks    map[string]payload.BranchFork
	steps    map[string]*recordedStep
	byBranch map[string][]eventlog.Event
	// states are the run's start_state events, in order.
	states []eventlog.Event
}

// readRun reads a run's events. It fails with ErrNotRecorded when the run
// has no run_start event.
func readRun(ctx context.Context, src Source, runID string) (*runRecords, error) {
	evs, err := src.Events.Events(ctx, runID, eventlog.Query{})
	if err != nil {
		return nil, fmt.Errorf("replay: events of run %s: %w", runID, err)
	}
	if len(evs) == 0 || evs[0].Kind != eventlog.KindRunStart {
		return nil, fmt.Errorf("%w: run %s has no run_start event", ErrNotRecorded, runID)
	}
	rs, err := payload.Decode[payload.RunStart](evs[0])
	if err != nil {
		return nil, fmt.Errorf("replay: run_start of %s: %w", runID, err)
	}
	rr := &runRecords{runID: runID, evs: evs, rs: rs, forks: map[string]payload.BranchFork{},
		steps: map[string]*recordedStep{}, byBranch: map[string][]eventlog.Event{}}
	for _, e := range evs {
		if e.BranchID != "" {
			rr.byBranch[e.BranchID] = append(rr.byBranch[e.BranchID], e)
		}
		switch e.Kind {
		case eventlog.KindBranchFork:
			if f, err := payload.Decode[payload.BranchFork](e); err == nil {
				rr.forks[e.BranchID] = f
			}
		case eventlog.KindNet:
			if n, err := payload.Decode[payload.Net](e); err == nil {
				st := stepOf(rr.steps, e.BranchID)
				if f, ok := rr.forks[e.BranchID]; ok && n.Step < len(f.Plan) {
					st.prefix = append(st.prefix, n.NetRecord)
				} else {
					st.net = append(st.net, n.NetRecord)
				}
			}
		case eventlog.KindActionStart:
			if s, err := payload.Decode[payload.ActionStart](e); err == nil && !s.Replayed {
				st := stepOf(rr.steps, e.BranchID)
				st.warm, st.prefixNet = s.Warm != nil && *s.Warm, s.PrefixNet
			}
		case eventlog.KindActionEnd:
			st := stepOf(rr.steps, e.BranchID)
			if end, err := payload.Decode[payload.ActionEnd](e); err != nil {
				st.end, st.executed = nil, true
			} else if !end.Replayed {
				st.end, st.executed = &end, true
			}
		case eventlog.KindStartState:
			rr.states = append(rr.states, e)
		case eventlog.KindNav:
			st := stepOf(rr.steps, e.BranchID)
			st.nav = decoded[payload.Nav](e)
		case eventlog.KindDOMSnapshot:
			st := stepOf(rr.steps, e.BranchID)
			st.snap = decoded[payload.DOMSnapshot](e)
		}
	}
	return rr, nil
}

// chain returns the branches from the root to branchID, the k-th of which
// executed step k: what the branch's bundle is made of. It fails with
// ErrNotRecorded when the run has no such branch or a step of the chain
// was not executed and observed.
func (rr *runRecords) chain(branchID string) ([]string, error) {
	leaf, ok := rr.forks[branchID]
	if !ok {
		return nil, fmt.Errorf("%w: run %s has no branch %s", ErrNotRecorded, rr.runID, branchID)
	}
	var chain []string
	for id := branchID; id != ""; id = rr.forks[id].Parent {
		chain = append([]string{id}, chain...)
		if len(chain) > len(leaf.Plan)+1 {
			return nil, fmt.Errorf("replay: branch %s: the parent chain is longer than its plan", branchID)
		}
	}
	if len(chain) != len(leaf.Plan) {
		return nil, fmt.Errorf("replay: branch %s: %d ancestors for %d steps", branchID, len(chain), len(leaf.Plan))
	}
	for k, id := range chain {
		if st := rr.steps[id]; st == nil || !st.executed || st.snap == nil {
			return nil, fmt.Errorf("%w: step %d of branch %s (branch %s) was not executed and observed", ErrNotRecorded, k+1, branchID, id)
		}
	}
	return chain, nil
}

// contextOrigin is the index in chain of the branch whose browser context
// the chain's last step ran in: the last one that did not continue its
// parent's, provided it recorded the requests of the prefix it replayed
// (0 otherwise: each step's requests are its own branch's, as runs
// recorded them before prefixes were).
func (rr *runRecords) contextOrigin(chain []string) int {
	o := len(chain) - 1
	for o > 0 && rr.steps[chain[o]].warm {
		o--
	}
	if !rr.steps[chain[o]].prefixNet {
		return 0
	}
	return o
}

// build assembles the bundle of a branch from the run's records.
func build(ctx context.Context, src Source, rr *runRecords, branchID string, kind bundle.Kind) (*bundle.Bundle, error) {
	chain, err := rr.chain(branchID)
	if err != nil {
		return nil, err
	}
	runID, rs, leaf, steps, byBranch, evs := rr.runID, rr.rs, rr.forks[branchID], rr.steps, rr.byBranch, rr.evs
	b := &bundle.Bundle{Files: map[string][]byte{}}
	m := &b.Manifest
	*m = bundle.Manifest{Schema: bundle.Schema, Kind: kind, RunID: runID, BranchID: branchID, PlanDigest: leaf.PlanDigest,
		TaskDigest: rs.TaskDigest, TaskName: rs.Task, Seed: rs.Seed, BranchSeed: strconv.FormatUint(leaf.Seed, 10),
		Origin: rs.Origin, StartURL: rs.StartURL, Plan: append(branch.Plan(nil), leaf.Plan...), Steps: len(leaf.Plan), Created: time.Now().UTC().Truncate(time.Second),
		NetDigest: rs.NetDigest}
	env := rs.Environment
	adv, timeout := time.Duration(env.StepAdvance), time.Duration(rs.Budgets.ActionTimeout)
	m.Environment = bundle.Environment{Width: env.Viewport.Width, Height: env.Viewport.Height, DeviceScaleFactor: env.DeviceScaleFactor,
		Locale: env.Locale, Timezone: env.Timezone, UserAgent: env.UserAgent, ClockMS: env.Clock.UnixMilli(),
		StepAdvanceMS: adv.Milliseconds(), ActionTimeoutMS: timeout.Milliseconds()}
	fp := rs.Fingerprint
	m.Fingerprint = bundle.Fingerprint{Browser: fp.Browser, DriverVersion: fp.DriverVersion, OS: fp.OS, Arch: fp.Arch}
	m.Inputs = map[string]bundle.InputRef{}
	for _, a := range leaf.Plan {
		if a.Input != "" {
			in := rs.Inputs[a.Input]
			m.Inputs[a.Input] = bundle.InputRef{Token: in.Token, Secret: in.Secret}
		}
	}
	for _, g := range rs.Guard {
		m.Guard = append(m.Guard, bundle.Guard{Method: g.Method, URL: g.URL})
	}
	m.HoldsWrites = rs.HoldsWrites
	if x := rs.Explore; x != nil {
		m.Origins = x.Origins
		for _, g := range x.Allow {
			m.Allow = append(m.Allow, bundle.Guard{Method: g.Method, URL: g.URL})
		}
	}
	if err := addStartState(ctx, b, src.Store, rr.startState(branchID)); err != nil {
		return nil, err
	}
	seq := 0
	// The requests come from the browser context the branch's last step
	// ran in: it began at the chain's last branch that did not continue
	// its parent's context, which replayed the steps before its own. Those
	// steps' hashes were observed in the ancestors' contexts: advisory.
	origin := rr.contextOrigin(chain)
	for k, id := range chain {
		st := steps[id]
		end, nav, snap := st.end, st.nav, st.snap
		if end == nil {
			end = &payload.ActionEnd{}
		}
		if nav == nil {
			nav = &payload.Nav{}
		}
		step := bundle.Step{Index: k + 1, Action: leaf.Plan[k], Status: end.Status, Code: end.Code,
			Strategy: end.Strategy, Via: end.Via, Console: end.Console, URL: nav.URL, Title: nav.Title,
			DOMHash: snap.DOMHash, AXHash: snap.AXHash, NetDigest: snap.NetDigest,
			ScreenshotHash: snap.Screenshot, Predicates: snap.Predicates, Live: snap.Live, Advisory: k < origin}
		step.VirtualTimeMS = vtOf(byBranch[id])
		if err := attach(ctx, b, src.Store, k+1, snap.DOMArtifact, snap.AXArtifact, step.ScreenshotHash); err != nil {
			return nil, err
		}
		b.Steps = append(b.Steps, step)
		addRecall(m, rs, snap.Recall)
		recs := st.net
		if k < origin {
			recs = steps[chain[origin]].prefix
		}
		for _, n := range recs {
			if n.Step != k+1 && k < origin {
				continue // another step of the prefix
			}
			seq++
			if err := addEntry(ctx, b, src.Store, n, seq, k+1); err != nil {
				return nil, err
			}
		}
	}
	// Events: the run's start and everything about the chain.
	inChain := map[string]bool{}
	for _, id := range chain {
		inChain[id] = true
	}
	for _, e := range evs {
		if e.Kind == eventlog.KindRunStart || inChain[e.BranchID] {
			b.Events = append(b.Events, e)
		}
	}
	if kind == bundle.KindCommit {
		if err := addCommit(ctx, b, src, runID, branchID, &seq); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// addRecall adds a step's recall entries to the manifest's recall.
func addRecall(m *bundle.Manifest, rs payload.RunStart, tokens map[string]string) {
	if rs.RecallSalt == "" || rs.RecallIterations <= 0 || len(tokens) == 0 {
		return
	}
	if m.Recall == nil {
		m.Recall = &scrub.Recall{Salt: rs.RecallSalt, Iterations: rs.RecallIterations, Tokens: map[string]string{}}
	}
	for h, tok := range tokens {
		m.Recall.Tokens[h] = tok
	}
}

// startState is the digest of the state a branch's last step started
// from: the run's latest start_state before that step ended ("" when
// there is none).
func (rr *runRecords) startState(branchID string) string {
	var end int64
	for _, e := range rr.byBranch[branchID] {
		if e.Kind == eventlog.KindActionEnd {
			end = e.Seq
		}
	}
	d := ""
	for _, e := range rr.states {
		if end != 0 && e.Seq > end {
			break
		}
		if s, err := payload.Decode[payload.StartState](e); err == nil {
			d = s.State
		}
	}
	return d
}

// addStartState puts the state the branch started from into the bundle.
func addStartState(ctx context.Context, b *bundle.Bundle, store *artifacts.FS, d string) error {
	if d == "" {
		return nil
	}
	data, err := store.Get(ctx, artifacts.Digest(d))
	if err != nil {
		return fmt.Errorf("replay: the start state %s: %w", d, err)
	}
	b.Files[bundle.BodyPath(d)] = data
	b.Manifest.StartState = d
	return nil
}

func stepOf(m map[string]*recordedStep, id string) *recordedStep {
	st := m[id]
	if st == nil {
		st = &recordedStep{}
		m[id] = st
	}
	return st
}

// vtOf is the virtual time after a branch's last executed action.
func vtOf(evs []eventlog.Event) int64 {
	var vt int64
	for _, e := range evs {
		if e.Kind == eventlog.KindActionEnd && e.VirtualTime > vt {
			vt = e.VirtualTime
		}
	}
	return vt
}

// attach copies a step's content files (DOM, accessibility snapshot,
// screenshot) from the artifact store into the bundle.
func attach(ctx context.Context, b *bundle.Bundle, store *artifacts.FS, step int, dom, ax, shot string) error {
	for _, f := range []struct{ path, digest string }{{bundle.DOMPath(step), dom}, {bundle.AXPath(step), ax}, {bundle.ScreenshotPath(step), shot}} {
		if f.digest == "" {
			continue
		}
		data, err := store.Get(ctx, artifacts.Digest(f.digest))
		if err != nil {
			return fmt.Errorf("replay: artifact %s of step %d: %w", f.digest, step, err)
		}
		b.Files[f.path] = data
	}
	return nil
}

// addEntry adds a recorded request and its body.
func addEntry(ctx context.Context, b *bundle.Bundle, store *artifacts.FS, n branch.NetRecord, seq, step int) error {
	e := bundle.EntryFromRecord(n)
	e.Seq, e.Step = seq, step
	if e.BodySHA256 != "" {
		data, err := store.Get(ctx, artifacts.Digest(e.BodySHA256))
		if err != nil {
			return fmt.Errorf("replay: body %s of %s %s: %w", e.BodySHA256, e.Method, e.URL, err)
		}
		b.Files[bundle.BodyPath(e.BodySHA256)] = data
	}
	if e.RequestBodySHA256 != "" {
		// What was submitted (scrubbed); runs recorded before request
		// bodies were stored have only the hash.
		if data, err := store.Get(ctx, artifacts.Digest(e.RequestBodySHA256)); err == nil {
			b.Files[bundle.BodyPath(e.RequestBodySHA256)] = data
		}
	}
	b.Network = append(b.Network, e)
	return nil
}

// decoded is the payload of e, nil when it does not decode.
func decoded[T payload.Payload](e eventlog.Event) *T {
	v, err := payload.Decode[T](e)
	if err != nil {
		return nil
	}
	return &v
}

// commitStep is a step the committer recorded in the ledger.
type commitStep struct {
	Action      branch.Action `json:"action"`
	Status      string        `json:"status"`
	Code        branch.Code   `json:"code"`
	Strategy    string        `json:"strategy"`
	Via         string        `json:"via"`
	VirtualTime int64         `json:"virtual_time_ms"`
	URL         string        `json:"url"`
	Title       string        `json:"title"`
	DOMHash     string        `json:"dom_hash"`
	AXHash      string        `json:"ax_hash"`
	NetDigest   string        `json:"net_digest"`
	DOMArtifact string        `json:"dom_artifact"`
	AXArtifact  string        `json:"ax_artifact"`
	Screenshot  string        `json:"screenshot"`
}

func addCommitSteps(ctx context.Context, b *bundle.Bundle, store *artifacts.FS, steps []commitStep, transcript []branch.NetRecord, seq *int) error {
	for i, cs := range steps {
		idx := len(b.Steps) + 1
		b.Manifest.Plan = append(b.Manifest.Plan, cs.Action)
		b.Steps = append(b.Steps, bundle.Step{Index: idx, Action: cs.Action, Status: cs.Status, Code: cs.Code, Strategy: cs.Strategy, Via: cs.Via,
			VirtualTimeMS: cs.VirtualTime, URL: cs.URL, Title: cs.Title, DOMHash: cs.DOMHash, AXHash: cs.AXHash,
			NetDigest: cs.NetDigest, ScreenshotHash: cs.Screenshot})
		if err := attach(ctx, b, store, idx, cs.DOMArtifact, cs.AXArtifact, cs.Screenshot); err != nil {
			return err
		}
		if i == len(steps)-1 { // the commit action's requests
			for _, n := range transcript {
				*seq++
				if err := addEntry(ctx, b, store, n, *seq, idx); err != nil {
					return err
				}
			}
		}
	}
	b.Manifest.Steps = len(b.Manifest.Plan)
	return nil
}

// recovery is what a row finalized by the confirm probe says about who
// found it (commit.Committer.Recover).
type recovery struct {
	Source string `json:"source"`
	By     string `json:"recovered_by"`
	Branch string `json:"recovered_branch"`
}

// recoveredBy finds the committed row run recovered for branchID (or
// without naming a branch, at the run's start): nil when none.
func recoveredBy(ctx context.Context, l *ledger.Ledger, runID, branchID string) (*ledger.Entry, recovery, error) {
	es, err := l.List(ctx, ledger.Filter{State: ledger.StateCommitted})
	if err != nil {
		return nil, recovery{}, fmt.Errorf("replay: ledger: %w", err)
	}
	for i := range es {
		var rec recovery
		if json.Unmarshal(es[i].Confirmation, &rec) != nil || rec.Source != "probe" || rec.By != runID {
			continue
		}
		if rec.Branch == branchID || rec.Branch == "" {
			return &es[i], rec, nil
		}
	}
	return nil, recovery{}, nil
}

func addCommit(ctx context.Context, b *bundle.Bundle, src Source, runID, branchID string, seq *int) error {
	if src.Ledger == nil {
		return fmt.Errorf("replay: a commit bundle needs the ledger")
	}
	es, err := src.Ledger.List(ctx, ledger.Filter{RunID: runID})
	if err != nil {
		return fmt.Errorf("replay: ledger: %w", err)
	}
	var entry *ledger.Entry
	for i := range es {
		if es[i].BranchID == branchID && es[i].State.Committed() {
			entry = &es[i]
		}
	}
	var conf struct {
		Steps []commitStep `json:"steps"`
	}
	var rec recovery
	if entry == nil {
		// A commit this run finalized for an earlier run's row (the
		// confirm probe found it): the row names the earlier run, its
		// confirmation the run (and branch) that recovered it.
		if entry, rec, err = recoveredBy(ctx, src.Ledger, runID, branchID); err != nil {
			return err
		}
	}
	if entry == nil {
		return fmt.Errorf("%w: no committed ledger entry for branch %s of run %s", ErrNotRecorded, branchID, runID)
	}
	json.Unmarshal(entry.Confirmation, &conf)
	if rec.By == "" {
		json.Unmarshal(entry.Confirmation, &rec)
	}
	if len(conf.Steps) == 0 && rec.Source != "probe" {
		return fmt.Errorf("%w: the commit of branch %s recorded no steps (committed before commit recording)", ErrNotRecorded, branchID)
	}
	var transcript []branch.NetRecord
	if d := entry.Artifacts["submit_transcript"]; d != "" {
		data, err := src.Store.Get(ctx, artifacts.Digest(d))
		if err != nil {
			return fmt.Errorf("replay: submit transcript: %w", err)
		}
		if err := json.Unmarshal(data, &transcript); err != nil {
			return fmt.Errorf("replay: submit transcript: %w", err)
		}
	}
	// The guard stays: it names what the committer sent and no replay may
	// send; the committer's steps are named so a replay knows where the
	// commit boundary is.
	b.Manifest.Commit = &bundle.CommitInfo{Key: entry.Key, EntryID: entry.ID, OrderID: entry.OrderID, Evidence: entry.Artifacts}
	if len(conf.Steps) > 0 {
		b.Manifest.Commit.FirstStep, b.Manifest.Commit.ActionStep = len(b.Steps)+1, len(b.Steps)+len(conf.Steps)
	} else {
		// Found by the confirm probe: the commit action ran in an earlier
		// attempt whose answer was never seen; this bundle holds the path
		// to the boundary and the ledger's record, no commit step.
		b.Manifest.Notes = append(b.Manifest.Notes, fmt.Sprintf("commit recovered: the confirm probe found order %s under key %s (ledger entry %s, recorded by run %s); the commit action ran in an earlier attempt, so this bundle holds no commit step",
			entry.OrderID, entry.Key, entry.ID, entry.RunID))
	}
	names := make([]string, 0, len(entry.Artifacts))
	for k := range entry.Artifacts {
		names = append(names, k)
	}
	sort.Strings(names)
	// The evidence travels with the bundle, content-addressed like the
	// bodies: the submit transcript, and the invoice as it is kept (sealed
	// with the data dir's evidence key when it could not be scrubbed).
	for _, k := range names {
		d := entry.Artifacts[k]
		data, err := src.Store.Get(ctx, artifacts.Digest(d))
		switch {
		case errors.Is(err, artifacts.ErrNotFound):
			continue // a digest only: the plaintext of sealed evidence is never kept
		case err != nil:
			return fmt.Errorf("replay: commit evidence %s: %w", k, err)
		}
		b.Files[bundle.BodyPath(d)] = data
	}
	b.Manifest.Notes = append(b.Manifest.Notes, "commit evidence: "+strings.Join(names, ", "))
	return addCommitSteps(ctx, b, src.Store, conf.Steps, transcript, seq)
}
