// Package worker is the execution plane: it turns a branch job (package
// job) into a result by materializing the branch in a fresh, frozen
// browser session (replaying the plan prefix) or continuing its parent's
// live one, executing the new action, and observing. The same code runs as
// in-process workers and in the `worker` command against a remote NATS
// server.
//
// Contract: a job is executed at most once per delivery; a result carries
// the delivery attempt so the orchestrator can fence duplicates and stale
// results. A branch that fails (a target vanished, the page answered 500,
// the tab crashed) is a result with status "failed", not an error; Handle
// returns an error only for infrastructure faults (the browser was lost),
// which makes the bus redeliver the job. Secrets are resolved here, from
// this process's environment, and never leave it.
package worker
