// Package job is the wire contract between the orchestrator and the
// workers that execute branches: a [Job] asks for one branch, a [Result]
// reports how it went. Both travel as JSON in the payloads of bus
// messages, which add the run id, the branch id and the delivery attempt
// as headers (see package bus); an executor is handed each one as a
// [Delivery]. The package imports neither the browser nor the bus, so an
// executor without a browser (the simulated web) speaks it as the browser
// worker does.
//
// Contract:
//   - Job and Result carry WireVersion; a reader refuses a version it does
//     not know with an error wrapping [ErrWireVersion], and refuses a job
//     that lacks its run, branch, spec or plan, or whose actions do not
//     validate.
//   - A job is self-contained: the branch's whole plan (an executor either
//     replays the prefix in a fresh session or continues the parent's live
//     one) and the run's [Spec], which is the same for every branch of a
//     run.
//   - No secret travels in a job. Secret inputs, header values and the
//     storage state are references (an environment variable, a file) that
//     each worker resolves in its own process; the scrubbing key travels so
//     that tokens made by workers match the orchestrator's.
//   - A job may be delivered more than once, so the orchestrator may read
//     several results of one branch; each carries the delivery attempt, and
//     the orchestrator keeps one per branch and ignores results of an
//     attempt older than the latest it saw claimed.
//   - A branch that fails (a target vanished, the page answered 500, the
//     branch ran out of wall clock) is a Result with status [ResultFailed]
//     and a stable code (branch.Code*), not an error. An executor returns
//     an error only for a fault of its own (the browser was lost), which
//     makes the bus deliver the job again; a job it cannot read fails with
//     branch.CodeBadJob, since it would fail the same way every time.
//   - Everything a result says about the page is scrubbed with the spec's
//     [Spec.Scrubber]. Result.Cookies are the exception: they go to the
//     orchestrator only, never into events or bundles, and never include
//     the cookies of the login state a session started from.
package job
