package orchestrator

import "time"

// How long a run waits for the parts it does not control: workers, the
// bus, the site. The task's own budgets (wall clock, branch wall clock,
// action timeout) bound the rest.
const (
	// ResultGrace is how long past a branch's own wall clock budget the
	// orchestrator waits for its result before counting it lost.
	ResultGrace = 30 * time.Second
	// WorkerWait is how long a run with only remote workers waits for the
	// first one to join.
	WorkerWait = 60 * time.Second
	// workerPoll is how often a run waiting for remote workers looks.
	workerPoll = 200 * time.Millisecond
	// workerStopWait bounds how long the end of a run waits for its
	// in-process workers to return their slots.
	workerStopWait = 20 * time.Second

	// routeWait is how long a job routed to the worker holding its
	// parent's live context waits for that worker before any worker may
	// run it. Continuing a live context saves replaying the prefix
	// (about half a second to a few seconds of browser work per branch on
	// the demo).
	routeWait = time.Second
	// publishTimeout bounds one attempt to publish a branch's job, to any
	// worker or routed to one.
	publishTimeout = 5 * time.Second
	// publishAttempts bounds the attempts to queue a job while the server
	// is away; the n-th retry waits n times publishBackoff.
	publishAttempts = 8
	publishBackoff  = 500 * time.Millisecond
	// republishTimeout bounds publishing a branch's job once more after
	// it landed on the login page.
	republishTimeout = 10 * time.Second
	// deadJobsCheck is how often exploration asks the bus for jobs that
	// used up their deliveries.
	deadJobsCheck = 5 * time.Second

	// mirrorBudget bounds the mirroring of one result's artifacts;
	// fetchAttempt bounds one request for one of them.
	mirrorBudget = 20 * time.Second
	fetchAttempt = 3 * time.Second

	// preflightTimeout bounds the HTTP request that checks the start
	// URL answers before the run starts its workers.
	preflightTimeout = 15 * time.Second
)
