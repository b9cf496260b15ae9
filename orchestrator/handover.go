package orchestrator

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
)

// A run that ends in an error hands over what it explored, so the failure
// can be replayed elsewhere (a CI job keeps the bundles as artifacts and
// replays them in a later job): the bundles of the branches
// replay.PickForFailure picks from the run's events.

// handOverBudget bounds the writing of a failed run's bundles: local
// reads and writes, done even after the run's context was cancelled (an
// interrupted run is a failure worth replaying too).
const handOverBudget = time.Minute

// handOver writes the bundles of a run that ended in an error under
// bundles/RUN_ID/ and lists them in the summary. It records what it wrote,
// or why not, in the event log; it never changes the run's error.
func (r *run) handOver(ctx context.Context) {
	if r.cfg.FailureBundles <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), handOverBudget)
	defer cancel()
	if err := r.rec.flush(ctx); err != nil {
		r.sum.Paths.FailureBundles = []FailureBundle{{Error: r.sc.Text(err.Error())}}
		return
	}
	evs, err := r.elog.Events(ctx, r.runID, eventlog.Query{})
	if errors.Is(err, eventlog.ErrRunNotFound) {
		return // the run ended before it recorded anything: no branch to hand over
	}
	if err != nil {
		r.rec.add(zeroTime, 0, eventlog.KindError, "", map[string]any{"where": "bundle", "error": r.sc.Text(err.Error())})
		r.sum.Paths.FailureBundles = []FailureBundle{{Error: r.sc.Text(err.Error())}}
		return
	}
	picks := replay.PickForFailure(evs, r.cfg.FailureBundles)
	if len(picks) == 0 {
		return
	}
	r.sum.Paths.FailureBundleDir = FailureBundleDir(r.dd, r.runID)
	for _, p := range picks {
		fb := FailureBundle{Pick: p}
		path := FailureBundlePath(r.dd, r.runID, p.BranchID)
		err := r.writeBundle(ctx, p.BranchID, bundle.KindBranch, path, p.Reason)
		if err != nil {
			fb.Error = err.Error()
		} else {
			fb.Path, fb.Replay = path, ReplayCommand(path)
		}
		r.sum.Paths.FailureBundles = append(r.sum.Paths.FailureBundles, fb)
	}
}

// FailureBundleDir is where a run that ended in an error writes the
// bundles of its branches: DATA_DIR/bundles/RUN_ID. A CI job keeps
// DATA_DIR/bundles/*/*.bundle (deploy/ci).
func FailureBundleDir(dataDir, runID string) string {
	return filepath.Join(dataDir, "bundles", runID)
}

// FailureBundlePath is the bundle of one branch in FailureBundleDir:
// DATA_DIR/bundles/RUN_ID/BRANCH_ID.bundle.
func FailureBundlePath(dataDir, runID, branchID string) string {
	return filepath.Join(FailureBundleDir(dataDir, runID), branchID+".bundle")
}

// shellSafe matches paths a shell takes as they are.
var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:@%+=,-]+$`)

// ReplayCommand is the command line that replays the bundle at path
// strictly, quoted for a POSIX shell.
func ReplayCommand(path string) string {
	return "orchestrator replay " + shellQuote(path)
}

func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
