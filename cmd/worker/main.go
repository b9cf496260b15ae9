// Command worker runs Multiverse branch jobs from a NATS JetStream server in
// one Chromium: the same execution code the orchestrator runs in-process.
//
// Usage:
//
//	worker --nats nats://HOST:4222 [--slots N] [--data-dir DIR] [--name NAME]
//
// Artifacts (DOM snapshots, screenshots, response bodies) go to the
// artifact store in --data-dir; run the worker with the orchestrator's data
// dir when both share a machine.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/bus"
	"github.com/multiverse-orchestrator/multiverse/task"
	"github.com/multiverse-orchestrator/multiverse/telemetry"
	"github.com/multiverse-orchestrator/multiverse/worker"
)

// errBadInput marks a flag or data dir the worker cannot use.
var errBadInput = errors.New("bad input")

// Exit codes: the orchestrator's (see orchestrator.ExitCode) for the
// faults a worker can have.
const (
	exitOK          = 0
	exitInternal    = 1
	exitBadInput    = 2 // a flag, the data dir, or its disk is full
	exitEnvironment = 5 // Chromium or the Playwright driver is missing
)

// exitCode maps an error of run to the worker's exit code.
func exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errBadInput), errors.Is(err, bus.ErrStorageFull):
		return exitBadInput
	case errors.Is(err, browser.ErrChromiumNotFound), errors.Is(err, browser.ErrDriverNotFound):
		return exitEnvironment
	}
	return exitInternal
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	shutdown, err := telemetry.Setup(ctx, "multiverse-worker")
	if err == nil {
		err = run(ctx, os.Args[1:], os.Stderr)
		shutdown(context.Background())
	}
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(os.Stderr, "worker: %v\n", err)
		}
		os.Exit(exitCode(err))
	}
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	natsURL := fs.String("nats", "", "NATS server URL(s), comma-separated (required)")
	slots := fs.Int("slots", 1, "branches run at once in this worker's Chromium")
	keepWarm := fs.Int("keep-warm", -1, "finished branch contexts kept alive so a child continues its parent's context instead of replaying the prefix (default: max(8, 2 x slots); 0: none)")
	dataDir := fs.String("data-dir", "", "write artifacts to this data dir's artifact store (a worker on the orchestrator's machine); default: the JetStream object store, which the orchestrator mirrors")
	name := fs.String("name", "", "worker name in results (default host/pid)")
	chromium := fs.String("chromium", "", "Chromium executable")
	driver := fs.String("driver", "", "Playwright driver directory")
	verbose := fs.Bool("v", false, "log to stderr")
	ackWait := fs.Duration("ack-wait", bus.DefaultAckWait, "how long a job may go without a heartbeat before it is redelivered")
	maxDeliver := fs.Int("max-deliver", bus.DefaultMaxDeliver, "deliveries of a job before its branch fails")
	replicas := fs.Int("replicas", 0, "JetStream replicas of the streams and the artifact store (3 on a three-node cluster; default: keep, 1 when new)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errBadInput, err)
	}
	if *natsURL == "" || fs.NArg() != 0 {
		return fmt.Errorf("%w: usage: worker --nats URL [--slots N] [--data-dir DIR]", errBadInput)
	}
	if *slots < 1 || *slots > task.MaxWorkers {
		return fmt.Errorf("%w: --slots %d: must be 1 to %d (start more worker processes for more)", errBadInput, *slots, task.MaxWorkers)
	}
	if *keepWarm < 0 {
		*keepWarm = worker.DefaultKeepWarm(*slots)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if *verbose {
		log = slog.New(slog.NewTextHandler(stderr, nil))
	}
	if *name == "" {
		h, _ := os.Hostname()
		*name = fmt.Sprintf("%s/%d", h, os.Getpid())
	}
	opts := []bus.Option{bus.WithName(*name), bus.WithLogger(log), bus.WithAckWait(*ackWait), bus.WithMaxDeliver(*maxDeliver)}
	if *replicas > 0 {
		opts = append(opts, bus.WithReplicas(*replicas))
	}
	client, err := bus.Connect(ctx, *natsURL, opts...)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", *natsURL, err)
	}
	defer client.Close()
	var store browser.Putter
	if *dataDir != "" {
		fs, err := artifacts.OpenFS(filepath.Join(*dataDir, "artifacts"))
		if err != nil {
			return fmt.Errorf("%w: artifact store: %v", errBadInput, err)
		}
		store = fs
	} else if store, err = client.Objects(ctx); err != nil {
		return err
	}
	exec, err := worker.NewExecutor(ctx, worker.Options{Name: *name, Store: store, Logger: log, KeepWarm: *keepWarm, LoginState: client.FetchState,
		Browser: browser.Options{ChromiumPath: *chromium, DriverDir: *driver}})
	if err != nil {
		return err
	}
	defer exec.Close()
	log.Info("worker ready", "nats", *natsURL, "slots", *slots)
	return client.Work(ctx, bus.WorkerConfig{Slots: *slots}, worker.BusHandler(exec.Handle))
}
