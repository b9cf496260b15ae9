package bus

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Header names this package sets on job and result messages.
const (
	HeaderRunID    = "Mv-Run-Id"
	HeaderBranchID = "Mv-Branch-Id"
	HeaderAttempt  = "Mv-Attempt"
	// HeaderAttemptBase, on a job, is the number of deliveries the branch
	// already had elsewhere (a routed job whose worker died): attempts of
	// this message count on from there, so a late result of an earlier
	// delivery stays stale.
	HeaderAttemptBase = "Mv-Attempt-Base"

	// maxIDLen bounds run and branch ids (a ULID is 26 characters).
	maxIDLen = 128
)

// Job is one branch to execute, as a worker receives it.
type Job struct {
	RunID    string
	BranchID string
	// Attempt is the delivery count: 1 on the first delivery.
	Attempt int
	// Data is the payload the orchestrator published.
	Data []byte
	// Header holds every header of the job message: the ones the caller set
	// (W3C traceparent among them), Mv-Run-Id, Mv-Branch-Id and Nats-Msg-Id.
	// It is the handler's own copy; what it holds when the handler returns is
	// carried on the result (see the package documentation).
	Header nats.Header
	// Route is the route of the Work call running the job (see
	// [WorkerConfig.Route]); it is not part of the message.
	Route string
}

// JobMsgID is the Nats-Msg-Id of the job of a branch. The server drops a
// second job with the same id within the 10 minute duplicate window.
func JobMsgID(runID, branchID string) string { return "job." + runID + "." + branchID }

// ResultMsgID is the Nats-Msg-Id of the result of one attempt of a branch.
func ResultMsgID(runID, branchID string, attempt int) string {
	return fmt.Sprintf("result.%s.%s.%d", runID, branchID, attempt)
}

// PublishJob queues the job of one branch on mv.jobs.<run_id> and waits for
// the JetStream ack (the job is on disk when it returns nil). hdr is copied,
// never modified; the headers Mv-Run-Id, Mv-Branch-Id and Nats-Msg-Id
// "job.<run_id>.<branch_id>" are added. Publishing the same run and branch
// again within 10 minutes is de-duplicated by the server and still returns
// nil, so a retry after an unknown outcome is safe; a branch that must run
// again needs a new branch id. Ids that are not single subject tokens return
// an error wrapping [ErrInvalidID].
//
// With WithPublishRetry a server that is away is waited out.
func (c *Client) PublishJob(ctx context.Context, runID, branchID string, data []byte, hdr nats.Header) error {
	r := c.opts.publish
	var err error
	for attempt := 0; ; attempt++ {
		pctx, cancel := ctx, context.CancelFunc(func() {})
		if r.timeout > 0 {
			pctx, cancel = context.WithTimeout(ctx, r.timeout)
		}
		_, err = c.publishJob(pctx, runID, branchID, "", data, hdr)
		cancel()
		if err == nil || ctx.Err() != nil || errors.Is(err, ErrStorageFull) || errors.Is(err, ErrInvalidID) || attempt+1 >= r.attempts {
			return err
		}
		c.log.Debug("publishing a job failed; retrying", "branch_id", branchID, "attempt", attempt+1, "error", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt+1) * r.backoff):
		}
	}
}

// publishJob queues a job on mv.jobs.<run_id>, or on
// mv.jobs.<run_id>.<route> for one worker when route is set, and returns
// its stream sequence.
// AgainMsgID is the Nats-Msg-Id of a branch's job published again on
// purpose (the n-th time, n ≥ 1): its first run ended in a way the
// orchestrator repaired, such as a session it logged in again.
func AgainMsgID(runID, branchID string, n int) string {
	return "again" + strconv.Itoa(n) + "." + runID + "." + branchID
}

// PublishAgain queues the job of a branch for any worker once more, the
// n-th time (n ≥ 1), under AgainMsgID: the duplicate window that drops a
// republished job does not drop it. Set HeaderAttemptBase to the
// deliveries the branch already had, so its attempts count on.
func (c *Client) PublishAgain(ctx context.Context, runID, branchID string, n int, data []byte, hdr nats.Header) error {
	if n < 1 {
		return fmt.Errorf("%w: publish again: n %d is not positive", ErrInvalidConfig, n)
	}
	_, err := c.publish(ctx, runID, branchID, "", AgainMsgID(runID, branchID, n), data, hdr)
	return err
}

func (c *Client) publishJob(ctx context.Context, runID, branchID, route string, data []byte, hdr nats.Header) (uint64, error) {
	msgID := JobMsgID(runID, branchID)
	if route != "" {
		msgID = RouteMsgID(runID, branchID)
	}
	return c.publish(ctx, runID, branchID, route, msgID, data, hdr)
}

