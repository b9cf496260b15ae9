// Command orchestrator runs Multiverse tasks: it explores many candidate
// paths of a web task at once in isolated Chromium contexts, commits
// exactly one winning path, and records everything for audit and replay.
//
// Usage:
//
//	orchestrator run TASK.yaml [--workers N] [--data-dir DIR] [--seed S] [--json]
//	orchestrator demo [--workers N] [--data-dir DIR] [--json]
//	orchestrator site [--addr 127.0.0.1:8555]
//	orchestrator ledger list|show ENTRY|verify|export|evidence ENTRY NAME [--data-dir DIR] [--json]
//	orchestrator runs [RUN] [--data-dir DIR] [--json]
//	orchestrator events RUN [--branch BRANCH] [--data-dir DIR] [--json]
//	orchestrator bundle RUN [BRANCH] [--commit] [-o FILE]
//	orchestrator replay BUNDLE|BRANCH [--run RUN] [--live] [--analytical] [--json]
//	orchestrator validate BUNDLE
//	orchestrator play FLOW [--on-error MODE] [--timing fast|recorded] [--set KEY=VALUE] [--json]
//	orchestrator flow export RUN_ID/BRANCH_ID [-o FILE]
//	orchestrator cache list|show TASK|drop TASK|--all [--data-dir DIR]
//
// RUN, BRANCH and ENTRY are ids or any unique prefix of one, in either
// case (a cut id as tables print it, "01M8A3QGCH0Y…", included); BRANCH
// also the short form events print ("…9NGHT4DK"); ENTRY also an
// idempotency key or the run that made it. An id that names several
// records, or none, is bad input (exit 2).
//
// Exit codes: 0 committed, 1 internal error, 2 bad input, 3 no branch
// reached the commit boundary within budget, 4 commit aborted, 5 Chromium or
// the Playwright driver missing (or no workers), 6 site unreachable, 7 an
// audit failed (ledger verify, bundle validation, a replay that diverged),
// 8 the goal failed (goal.failure held), 9 a model planner's question its
// cassette does not hold or cannot read (--llm replay), 10 a task without
// commit that stopped at a side-effect boundary, 11 a model
// planner's endpoint that did not answer (without planner.fallback:
// heuristic).
//
// A failed command prints one line to stderr, "orchestrator: " and what
// went wrong, followed by the next step when there is one (start the demo
// site, the command that lists the ids).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/telemetry"
)

// defaultSiteAddr is where `orchestrator site` serves the demo site, and
// the example tasks look for it.
const defaultSiteAddr = "127.0.0.1:8555"

const usage = `usage: orchestrator COMMAND [flags]

commands:
  run TASK.yaml      run a task against its site
  demo               run the example task against the embedded demo site
  site               serve the demo vendor site alone
  ledger list        list the commit ledger (show ENTRY, verify, export, evidence ENTRY NAME: -h)
  events RUN         show a run's event log, one event a line (--branch BRANCH for one branch)
  runs [RUN]         list the runs: task, outcome, duration, branches, winner
  bundle RUN [BRANCH] write a portable replay bundle of a branch (default: the winner)
  replay BUNDLE|BRANCH replay deterministically and compare strict hashes (RSR, DVR, TTD)
  rerun RUN          re-run a run's whole search against its recorded network and model answers, and compare the decisions (--mode full|hybrid, --swap)
  validate FILE...   check without running: a task file, a flow file, or a bundle's integrity
  play FLOW          play a flow (file, bundle or RUN_ID/BRANCH_ID) against the live site, healing drifted targets
  flow export RUN_ID/BRANCH_ID  write a branch as a flow file a person can edit
  cache list|show|drop  the plan cache: each task's last winning plan, followed first by the next run
  drift              across runs: targets that needed healing, by strategy and over time, fragile selectors, slower steps
  cassette list|prune DIR  a model planner's recorded answers; prune drops those of another prompt version
  serve              a read-only web dashboard over the data dir (--bundle FILE for one bundle; --addr, --token)
  engine             keep NATS and Chromium warm and run the tasks submitted to it (run --engine ADDR TASK.yaml)
  status RUN         a run submitted to an engine: queued, running, completed or failed (--engine ADDR)
  doctor             report Chromium, its headless shell, Node.js and the Playwright driver, and how to install what is missing
  install            install the Playwright driver into the per-user cache (npm registry)
  completion bash|zsh|fish  the shell's completion script: commands and each command's flags
  version            the build (version, commit, Go) and the browser parts a run would use (also --version)

ids: RUN, BRANCH and ENTRY take any unique prefix of the id, in either case;
  BRANCH also, within a run, a prefix of the part after the id's time, and the short
  form events print (…9NGHT4DK); ENTRY an idempotency key.

common flags: --data-dir DIR (default ./.multiverse), --json
run 'orchestrator COMMAND -h' for a command's flags.
`

