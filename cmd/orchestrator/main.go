// Command orchestrator runs Multiverse tasks: it explores many candidate
// paths of a web task at once in isolated Chromium contexts, commits
// exactly one winning path, and records everything for audit and replay.
//
// Usage:
//
//	orchestrator run TASK.yaml [--workers N] [--data-dir DIR] [--seed S] [--json]
//	orchestrator demo [--workers N] [--data-dir DIR] [--json]
//	orchestrator site [--addr 127.0.0.1:8555]
//	orchestrator ledger list [--data-dir DIR] [--json]
//	orchestrator events RUN_ID [--branch ID] [--data-dir DIR] [--json]
//	orchestrator bundle RUN_ID [BRANCH_ID] [--commit] [-o FILE]
//	orchestrator replay BUNDLE|BRANCH_ID [--live] [--analytical] [--json]
//	orchestrator validate BUNDLE
//
// Exit codes: 0 committed, 1 internal error, 2 bad input, 3 no branch
// reached the commit boundary within budget, 4 commit aborted, 5 Chromium or
// the Playwright driver missing (or no workers), 6 site unreachable, 7 an
// audit failed (ledger verify, bundle validation, a replay that diverged).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/telemetry"
)

const usage = `usage: orchestrator COMMAND [flags]

commands:
  run TASK.yaml      run a task against its site
  demo               run the example task against the embedded demo site
  site               serve the demo vendor site alone
  ledger list        list the commit ledger
  events RUN_ID      show a run's event log (--branch ID for one branch)
  runs               list the runs in the event log
  bundle RUN [BRANCH] write a portable replay bundle of a branch (default: the winner)
  replay BUNDLE|BRANCH replay deterministically and compare strict hashes (RSR, DVR, TTD)
  validate BUNDLE    check a bundle's integrity offline
  serve              a read-only web dashboard over the data dir (--bundle FILE for one bundle; --addr, --token)
  doctor             report Chromium, its headless shell, Node.js and the Playwright driver, and how to install what is missing
  install            install the Playwright driver into the per-user cache (npm registry)

common flags: --data-dir DIR (default ./.multiverse), --json
run 'orchestrator COMMAND -h' for a command's flags.
`

func main() {
	ctx, stop := signalContext()
	shutdown, err := telemetry.Setup(ctx, "multiverse-orchestrator")
	if err != nil {
		fmt.Fprintf(os.Stderr, "orchestrator: %v\n", err)
		os.Exit(orchestrator.ExitBadInput)
	}
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	shutdown(context.Background())
	stop()
	os.Exit(code)
}

// signalContext is cancelled by the first SIGINT or SIGTERM, so a run
// ends cleanly; a second one ends the process the default way, whatever
// is still blocked.
func signalContext() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return orchestrator.ExitBadInput
	}
	cmd, rest := args[0], args[1:]
	var err error
	switch cmd {
	case "run":
		err = cmdRun(ctx, rest, stdout, stderr)
	case "demo":
		err = cmdDemo(ctx, rest, stdout, stderr)
	case "site":
		err = cmdSite(ctx, rest, stdout, stderr)
	case "ledger":
		err = cmdLedger(ctx, rest, stdout, stderr)
	case "events":
		err = cmdEvents(ctx, rest, stdout, stderr)
	case "runs":
		err = cmdRuns(ctx, rest, stdout, stderr)
	case "bundle":
		err = cmdBundle(ctx, rest, stdout, stderr)
	case "replay":
		err = cmdReplay(ctx, rest, stdout, stderr)
	case "validate":
		err = cmdValidate(ctx, rest, stdout, stderr)
	case "serve":
		err = cmdServe(ctx, rest, stdout, stderr)
	case "doctor":
		err = cmdDoctor(ctx, rest, stdout, stderr)
	case "install":
		err = cmdInstall(ctx, rest, stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "orchestrator: unknown command %q\n\n%s", cmd, usage)
		return orchestrator.ExitBadInput
	}
	if err == nil {
		return 0
	}
	if errors.Is(err, errUsage) {
		return orchestrator.ExitBadInput
	}
	// Errors of the orchestrator package carry its name already.
	msg := strings.TrimPrefix(oneLine(err.Error()), "orchestrator: ")
	fmt.Fprintf(stderr, "orchestrator: %s\n", msg)
	return orchestrator.ExitCode(err)
}
