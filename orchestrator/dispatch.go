package orchestrator

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/planner"
)

// eventAdder buffers a run's events; *recorder is the one the run uses.
type eventAdder interface {
	add(t time.Time, vt int64, kind, branchID string, payload any, arts ...string)
}

var _ eventAdder = (*recorder)(nil)

// dispatcher sends branch jobs over the bus and keeps what the bus says
// about them: which worker claimed which attempt of a branch, and which
// routed job still waits for the worker holding its parent's live
// context. It holds no search state: the wave loop (runWave) decides what
// a result means for the search. One dispatcher serves one run and is
// used from the run's goroutine only.
type dispatcher struct {
	client *bus.Client
	runID  string
	log    *slog.Logger
	events eventAdder
	// alive reports whether a worker still announces itself.
	alive  func(worker string) bool
	claims <-chan bus.Claim
	// claimed holds the latest attempt claimed per branch (results of
	// older attempts are stale); claimedBy names the worker of it.
	claimed   map[string]int
	claimedBy map[string]string
	// routedTo names the worker route a branch's job was sent to (and
	// stayed with: a rerouted job is dropped from it).
	routedTo map[string]string
	// routeWait is how long a routed job nobody claimed waits for its
	// worker before any worker may run it.
	routeWait time.Duration
}

func newDispatcher(client *bus.Client, runID string, log *slog.Logger, events eventAdder, claims <-chan bus.Claim, alive func(string) bool) *dispatcher {
	return &dispatcher{client: client, runID: runID, log: log, events: events, alive: alive, claims: claims,
		claimed: map[string]int{}, claimedBy: map[string]string{}, routedTo: map[string]string{}, routeWait: routeWait}
}

// outJob is the encoded job of one branch, ready to publish.
type outJob struct {
	branchID string
	data     []byte
	hdr      nats.Header
	// route is the worker route holding the parent's live context, ""
	// for any worker.
	route string
}

// routedJob is a job published to one worker's route, until that worker
// claims it or it is queued for any worker.
type routedJob struct {
	outJob
	seq uint64
}

// publish queues the jobs at once (each publish waits for the store's
// fsync, and the waits overlap). A job with a route goes to that worker;
// when that fails it is queued for any worker. It returns the jobs that
// went to a route, which reroute watches.
func (d *dispatcher) publish(ctx context.Context, jobs []outJob) ([]routedJob, error) {
	errs := make([]error, len(jobs))
	seqs := make([]uint64, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if j.route != "" {
				pctx, cancel := context.WithTimeout(ctx, publishTimeout)
				seqs[i], errs[i] = d.client.PublishRouted(pctx, d.runID, j.branchID, j.route, j.data, j.hdr)
				cancel()
				if errs[i] == nil {
					return
				}
				d.log.Warn("routing a job failed; queueing it for any worker", "branch_id", j.branchID, "error", errs[i])
			}
			errs[i] = d.client.PublishJob(ctx, d.runID, j.branchID, j.data, j.hdr)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("orchestrator: publishing branch %s: %w", jobs[i].branchID, err)
		}
	}
	var routed []routedJob
	for i, j := range jobs {
		if seqs[i] > 0 {
			routed = append(routed, routedJob{j, seqs[i]})
			d.routedTo[j.branchID] = j.route
		}
	}
	return routed, nil
}

// reroute queues for any worker each routed job no one claimed within
// routeWait of publishing (waited is the time since), or whose claiming
// worker fell silent (killed, stopped); its attempts count on. Jobs whose
// branch answered are dropped. It returns the jobs still waiting for
// their worker and how many it queued for any worker.
func (d *dispatcher) reroute(ctx context.Context, pending []routedJob, answered func(branchID string) bool, waited time.Duration) ([]routedJob, int, error) {
	d.drainClaims()
	var kept []routedJob
	n := 0
	for _, rj := range pending {
		if answered(rj.branchID) {
			continue
		}
		claimed := d.claimed[rj.branchID]
		if claimed > 0 && d.alive(d.claimedBy[rj.branchID]) || claimed == 0 && waited < d.routeWait {
			kept = append(kept, rj)
			continue
		}
		removed, err := d.client.Unroute(ctx, rj.seq)
		if err != nil {
			kept = append(kept, rj) // the server is away: look again
			continue
		}
		if !removed {
			continue // its worker finished it: the result is on its way
		}
		hdr := rj.hdr
		if claimed > 0 {
			hdr = maps.Clone(hdr)
			hdr.Set(bus.HeaderAttemptBase, strconv.Itoa(claimed))
		}
		if err := d.client.PublishJob(ctx, d.runID, rj.branchID, rj.data, hdr); err != nil {
			return nil, n, fmt.Errorf("orchestrator: publishing branch %s: %w", rj.branchID, err)
		}
		n++
		delete(d.routedTo, rj.branchID)
		d.log.Info("routed job queued for any worker", "branch_id", rj.branchID, "claimed_attempt", claimed, "claimed_by", d.claimedBy[rj.branchID])
	}
	return kept, n, nil
}

