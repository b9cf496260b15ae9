package orchestrator

import (
	"errors"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/commit"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// Errors callers branch on; ExitCode maps them to the CLI's exit codes.
var (
	// ErrNoBoundary: no branch reached the commit boundary with its goal
	// met within the budgets.
	ErrNoBoundary = errors.New("orchestrator: no branch reached the commit boundary within budget")
	// ErrGoalNotReached: a task without commit whose goal no branch
	// reached within the budgets (exit 3, as ErrNoBoundary).
	ErrGoalNotReached = errors.New("orchestrator: no branch reached the goal within budget")
	// ErrGoalFailed: the search ended before any budget ran out with no
	// winner, and branches ended in a goal.failure predicate: the site
	// said no (an error banner, a rejected form).
	ErrGoalFailed = errors.New("orchestrator: the goal failed")
	// ErrSiteUnreachable: the start URL cannot be loaded (connection
	// refused, DNS, 5xx, redirect loop).
	ErrSiteUnreachable = errors.New("orchestrator: the site is unreachable")
	// ErrBadInput: a flag or the data dir is unusable.
	ErrBadInput = errors.New("orchestrator: bad input")
	// ErrNoWorkers: a run with only remote workers found none.
	ErrNoWorkers = errors.New("orchestrator: no workers")
	// ErrSideEffect: a task without commit whose search ended without
	// its goal, and branches stopped at a side-effect boundary: the goal
	// needs a request that changes the site, which only a commit sends.
	ErrSideEffect = errors.New("orchestrator: stopped at a side-effect boundary")
	// ErrVerify: an audit (ledger verify, bundle validate, replay) found
	// the record does not hold.
	ErrVerify = errors.New("verification failed")
	// ErrInterrupted: the caller stopped the run (Ctrl-C, SIGTERM): it
	// ended where it was, and what it recorded is kept.
	ErrInterrupted = errors.New("orchestrator: interrupted")
)

// Exit codes of the CLI. DESIGN.md lists 0-4; 5 and 6 separate a missing
// browser part and an unreachable site from bad input, 7 is a failed
// audit (ledger verify, bundle validation, a replay that diverged), and 8
// a goal that failed definitely (goal.failure held, the search ended
// before its budgets), 9 a model question its cassette did not hold or
// could not read (--llm replay), 10 a task without commit that stopped at
// a side-effect boundary (its goal needs a request only a commit may
// send), 11 a model endpoint that did not answer (without
// planner.fallback: heuristic), 12 a commit whose post-checks failed
// (it was undone by commit.compensate, or its undo failed), 130 a run the caller interrupted (as
// shells report a process Ctrl-C ended).
const (
	ExitOK          = 0
	ExitInternal    = 1
	ExitBadInput    = 2
	ExitNoBoundary  = 3
	ExitAborted     = 4
	ExitEnvironment = 5
	ExitSite        = 6
	ExitVerify      = 7
	ExitGoalFailed  = 8
	ExitModelMiss   = 9
	ExitSideEffect  = 10
	ExitModelDown   = 11
	ExitCompensated = 12
	ExitInterrupted = 130
)

// ExitCode maps an error of Run (or of loading a task) to an exit code.
func ExitCode(err error) int {
	var coded *CodedError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &coded):
		return coded.Code
	case errors.Is(err, ErrInterrupted):
		return ExitInterrupted
	case errors.Is(err, task.ErrInvalid), errors.Is(err, ErrBadInput), errors.Is(err, task.ErrSecretMissing),
		errors.Is(err, ErrLoginFailed), errors.Is(err, ErrAuthRequired), // credentials that do not log in
		errors.Is(err, bus.ErrStorageFull): // the data dir's disk is full
		return ExitBadInput
	case errors.Is(err, commit.ErrPostcheckFailed):
		return ExitCompensated
	case errors.Is(err, ErrGoalFailed):
		return ExitGoalFailed
	case errors.Is(err, ErrModelMiss):
		return ExitModelMiss
	case errors.Is(err, ErrModelDown):
		return ExitModelDown
	case errors.Is(err, ErrSideEffect):
		return ExitSideEffect
	case errors.Is(err, ErrNoBoundary), errors.Is(err, ErrGoalNotReached):
		return ExitNoBoundary
	case errors.Is(err, commit.ErrNoCandidate), errors.Is(err, commit.ErrSubmitFailed), errors.Is(err, commit.ErrBusy),
		errors.Is(err, commit.ErrUncertain), errors.Is(err, commit.ErrAuditTrail), errors.Is(err, commit.ErrRefused),
		errors.Is(err, commit.ErrIntentMismatch), errors.Is(err, commit.ErrCompensationFailed):
		return ExitAborted
	case errors.Is(err, browser.ErrChromiumNotFound), errors.Is(err, browser.ErrDriverNotFound), errors.Is(err, ErrNoWorkers):
		return ExitEnvironment
	case errors.Is(err, ErrSiteUnreachable):
		return ExitSite
	case errors.Is(err, ErrVerify):
		return ExitVerify
	}
	return ExitInternal
}

// CodedError is the error of a run that ended elsewhere (on a warm
// engine), as it reported it: its message and its exit code.
type CodedError struct {
	Code int
	Msg  string
}

func (e *CodedError) Error() string { return e.Msg }
