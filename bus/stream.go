package bus

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Stream names and subjects. See the package documentation.
const (
	JobsStream    = "MV_JOBS"
	ResultsStream = "MV_RESULTS"
	DeadStream    = "MV_DEAD"

	jobsPrefix    = "mv.jobs."
	resultsPrefix = "mv.results."
	controlPrefix = "mv.control."

	// JobsSubjects is the subject filter of MV_JOBS; a run's jobs are
	// published on mv.jobs.<run_id>.
	JobsSubjects = "mv.jobs.>"
	// ResultsSubjects is the subject filter of MV_RESULTS; a run's results
	// are published on mv.results.<run_id>.
	ResultsSubjects = "mv.results.>"
	// ControlSubjects is the core NATS subject filter of control messages;
	// a run is cancelled on mv.control.<run_id>.
	ControlSubjects = "mv.control.>"
	// DeadSubjects is the subject filter of MV_DEAD: the server's
	// max-deliveries advisories for every consumer of MV_JOBS.
	DeadSubjects = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + JobsStream + ".*"

	dupWindow     = 10 * time.Minute
	resultsMaxAge = 7 * 24 * time.Hour
)

// streamConfigs returns the desired configuration of the three streams.
func streamConfigs(replicas int) []jetstream.StreamConfig {
	return []jetstream.StreamConfig{
		{
			Name:        JobsStream,
			Description: "Multiverse branch jobs, one subject per run",
			Subjects:    []string{JobsSubjects},
			Retention:   jetstream.WorkQueuePolicy,
			Storage:     jetstream.FileStorage,
			Duplicates:  dupWindow,
			Replicas:    replicas,
		},
		{
			Name:        ResultsStream,
			Description: "Multiverse branch results, one subject per run",
			Subjects:    []string{ResultsSubjects},
			Retention:   jetstream.LimitsPolicy,
			Storage:     jetstream.FileStorage,
			MaxAge:      resultsMaxAge,
			Duplicates:  dupWindow,
			Replicas:    replicas,
		},
		{
			Name:        DeadStream,
			Description: "Max-deliveries advisories of Multiverse branch jobs",
			Subjects:    []string{DeadSubjects},
			Retention:   jetstream.LimitsPolicy,
			Storage:     jetstream.FileStorage,
			MaxAge:      resultsMaxAge,
			Duplicates:  dupWindow,
			Replicas:    replicas,
		},
	}
}

// ensureStreams creates or updates the streams and keeps handles on them.
func (c *Client) ensureStreams(ctx context.Context) error {
	var handles []jetstream.Stream
	for _, cfg := range streamConfigs(c.opts.replicas) {
		s, err := ensureStream(ctx, c.js, cfg, c.opts.replicasSet)
		if err != nil {
			return fmt.Errorf("bus: stream %s: %w", cfg.Name, err)
		}
		handles = append(handles, s)
	}
	c.jobs, c.results, c.dead = handles[0], handles[1], handles[2]
	return nil
}

// ensureStream makes the stream exist with cfg. It tolerates another process
// creating or updating the same stream concurrently.
//
// An existing stream keeps its replicas unless setReplicas is true.
func ensureStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig, setReplicas bool) (jetstream.Stream, error) {
	var err error
	for range 5 {
		var s jetstream.Stream
		err = retryAPI(ctx, func(ctx context.Context) (err error) {
			s, err = ensureStreamOnce(ctx, js, cfg, setReplicas)
			return err
		})
		if !errors.Is(err, errRaced) {
			return s, err
		}
	}
	return nil, fmt.Errorf("gave up racing other clients: %w", err)
}

// apiTimeout bounds one JetStream API request during stream setup;
// apiRetryWait is the pause before asking again.
const (
	apiTimeout   = 5 * time.Second
	apiRetryWait = 250 * time.Millisecond
)

// bounded derives the context of one JetStream API request: a request to
// a stream leader that just died is never answered, and a caller polling
// the stream (a dispatch loop, a watchdog) must get its error in time to
// go on, instead of waiting as long as its own context lasts.
func bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, apiTimeout)
}

// errRaced marks a lost race with another client creating, updating or
// deleting the same stream.
var errRaced = errors.New("raced another client")

// transient reports whether err is an unanswered API request (a cluster
// still electing leaders, say), worth repeating while ctx lasts.
func transient(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout)
}

// unanswered reports whether err is transient or a request nobody
// answered: once the client has set up its streams, no responders (or no
// response from the stream) means a stream whose leader died and whose new
// one is not elected yet.
func unanswered(ctx context.Context, err error) bool {
	if transient(ctx, err) {
		return true
	}
	return ctx.Err() == nil && (errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse))
}

// retryAPI runs call with each attempt bounded by apiTimeout, repeating it
// while its error is transient and ctx lasts.
func retryAPI(ctx context.Context, call func(context.Context) error) error {
	return retryWhile(ctx, transient, call)
}

// retryWhile runs call with each attempt bounded by apiTimeout, repeating
// it while retry says its error is worth it and ctx lasts.
func retryWhile(ctx context.Context, retry func(context.Context, error) bool, call func(context.Context) error) error {
	for {
		actx, cancel := context.WithTimeout(ctx, apiTimeout)
		err := call(actx)
		cancel()
		if err == nil || !retry(ctx, err) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-time.After(apiRetryWait):
		}
	}
}

// ensureStreamOnce is one attempt of ensureStream. A lost race with
// another client returns an error matching errRaced.
func ensureStreamOnce(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig, setReplicas bool) (jetstream.Stream, error) {
	s, err := js.Stream(ctx, cfg.Name)
	switch {
	case err == nil:
		if keep := s.CachedInfo().Config.Replicas; !setReplicas && keep > 0 {
			cfg.Replicas = keep
		}
		if sameStreamConfig(s.CachedInfo().Config, cfg) {
			return s, nil
		}
		s, err = js.UpdateStream(ctx, cfg)
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, jetstream.ErrStreamNotFound) {
			return nil, fmt.Errorf("update: %w", err)
		}
		return nil, fmt.Errorf("%w: %w", errRaced, err) // deleted under us: create it
	case errors.Is(err, jetstream.ErrStreamNotFound):
		s, err = js.CreateStream(ctx, cfg)
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return nil, fmt.Errorf("create: %w", err)
		}
		return nil, fmt.Errorf("%w: %w", errRaced, err) // another process won: look again
	default:
		return nil, fmt.Errorf("info: %w", err)
	}
}

// sameStreamConfig compares the fields this package sets.
func sameStreamConfig(have, want jetstream.StreamConfig) bool {
	return have.Description == want.Description &&
		slices.Equal(have.Subjects, want.Subjects) &&
		have.Retention == want.Retention &&
		have.Storage == want.Storage &&
		have.MaxAge == want.MaxAge &&
		have.Duplicates == want.Duplicates &&
		have.Replicas == want.Replicas
}
