// Package orchestrator is the control plane of Multiverse: it runs a task
// end to end. It opens the data dir (event log, ledger, artifact store,
// JetStream store), starts or joins the NATS bus, starts in-process
// workers, drives the search wave by wave (publishing one job per branch,
// folding results in a deterministic order), hands the winners to the
// committer, and records every decision in the hash-chained event log.
//
// The orchestrator is the single sequencer of a run's events. It is the
// only caller of the committer, so the side effect happens at most once per
// idempotency key whatever the workers do.
//
// Where things are: run.go holds Run and the run's state; stores.go the
// data dir; busconn.go the bus connection (embedded server or joined);
// workers.go the executor and the in-process worker slots; explore.go the
// search loop, wave by wave; wave.go one wave's jobs and results;
// dispatch.go the dispatcher, which publishes jobs and keeps their
// claims and routes; events.go what is recorded of results and search
// decisions; commit.go, goal.go and login.go the run's end and its
// session; handover.go the bundles a run that ended in an error leaves
// for replay (Config.FailureBundles), written before its run_end event
// and never changing its error.
package orchestrator