// noteClaim records a delivery claim.
func (d *dispatcher) noteClaim(c bus.Claim) {
	if c.Attempt > d.claimed[c.BranchID] {
		d.claimed[c.BranchID] = c.Attempt
		d.claimedBy[c.BranchID] = c.Worker
	}
}

// drainClaims records the claims that arrived so far.
func (d *dispatcher) drainClaims() {
	for {
		select {
		case c := <-d.claims:
			d.noteClaim(c)
		default:
			return
		}
	}
}

// counts reports whether a delivered result is the one that counts for
// its branch, and records why not: a result of a branch not in the wave
// (inWave false) that was already folded is stale, one of a branch that
// already answered is a duplicate, and one of an attempt older than the
// latest claimed is stale (the job was delivered again after its worker
// stalled past its ack deadline: another delivery owns it now).
func (d *dispatcher) counts(m bus.Result, inWave, answered, folded bool) bool {
	switch {
	case !inWave:
		// An earlier wave's late or duplicate delivery (a worker that
		// stalled past its ack deadline, say): that branch was already
		// folded; this result never counts.
		if folded {
			d.events.add(time.Time{}, 0, eventlog.KindStaleResult, m.BranchID, map[string]any{"attempt": m.Attempt, "reason": "the branch was already folded"})
		}
		return false
	case answered:
		d.events.add(time.Time{}, 0, eventlog.KindDuplicateResult, m.BranchID, map[string]any{"attempt": m.Attempt})
		return false
	}
	d.drainClaims()
	if last := d.claimed[m.BranchID]; m.Attempt < last {
		d.events.add(time.Time{}, 0, eventlog.KindStaleResult, m.BranchID, map[string]any{"attempt": m.Attempt, "latest_attempt": last})
		return false
	}
	return true
}

// dead fails the open branches whose jobs used up their deliveries: they
// will never answer. The server's advisory is kept in MV_DEAD even if
// this process was not listening when it fired. why says what the
// branch's last delivery failed with.
func (d *dispatcher) dead(ctx context.Context, open func(branchID string) bool, why func(branchID string) string) map[string]planner.Outcome {
	jobs, err := d.client.DeadJobs(ctx, d.runID)
	if err != nil {
		return nil
	}
	out := map[string]planner.Outcome{}
	for _, j := range jobs {
		if _, seen := out[j.BranchID]; seen || !open(j.BranchID) {
			continue
		}
		msg := why(j.BranchID)
		out[j.BranchID] = planner.Outcome{Code: "exhausted_deliveries", Msg: fmt.Sprintf("the job failed %d deliveries; %s", j.Attempt, msg)}
		d.events.add(time.Time{}, 0, eventlog.KindError, j.BranchID, map[string]any{"where": "dispatch", "code": "exhausted_deliveries",
			"attempts": j.Attempt, "error": msg})
	}
	return out
}

// lost fails the branches that had no result within their budget plus
// ResultGrace.
func (d *dispatcher) lost(open []string) map[string]planner.Outcome {
	out := make(map[string]planner.Outcome, len(open))
	for _, id := range open {
		out[id] = planner.Outcome{Code: "lost", Msg: "no result within the branch budget plus grace"}
		d.events.add(time.Time{}, 0, eventlog.KindError, id, map[string]any{"where": "dispatch", "error": "no result from any worker"})
	}
	return out
}
