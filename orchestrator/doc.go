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
package orchestrator