func (c *Client) publish(ctx context.Context, runID, branchID, route, msgID string, data []byte, hdr nats.Header) (uint64, error) {
	if err := validateID("run", runID); err != nil {
		return 0, err
	}
	if err := validateID("branch", branchID); err != nil {
		return 0, err
	}
	subject := jobsPrefix + runID
	if route != "" {
		if err := validateID("route", route); err != nil {
			return 0, err
		}
		subject += "." + route
	}
	msg := &nats.Msg{Subject: subject, Data: data, Header: cloneHeader(hdr)}
	msg.Header.Set(HeaderRunID, runID)
	msg.Header.Set(HeaderBranchID, branchID)
	msg.Header.Set(jetstream.MsgIDHeader, msgID)
	var ack *jetstream.PubAck
	// Each attempt is bounded and repeated while unanswered: a stream
	// leader killed mid-publish never acks, and the message id makes the
	// repeat a no-op when the first attempt was stored after all.
	err := retryWhile(ctx, unanswered, func(ctx context.Context) error {
		return c.store(ctx, func(ctx context.Context) (err error) {
			ack, err = c.js.PublishMsg(ctx, msg, jetstream.WithExpectStream(JobsStream))
			return err
		})
	})
	if err != nil {
		return 0, fmt.Errorf("bus: publish job %s/%s to %s: %w", runID, branchID, subject, err)
	}
	return ack.Sequence, nil
}

// runJobSubjects are the subjects of a run's jobs: the shared ones and
// the ones routed to single workers.
func runJobSubjects(runID string) []string {
	return []string{jobsPrefix + runID, jobsPrefix + runID + ".>"}
}

// Pending returns how many jobs of the run are still in MV_JOBS: queued,
// running (delivered and not yet acked), waiting for redelivery, or dead
// (deliveries exhausted) until [Client.DeadJobs] collects them.
func (c *Client) Pending(ctx context.Context, runID string) (uint64, error) {
	if err := validateID("run", runID); err != nil {
		return 0, err
	}
	var n uint64
	for _, f := range runJobSubjects(runID) {
		ictx, cancel := bounded(ctx)
		info, err := c.jobs.Info(ictx, jetstream.WithSubjectFilter(f))
		cancel()
		if err != nil {
			return 0, fmt.Errorf("bus: pending %s: %w", runID, err)
		}
		for _, k := range info.State.Subjects {
			n += k
		}
	}
	return n, nil
}

// decodeJob builds a Job from a message of MV_JOBS. delivered is the
// delivery count from the message metadata (or the advisory).
func decodeJob(subject string, hdr nats.Header, data []byte, delivered uint64) (Job, error) {
	bad := func(reason string) (Job, error) {
		return Job{}, &DecodeError{Kind: "job", Subject: subject, Reason: reason}
	}
	rest, ok := strings.CutPrefix(subject, jobsPrefix)
	runID, route, routed := strings.Cut(rest, ".")
	if !ok || validateID("run", runID) != nil || (routed && validateID("route", route) != nil) {
		return bad("subject is not mv.jobs.<run_id> or mv.jobs.<run_id>.<route>")
	}
	if h := hdr.Get(HeaderRunID); h != "" && h != runID {
		return bad(fmt.Sprintf("%s %q does not match the subject", HeaderRunID, h))
	}
	branchID := hdr.Get(HeaderBranchID)
	if err := validateID("branch", branchID); err != nil {
		return bad(fmt.Sprintf("%s %q is not a valid id", HeaderBranchID, branchID))
	}
	if delivered == 0 {
		return bad("delivery count is 0")
	}
	if b := hdr.Get(HeaderAttemptBase); b != "" {
		base, err := strconv.ParseUint(b, 10, 31)
		if err != nil {
			return bad(fmt.Sprintf("%s %q is not a delivery count", HeaderAttemptBase, b))
		}
		delivered += base
	}
	attempt := math.MaxInt32
	if delivered < math.MaxInt32 {
		attempt = int(delivered)
	}
	return Job{
		RunID:    runID,
		BranchID: branchID,
		Attempt:  attempt,
		Data:     data,
		Header:   cloneHeader(hdr),
	}, nil
}

// validateID checks that id is one NATS subject token of printable,
// non-space characters.
func validateID(kind, id string) error {
	if id == "" {
		return fmt.Errorf("%w: empty %s id", ErrInvalidID, kind)
	}
	if len(id) > maxIDLen {
		return fmt.Errorf("%w: %s id longer than %d bytes", ErrInvalidID, kind, maxIDLen)
	}
	for _, r := range id {
		if r == '.' || r == '*' || r == '>' || r == unicode.ReplacementChar || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return fmt.Errorf("%w: %s id %q must be one subject token (no '.', '*', '>' or spaces)", ErrInvalidID, kind, id)
		}
	}
	return nil
}

// cloneHeader returns a deep copy of h; never nil.
func cloneHeader(h nats.Header) nats.Header {
	out := make(nats.Header, len(h)+4)
	for k, v := range h {
		out[k] = append([]string(nil), v...)
	}
	return out
}
