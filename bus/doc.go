// Package bus is the NATS JetStream plane of Multiverse: an embedded server,
// the streams and the durable consumer that carry branch jobs from the
// orchestrator to workers, and the results back.
//
// # Roles
//
// The orchestrator publishes one job per branch with [Client.PublishJob] and
// reads the run's results with [Client.Results]. A job that is cheaper on
// one worker (a child continuing the live browser context its parent left
// there) goes to that worker with [Client.PublishRouted]; each Work call
// has a route, consumes the jobs routed to it before shared ones, and is
// woken by a core NATS doorbell when one arrives. [Client.Unroute] withdraws
// a routed job its worker did not take, to queue it for anyone. Workers (goroutines in the
// orchestrator process, or worker processes on other machines) call
// [Client.Work], which pulls jobs from a durable pull consumer and runs a
// [Handler] for each. [Client.Cancel] stops a run's work everywhere,
// [Client.DeadJobs] reports jobs that exhausted their deliveries and
// [Client.Pending] says how many jobs of a run are still queued or unacked.
//
// # Streams
//
// [Connect] creates the streams, or updates them when their configuration
// differs; several processes may connect at once.
//
//	MV_JOBS     subjects "mv.jobs.>": a run's jobs for any worker on
//	            mv.jobs.<run_id> (the shared consumer "mv-workers" filters
//	            mv.jobs.*), jobs routed to one worker on
//	            mv.jobs.<run_id>.<route> (that worker's consumer
//	            "mv-route-<route>", removed 5 minutes after it stops pulling).
//	            WorkQueue retention (a job leaves the stream when a worker acks
//	            or terminates it), file storage, duplicate window 10m.
//	MV_RESULTS  subjects "mv.results.>", one subject per run: mv.results.<run_id>.
//	            Limits retention, MaxAge 7 days, file storage, duplicate window 10m.
//	MV_DEAD     subjects "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.MV_JOBS.*":
//	            the server's max-deliveries advisories for MV_JOBS, kept 7 days,
//	            file storage, so that a poison job is known even when no
//	            orchestrator was listening when the advisory fired.
//
// Control messages (cancel) are core NATS on mv.control.<run_id>; they are not
// persisted: a worker that misses one still never starts the run's queued jobs,
// because Cancel purges them from MV_JOBS.
//
// # Messages
//
// A job message carries the headers Mv-Run-Id, Mv-Branch-Id and
// Nats-Msg-Id "job.<run_id>.<branch_id>" ("route.<run_id>.<branch_id>"
// when routed), optionally Mv-Attempt-Base (deliveries the branch already
// had elsewhere, added to this message's delivery count), plus every header the caller set
// (W3C traceparent / tracestate among them; see [HeaderCarrier]). A result
// message carries the job's headers as the handler left them, without the
// job's JetStream control headers (Nats-*), plus Mv-Run-Id, Mv-Branch-Id,
// Mv-Attempt and Nats-Msg-Id "result.<run_id>.<branch_id>.<attempt>".
//
// # Invariants
//
//   - Run and branch ids are single NATS subject tokens: non-empty, no '.',
//     '*', '>' or whitespace. Anything else is rejected with [ErrInvalidID]
//     before it reaches the server.
//   - A job is published at most once per (run, branch) within the 10 minute
//     duplicate window: a republished job is dropped by the server.
//   - Delivery is at least once. A job is acked only after its result has been
//     stored in MV_RESULTS (double ack), so a crash between the two redelivers
//     the job and the run may see two results for one branch with different
//     attempts. Consumers of [Client.Results] de-duplicate by branch id.
//   - A job delivered to a worker is never left unread: a Work call keeps
//     the inbox of its pull requests (which the server cannot withdraw)
//     while it runs, runs every job delivered there, and releases at once
//     the ones it will not start when it stops. Only a worker that dies
//     makes a job wait AckWait for its redelivery.
//   - A running job is never redelivered because it is slow: the worker sends
//     in-progress heartbeats every AckWait/3 while the handler runs.
//   - A job whose handler fails is redelivered after the backoff delay, at most
//     MaxDeliver deliveries in all; then the server's advisory lands in MV_DEAD
//     and the job stays in MV_JOBS until [Client.DeadJobs] collects it.
//   - A cancelled run's in-flight handlers see their context cancelled with
//     cause [ErrRunCancelled]; their jobs are terminated, never acked, and no
//     result is published for them.
//   - A job or result the store cannot take for lack of space (a full disk,
//     or the server's storage limit) fails with [ErrStorageFull] instead
//     of being retried; a client given the embedded server ([WithServer])
//     learns of a full disk at once, as the server never answers a write
//     that failed.
//   - The embedded server never installs signal handlers and never writes to
//     stdout or stderr; it logs only through a logger the caller provides. Its
//     file store syncs every write (fsync before the publish ack), so an
//     acknowledged job survives kill -9 and power loss.
package bus
