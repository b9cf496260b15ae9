package bus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// maxDeliveriesType is the type of the server's max-deliveries advisory.
const maxDeliveriesType = "io.nats.jetstream.advisory.v1.max_deliver"

// advisory is the part of the server's max-deliveries advisory this package
// reads.
type advisory struct {
	Type       string `json:"type"`
	Stream     string `json:"stream"`
	Consumer   string `json:"consumer"`
	StreamSeq  uint64 `json:"stream_seq"`
	Deliveries uint64 `json:"deliveries"`
}

// decodeAdvisory parses a max-deliveries advisory stored in MV_DEAD.
func decodeAdvisory(data []byte) (advisory, error) {
	var a advisory
	if err := json.Unmarshal(data, &a); err != nil {
		return advisory{}, &DecodeError{Kind: "advisory", Reason: err.Error()}
	}
	switch {
	case a.Type != maxDeliveriesType:
		return advisory{}, &DecodeError{Kind: "advisory", Reason: fmt.Sprintf("type %q is not %s", a.Type, maxDeliveriesType)}
	case a.Stream == "":
		return advisory{}, &DecodeError{Kind: "advisory", Reason: "no stream"}
	case a.StreamSeq == 0:
		return advisory{}, &DecodeError{Kind: "advisory", Reason: "no stream sequence"}
	}
	return a, nil
}

// DeadJobs returns the jobs of the run that exhausted their deliveries
// (MaxDeliver failed attempts, or a worker that never acked), oldest first,
// with Attempt set to the number of deliveries, and removes those jobs from
// MV_JOBS so they stop counting in [Client.Pending]. Each dead job is
// returned by exactly one successful call, so the caller must record them (for
// example mark the branches failed) before it drops the slice. On error the
// jobs returned so far are returned too, and the rest stay for the next call.
// Each request is bounded (see bounded), so a call made while a stream
// leader is being elected fails in seconds and the next call goes on.
//
// It reads the max-deliveries advisories the server stored in MV_DEAD, so a
// job that died while no orchestrator was running is still found. Advisories
// of other runs are left in place; advisories whose job is gone are removed.
func (c *Client) DeadJobs(ctx context.Context, runID string) ([]Job, error) {
	if err := validateID("run", runID); err != nil {
		return nil, err
	}
	log := c.log.With("run_id", runID)
	var dead []Job
	for seq := uint64(1); ; {
		raw, err := getMsg(ctx, c.dead, seq, jetstream.WithGetMsgSubject(DeadSubjects))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return dead, nil
		}
		if err != nil {
			return dead, fmt.Errorf("bus: dead jobs %s: read advisory: %w", runID, err)
		}
		seq = raw.Sequence + 1
		adv, err := decodeAdvisory(raw.Data)
		if err != nil || adv.Stream != JobsStream {
			log.Warn("bus: skipping advisory", "seq", raw.Sequence, "err", err)
			continue
		}
		jm, err := getMsg(ctx, c.jobs, adv.StreamSeq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			// Collected by an earlier call, purged by Cancel, or a repeated
			// advisory: nothing left to report.
			if err := c.deleteAdvisory(ctx, raw.Sequence); err != nil {
				return dead, err
			}
			continue
		}
		if err != nil {
			return dead, fmt.Errorf("bus: dead jobs %s: read job %d: %w", runID, adv.StreamSeq, err)
		}
		job, err := decodeJob(jm.Subject, jm.Header, jm.Data, adv.Deliveries)
		if err != nil {
			log.Warn("bus: skipping dead job", "seq", adv.StreamSeq, "err", err)
			continue
		}
		if job.RunID != runID {
			continue
		}
		if err := deleteMsg(ctx, c.jobs, adv.StreamSeq); err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
			return dead, fmt.Errorf("bus: dead jobs %s: remove job %d: %w", runID, adv.StreamSeq, err)
		}
		dead = append(dead, job)
		if err := c.deleteAdvisory(ctx, raw.Sequence); err != nil {
			return dead, err
		}
	}
}

func (c *Client) deleteAdvisory(ctx context.Context, seq uint64) error {
	if err := deleteMsg(ctx, c.dead, seq); err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
		return fmt.Errorf("bus: dead jobs: remove advisory %d: %w", seq, err)
	}
	return nil
}

// getMsg is one bounded GetMsg.
func getMsg(ctx context.Context, st jetstream.Stream, seq uint64, opts ...jetstream.GetMsgOpt) (*jetstream.RawStreamMsg, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	return st.GetMsg(ctx, seq, opts...)
}

// deleteMsg is one bounded DeleteMsg.
func deleteMsg(ctx context.Context, st jetstream.Stream, seq uint64) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	return st.DeleteMsg(ctx, seq)
}
