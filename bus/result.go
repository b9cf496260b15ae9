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
	// StreamSeq is the result's sequence in MV_RESULTS, or 0 when the
	// result arrived first through the live subscription.
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
	it, err := c.resultsFrom(ctx, runID, 0)
	if err != nil {
		return nil, err
	}
	// Two paths deliver each result: the stream (durable, from the
	// beginning) and a plain subscription to the subject, which the
	// client re-establishes by itself after a reconnect or a cluster
	// failover, when an ordered consumer can stall. The first copy of
	// each (branch, attempt) wins.
	merged := make(chan Result, resultsBuffer)
	fromStream := make(chan Result, resultsBuffer)
	go c.readResults(ctx, runID, it, fromStream)
	live := make(chan Result, resultsBuffer)
	sub, err := c.nc.Subscribe(resultsPrefix+runID, func(m *nats.Msg) {
		if res, err := decodeResult(m.Subject, m.Header, m.Data, 0); err == nil {
			select {
			case live <- res:
			default:
			}
		}
	})
	if err != nil {
		it.Stop()
		return nil, fmt.Errorf("bus: results %s: %w", runID, err)
	}
	go func() {
		defer close(merged)
		defer sub.Unsubscribe()
		seen := map[string]bool{}
		for {
			var res Result
			var ok bool
			select {
			case <-ctx.Done():
				return
			case res, ok = <-fromStream:
				if !ok {
					fromStream = nil
					continue
				}
			case res = <-live:
			}
			key := res.BranchID + "/" + strconv.Itoa(res.Attempt)
			if seen[key] {
				continue
			}
			seen[key] = true
			select {
			case merged <- res:
			case <-ctx.Done():
				return
			}
		}
	}()
	return merged, nil
}

// resultsFrom opens an ordered consumer over the run's results, from the
// beginning (from == 0) or from a stream sequence.
func (c *Client) resultsFrom(ctx context.Context, runID string, from uint64) (jetstream.MessagesContext, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cfg := jetstream.OrderedConsumerConfig{FilterSubjects: []string{resultsPrefix + runID}, DeliverPolicy: jetstream.DeliverAllPolicy}
	if from > 0 {
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, from
	}
	cons, err := c.js.OrderedConsumer(ctx, ResultsStream, cfg)
	if err != nil {
		return nil, fmt.Errorf("bus: results %s: %w", runID, err)
	}
	it, err := cons.Messages()
	if err != nil {
		return nil, fmt.Errorf("bus: results %s: %w", runID, err)
	}
	return it, nil
}

// resultsCheck is how often the reader compares what it delivered with
// what the stream holds: an ordered consumer whose server died in a
// cluster can stall silently; then it is recreated from the next sequence.
const resultsCheck = 3 * time.Second

func (c *Client) readResults(ctx context.Context, runID string, it jetstream.MessagesContext, out chan<- Result) {
	defer close(out)
	log := c.log.With("run_id", runID)
	type item struct {
		msg jetstream.Msg
		err error
	}
	var last uint64 // stream sequence of the last result delivered
	pump := func(it jetstream.MessagesContext) <-chan item {
		ch := make(chan item)
		go func() {
			defer close(ch)
			for {
				msg, err := it.Next(jetstream.NextContext(ctx))
				select {
				case ch <- item{msg, err}:
				case <-ctx.Done():
					return
				}
				if err != nil {
					if ctx.Err() != nil || errors.Is(err, jetstream.ErrMsgIteratorClosed) || c.nc.IsClosed() {
						return
					}
					time.Sleep(200 * time.Millisecond) // do not spin on a failing iterator
				}
			}
		}()
		return ch
	}
	items := pump(it)
	defer func() { it.Stop() }()
	tick := time.NewTicker(resultsCheck)
	defer tick.Stop()
	behind := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			// Bounded: a request to a stream leader that just died is
			// never answered, and this loop must go on to reopen.
			gctx, gcancel := context.WithTimeout(ctx, apiTimeout)
			m, err := c.results.GetLastMsgForSubject(gctx, resultsPrefix+runID)
			gcancel()
			if err != nil || m.Sequence <= last {
				behind = 0
				continue
			}
			if behind++; behind < 2 {
				continue
			}
			behind = 0
			log.Warn("bus: results reader stalled, reopening", "delivered", last, "stream", m.Sequence)
			nit, err := c.resultsFrom(ctx, runID, last+1)
			if err != nil {
				log.Warn("bus: reopening results", "err", err)
				continue
			}
			it.Stop()
			it, items = nit, pump(nit)
		case x, ok := <-items:
			if !ok {
				if ctx.Err() != nil || c.nc.IsClosed() {
					return
				}
				items = nil // wait for the watchdog to reopen
				continue
			}
			if x.err != nil {
				if ctx.Err() != nil || c.nc.IsClosed() {
					return
				}
				log.Warn("bus: reading results", "err", x.err)
				continue
			}
			md, err := x.msg.Metadata()
			if err != nil {
				log.Warn("bus: result without metadata", "subject", x.msg.Subject(), "err", err)
				continue
			}
			if md.Sequence.Stream <= last {
				continue // delivered before a reopen
			}
			last = md.Sequence.Stream
			res, err := decodeResult(x.msg.Subject(), x.msg.Headers(), x.msg.Data(), md.Sequence.Stream)
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
