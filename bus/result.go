package bus

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// resultsBuffer is the capacity of the channel Results returns.
const resultsBuffer = 64

// Result is the outcome of one attempt of one branch, as the orchestrator
// reads it.
type Result struct {
	RunID    string
	BranchID string
	// Attempt is the delivery count of the job that produced this result.
	Attempt int
	// Data is what the handler returned.
	Data []byte
	// Header holds the job's headers as the handler left them (trace context
	// among them) plus Mv-Run-Id, Mv-Branch-Id, Mv-Attempt and Nats-Msg-Id.
	Header nats.Header
	// StreamSeq is the result's sequence in MV_RESULTS.
	StreamSeq uint64
}

// Results delivers the results of one run in stream order, starting from the
// first result of the run ever stored (within MV_RESULTS's 7 day retention),
// and keeps delivering new ones until ctx ends; then the channel is closed.
// It uses an ordered consumer, which recovers by itself from reconnects and
// server restarts.
//
// A result may arrive more than once, and a branch may have several results
// (one per attempt whose result was stored before its job was acked, or a
// duplicate after a reconnect): the caller de-duplicates by branch id (and
// attempt). Messages on the run's subject that this package did not write are
// skipped and logged. The caller must keep reading; an abandoned channel
// holds the consumer until ctx ends.
func (c *Client) Results(ctx context.Context, runID string) (<-chan Result, error) {
	if err := validateID("run", runID); err != nil {
		return nil, err
	}
	cons, err := c.js.OrderedConsumer(ctx, ResultsStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{resultsPrefix + runID},
		DeliverPolicy:  jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return nil, fmt.Errorf("bus: results %s: %w", runID, err)
	}
	it, err := cons.Messages()
	if err != nil {
		return nil, fmt.Errorf("bus: results %s: %w", runID, err)
	}
	out := make(chan Result, resultsBuffer)
	go c.readResults(ctx, runID, it, out)
	return out, nil
}

func (c *Client) readResults(ctx context.Context, runID string, it jetstream.MessagesContext, out chan<- Result) {
	defer close(out)
	defer it.Stop()
	log := c.log.With("run_id", runID)
	retry := time.NewTimer(0)
	defer retry.Stop()
	<-retry.C
	for {
		msg, err := it.Next(jetstream.NextContext(ctx))
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, jetstream.ErrMsgIteratorClosed) || c.nc.IsClosed() {
				return
			}
			log.Warn("bus: reading results", "err", err)
			retry.Reset(reconnectWait)
			select {
			case <-ctx.Done():
				return
			case <-retry.C:
			}
			continue
		}
		md, err := msg.Metadata()
		if err != nil {
			log.Warn("bus: result without metadata", "subject", msg.Subject(), "err", err)
			continue
		}
		res, err := decodeResult(msg.Subject(), msg.Headers(), msg.Data(), md.Sequence.Stream)
		if err != nil {
			log.Warn("bus: skipping result", "err", err)
			continue
		}
		select {
		case out <- res:
		case <-ctx.Done():
			return
		}
	}
}

// decodeResult builds a Result from a message of MV_RESULTS.
func decodeResult(subject string, hdr nats.Header, data []byte, seq uint64) (Result, error) {
	bad := func(reason string) (Result, error) {
		return Result{}, &DecodeError{Kind: "result", Subject: subject, Reason: reason}
	}
	runID, ok := strings.CutPrefix(subject, resultsPrefix)
	if !ok || validateID("run", runID) != nil {
		return bad("subject is not mv.results.<run_id>")
	}
	if h := hdr.Get(HeaderRunID); h != runID {
		return bad(fmt.Sprintf("%s %q does not match the subject", HeaderRunID, h))
	}
	branchID := hdr.Get(HeaderBranchID)
	if validateID("branch", branchID) != nil {
		return bad(fmt.Sprintf("%s %q is not a valid id", HeaderBranchID, branchID))
	}
	attempt, err := strconv.Atoi(hdr.Get(HeaderAttempt))
	if err != nil || attempt < 1 {
		return bad(fmt.Sprintf("%s %q is not a positive integer", HeaderAttempt, hdr.Get(HeaderAttempt)))
	}
	return Result{
		RunID:     runID,
		BranchID:  branchID,
		Attempt:   attempt,
		Data:      data,
		Header:    hdr,
		StreamSeq: seq,
	}, nil
}

// resultHeader builds the headers of the result of job: the job's headers as
// the handler left them, minus JetStream control headers, plus ours.
func resultHeader(job Job) nats.Header {
	h := make(nats.Header, len(job.Header)+4)
	for k, v := range job.Header {
		if strings.HasPrefix(strings.ToLower(k), "nats-") {
			continue
		}
		h[k] = append([]string(nil), v...)
	}
	h.Set(HeaderRunID, job.RunID)
	h.Set(HeaderBranchID, job.BranchID)
	h.Set(HeaderAttempt, strconv.Itoa(job.Attempt))
	h.Set(jetstream.MsgIDHeader, ResultMsgID(job.RunID, job.BranchID, job.Attempt))
	return h
}
