package orchestrator

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/telemetry"
)

// recorder buffers a run's events and appends them in batches. It carries
// the run's trace id and hands out span ids, so events correlate with
// traces (W3C trace context).
type recorder struct {
	log     *eventlog.Log
	runID   string
	traceID string
	runSpan string

	mu    sync.Mutex
	buf   []eventlog.Event
	spans map[string]string // branch id -> span id
	err   error             // first append error; guarded by mu

	// queue feeds the single writer goroutine, which appends batches in
	// the order they were queued; a batch with done set is a sync point.
	queue chan batch
}

type batch struct {
	events []eventlog.Event
	done   chan struct{}
}

// newRecorder records a run's events under the run span's trace and span
// ids (from ctx); without a tracer provider it makes W3C-valid ids of its
// own (the trace id is then the run's ULID).
func newRecorder(ctx context.Context, log *eventlog.Log, runID string) *recorder {
	traceID, spanID := telemetry.IDs(ctx)
	if traceID == "" {
		id, _ := ulid.ParseStrict(runID)
		traceID, spanID = hex.EncodeToString(id[:]), newSpanID()
	}
	r := &recorder{log: log, runID: runID, traceID: traceID, runSpan: spanID, spans: map[string]string{}, queue: make(chan batch, 64)}
	go r.write()
	return r
}

// write appends queued batches in order until the queue is closed.
func (r *recorder) write() {
	for b := range r.queue {
		if len(b.events) > 0 {
			if _, err := r.log.AppendBatch(context.Background(), b.events); err != nil {
				r.mu.Lock()
				if r.err == nil {
					r.err = err
				}
				r.mu.Unlock()
			}
		}
		if b.done != nil {
			close(b.done)
		}
	}
}

// setBranchSpan records the span id of a branch's span.
func (r *recorder) setBranchSpan(branchID, spanID string) {
	if spanID == "" {
		return
	}
	r.mu.Lock()
	r.spans[branchID] = spanID
	r.mu.Unlock()
}

func newSpanID() string {
	var b [8]byte
	for {
		rand.Read(b[:])
		if b != [8]byte{} {
			return hex.EncodeToString(b[:])
		}
	}
}

// branchSpan returns the span id of a branch, creating it once.
func (r *recorder) branchSpan(branchID string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.spans[branchID]
	if !ok {
		s = newSpanID()
		r.spans[branchID] = s
	}
	return s
}

// add buffers an event. A zero t means now. The span is the branch's
// span (the run's for run-level events) unless span is given.
func (r *recorder) add(t time.Time, vt int64, kind, branchID string, payload any, arts ...string) {
	r.addSpan(t, vt, kind, branchID, "", payload, arts...)
}

func (r *recorder) addSpan(t time.Time, vt int64, kind, branchID, span string, payload any, arts ...string) {
	parent := r.runSpan
	if span == "" {
		if branchID == "" {
			span, parent = r.runSpan, ""
		} else {
			span = r.branchSpan(branchID)
		}
	} else if branchID != "" {
		parent = r.branchSpan(branchID)
	}
	r.addRaw(t, vt, kind, branchID, span, parent, payload, arts...)
}

func (r *recorder) addRaw(t time.Time, vt int64, kind, branchID, span, parent string, payload any, arts ...string) {
	var raw json.RawMessage
	if payload != nil {
		// Without HTML escaping a map payload is already in the event
		// log's canonical form, which the log then takes as it is; a
		// typed payload (package eventlog/payload) has its keys sorted
		// by the log.
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(payload); err == nil {
			raw = bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
		}
	}
	var clean []string
	for _, a := range arts {
		if a != "" {
			clean = append(clean, a)
		}
	}
	if t.IsZero() {
		t = time.Now()
	}
	r.mu.Lock()
	r.buf = append(r.buf, eventlog.Event{RunID: r.runID, Time: t.UTC(), VirtualTime: vt, Kind: kind, BranchID: branchID,
		TraceID: r.traceID, SpanID: span, ParentSpanID: parent, Payload: raw, Artifacts: clean})
	r.mu.Unlock()
}

// flush appends the buffered events, and everything queued before them,
// and waits until they are durable. The first error sticks and is
// returned by every later flush.
func (r *recorder) flush(ctx context.Context) error {
	done := make(chan struct{})
	r.mu.Lock()
	buf := r.buf
	r.buf = nil
	r.mu.Unlock()
	r.queue <- batch{events: buf, done: done}
	<-done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// flushAsync queues the buffered events for appending and returns at
// once: the search goes on while the event log syncs. Order is kept.
func (r *recorder) flushAsync() {
	r.mu.Lock()
	buf := r.buf
	r.buf = nil
	r.mu.Unlock()
	if len(buf) > 0 {
		r.queue <- batch{events: buf}
	}
}

// failed returns the first append error, if any.
func (r *recorder) failed() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// close flushes and stops the writer.
func (r *recorder) close(ctx context.Context) error {
	err := r.flush(ctx)
	close(r.queue)
	return err
}

// Record implements commit.Recorder: it appends at once, under the span
// in ctx (the commit span) when there is one.
func (r *recorder) Record(ctx context.Context, kind, branchID string, payload any, arts ...string) {
	_, span := telemetry.IDs(ctx)
	if span != "" && span != r.runSpan {
		r.mu.Lock()
		parent := r.runSpan
		r.mu.Unlock()
		r.addRaw(time.Time{}, 0, kind, branchID, span, parent, payload, arts...)
	} else {
		r.add(time.Time{}, 0, kind, branchID, payload, arts...)
	}
	r.flush(ctx)
}

// Anchor implements commit.Anchorer: it makes every event recorded so far
// durable and returns the run's event-log head.
func (r *recorder) Anchor(ctx context.Context) (ledger.Anchor, error) {
	if err := r.flush(ctx); err != nil {
		return ledger.Anchor{}, err
	}
	seq, hash, err := r.log.Head(ctx, r.runID)
	if err != nil {
		return ledger.Anchor{}, err
	}
	return ledger.Anchor{RunID: r.runID, Seq: seq, Hash: hash}, nil
}

var zeroTime time.Time

func timeSince(t time.Time) time.Duration { return time.Since(t) }
