package bus

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

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
	var lastErr error
	for range 5 {
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
			lastErr = err // deleted under us: create it
		case errors.Is(err, jetstream.ErrStreamNotFound):
			s, err = js.CreateStream(ctx, cfg)
			if err == nil {
				return s, nil
			}
			if !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				return nil, fmt.Errorf("create: %w", err)
			}
			lastErr = err // another process won the race: look again
		default:
			return nil, fmt.Errorf("info: %w", err)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return nil, fmt.Errorf("gave up racing other clients: %w", lastErr)
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
