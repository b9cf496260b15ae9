package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/multiverse-orchestrator/multiverse/llm"
	"github.com/multiverse-orchestrator/multiverse/llm/advice"
	"github.com/multiverse-orchestrator/multiverse/task"
)

const cassetteUsage = "usage: orchestrator cassette list|prune DIR|--task TASK.yaml [--json]"

// cmdCassette lists a model planner's cassette, marking the entries of
// another prompt version than this build's, and prunes those.
func cmdCassette(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cassette", flag.ContinueOnError)
	taskFile := fs.String("task", "", "the task whose cassette it is (its planner.cassettes, else TASKFILE.cassettes)")
	asJSON := fs.Bool("json", false, "print JSON")
	fs.Usage = func() { fmt.Fprintln(stderr, cassetteUsage); fs.PrintDefaults() }
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) == 0 || pos[0] != "list" && pos[0] != "prune" {
		return wrongArgs(fs, stderr, pos, "a subcommand: list or prune, with DIR or --task TASK.yaml")
	}
	sub, pos := pos[0], pos[1:]
	var dir string
	switch {
	case len(pos) == 1 && *taskFile == "":
		dir = pos[0]
	case len(pos) == 0 && *taskFile != "":
		t, err := task.Load(*taskFile)
		if err != nil {
			return err
		}
		dir = t.CassetteDir()
	default:
		fs.Usage()
		return errUsage
	}
	cas, err := llm.OpenCassette(dir, false)
	if err != nil {
		return badInput("%v", err)
	}
	if sub == "prune" {
		removed, err := cas.Prune(ctx, advice.PromptVersion)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "removed %d entries of another prompt version than %s (or that do not read)\n", len(removed), advice.PromptVersion)
		return nil
	}
	entries, err := cas.Entries(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, map[string]any{"dir": dir, "prompt_version": advice.PromptVersion, "entries": entries})
	}
	fmt.Fprintf(stdout, "%s: %d entries; this build's prompt version is %s\n", dir, len(entries), advice.PromptVersion)
	tw := tabwriter.NewWriter(stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "FINGERPRINT\tMODEL\tPROMPT\tBYTES\t")
	for _, e := range entries {
		state := ""
		switch {
		case e.Err != "":
			state = "does not read: " + e.Err
		case e.PromptVersion != advice.PromptVersion:
			state = "stale: another prompt (prune removes it)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", short(e.Fingerprint), e.Model, e.PromptVersion, e.Bytes, state)
	}
	return tw.Flush()
}
