package bus

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// delivery is one delivery of a job to a worker, settled by replies to
// the message's ack subject over the worker's connection.
type delivery struct {
	msg     *nats.Msg
	nc      *nats.Conn
	settled atomic.Bool // acked, naked or terminated
	// beat is when the server last heard about the job (delivery or
	// heartbeat) while it waited for a free slot.
	beat time.Time
}

func (d *delivery) Subject() string      { return d.msg.Subject }
func (d *delivery) Headers() nats.Header { return d.msg.Header }
func (d *delivery) Data() []byte         { return d.msg.Data }

// NumDelivered is the server's delivery count of the job.
func (d *delivery) NumDelivered() (uint64, error) {
	md, err := d.msg.Metadata()
	if err != nil {
		return 0, err
	}
	return md.NumDelivered, nil
}

// InProgress resets the server's redelivery timer.
func (d *delivery) InProgress() error {
	if d.settled.Load() {
		return jetstream.ErrMsgAlreadyAckd
	}
	return d.nc.Publish(d.msg.Reply, []byte("+WPI"))
}

// Nak releases the job for redelivery at once.
func (d *delivery) Nak() error { return d.settle([]byte("-NAK")) }

// NakWithDelay releases the job for redelivery after delay.
func (d *delivery) NakWithDelay(delay time.Duration) error {
	if delay <= 0 {
		return d.Nak()
	}
	return d.settle(fmt.Appendf(nil, `-NAK {"delay": %d}`, delay.Nanoseconds()))
}

// TermWithReason tells the server never to deliver the job again.
func (d *delivery) TermWithReason(reason string) error {
	return d.settle([]byte("+TERM " + reason))
}

// DoubleAck acks the job and waits for the server's confirmation.
func (d *delivery) DoubleAck(ctx context.Context) error {
	if d.settled.Swap(true) {
		return jetstream.ErrMsgAlreadyAckd
	}
	if _, err := d.nc.RequestWithContext(ctx, d.msg.Reply, []byte("+ACK")); err != nil {
		d.settled.Store(false)
		return err
	}
	return nil
}

func (d *delivery) settle(body []byte) error {
	if d.settled.Swap(true) {
		return jetstream.ErrMsgAlreadyAckd
	}
	if err := d.nc.Publish(d.msg.Reply, body); err != nil {
		d.settled.Store(false)
		return err
	}
	return nil
}