func main() {
	ctx, stop := signalContext()
	shutdown, err := telemetry.Setup(ctx, "multiverse-orchestrator")
	if err != nil {
		fmt.Fprintln(os.Stderr, errorLine(err))
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

// commandFunc runs one command.
type commandFunc func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// command is a command run knows and its function.
type command struct {
	name string
	run  commandFunc
}

// commandTable lists the commands in the order help lists them: the one
// table dispatch, "did you mean" and completion read. (A function, not a
// variable: completion reads it.)
func commandTable() []command {
	return []command{{"run", cmdRun}, {"demo", cmdDemo}, {"site", cmdSite}, {"ledger", cmdLedger}, {"events", cmdEvents},
		{"runs", cmdRuns}, {"bundle", cmdBundle}, {"replay", cmdReplay}, {"rerun", cmdRerun}, {"validate", cmdValidate},
		{"play", cmdPlay}, {"flow", cmdFlow}, {"cache", cmdCache}, {"drift", cmdDrift}, {"cassette", cmdCassette},
		{"serve", cmdServe}, {"engine", cmdEngine}, {"status", cmdStatus}, {"doctor", cmdDoctor}, {"install", cmdInstall}, {"version", cmdVersion}, {"completion", cmdCompletion}}
}

// commandNames are the commands' names, in the table's order.
func commandNames() []string {
	var out []string
	for _, c := range commandTable() {
		out = append(out, c.name)
	}
	return out
}

// lookupCommand returns the function of the command named name.
func lookupCommand(name string) (commandFunc, bool) {
	for _, c := range commandTable() {
		if c.name == name {
			return c.run, true
		}
	}
	return nil, false
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return orchestrator.ExitBadInput
	}
	cmd, rest := args[0], args[1:]
	var err error
	switch fn, ok := lookupCommand(cmd); {
	case ok:
		err = fn(ctx, rest, stdout, stderr)
	case cmd == "--version":
		err = cmdVersion(ctx, rest, stdout, stderr)
	case cmd == "-h" || cmd == "--help" || cmd == "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		if near := closest(cmd, commandNames()); near != "" {
			fmt.Fprintf(stderr, "orchestrator: unknown command %q; did you mean %q? (orchestrator --help lists the commands)\n", cmd, near)
		} else {
			fmt.Fprintf(stderr, "orchestrator: unknown command %q\n\n%s", cmd, usage)
		}
		return orchestrator.ExitBadInput
	}
	if err == nil {
		return 0
	}
	if ctx.Err() != nil && !errors.Is(err, orchestrator.ErrInterrupted) && !errors.Is(err, errHelp) && !errors.Is(err, errUsage) {
		// Ctrl-C (or SIGTERM) ended the command: say so, exit 130.
		err = fmt.Errorf("%w (%v)", orchestrator.ErrInterrupted, err)
	}
	if errors.Is(err, errHelp) {
		return 0
	}
	if errors.Is(err, errUsage) {
		return orchestrator.ExitBadInput
	}
	fmt.Fprintln(stderr, errorLine(err))
	return orchestrator.ExitCode(err)
}
