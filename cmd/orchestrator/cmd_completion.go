package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// The shell completion of the CLI, generated from the commands
// themselves: each command's flags are read from its own -h, so a flag
// added to a command completes without touching this file.

// flagLine is a flag in a command's usage (two dashes, as parse prints
// them).
var flagLine = regexp.MustCompile(`(?m)^\s+(--[a-z][a-z0-9-]*)`)

// commandFlags returns each command's flags, read from its -h.
func commandFlags(ctx context.Context) map[string][]string {
	out := map[string][]string{}
	for _, cmd := range commandNames() {
		args := []string{cmd, "-h"}
		switch cmd {
		case "flow":
			args = []string{"flow", "export", "-h"}
		case "version", "completion":
			args = []string{cmd, "--help"}
		}
		var o, e bytes.Buffer
		run(ctx, args, &o, &e)
		seen := map[string]bool{"--help": true}
		for _, m := range flagLine.FindAllStringSubmatch(o.String()+e.String(), -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				out[cmd] = append(out[cmd], m[1])
			}
		}
		out[cmd] = append(out[cmd], "--help")
		sort.Strings(out[cmd])
	}
	return out
}

func cmdCompletion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintln(stdout, "usage: orchestrator completion bash|zsh|fish\n\n"+
			"Prints the shell's completion script for orchestrator: its commands and each command's flags.\n"+
			"  bash: source <(orchestrator completion bash)      (or write it to /etc/bash_completion.d/orchestrator)\n"+
			"  zsh:  source <(orchestrator completion zsh)\n"+
			"  fish: orchestrator completion fish > ~/.config/fish/completions/orchestrator.fish")
		return errHelp
	}
	if len(args) != 1 {
		fmt.Fprintln(stderr, "orchestrator completion: name the shell: bash, zsh or fish")
		return errUsage
	}
	flags := commandFlags(ctx)
	switch args[0] {
	case "bash":
		writeBash(stdout, flags, false)
	case "zsh":
		writeBash(stdout, flags, true)
	case "fish":
		writeFish(stdout, flags)
	default:
		return badInput("completion %q: the shells are bash, zsh and fish", args[0])
	}
	return nil
}

func writeBash(w io.Writer, flags map[string][]string, zsh bool) {
	if zsh {
		fmt.Fprintln(w, "# orchestrator completion for zsh (through bashcompinit)\nautoload -U +X bashcompinit && bashcompinit")
	} else {
		fmt.Fprintln(w, "# orchestrator completion for bash")
	}
	fmt.Fprintf(w, `_orchestrator() {
  local cur=${COMP_WORDS[COMP_CWORD]} opts
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W %q -- "$cur") )
    return
  fi
  case "${COMP_WORDS[1]}" in
`, strings.Join(commandNames(), " "))
	for _, cmd := range commandNames() {
		fmt.Fprintf(w, "    %s) opts=%q ;;\n", cmd, strings.Join(flags[cmd], " "))
	}
	fmt.Fprint(w, `  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
  else
    COMPREPLY=( $(compgen -f -- "$cur") )
  fi
}
complete -o filenames -F _orchestrator orchestrator
`)
}

func writeFish(w io.Writer, flags map[string][]string) {
	fmt.Fprintln(w, "# orchestrator completion for fish")
	fmt.Fprintf(w, "complete -c orchestrator -f -n __fish_use_subcommand -a %q\n", strings.Join(commandNames(), " "))
	for _, cmd := range commandNames() {
		for _, f := range flags[cmd] {
			fmt.Fprintf(w, "complete -c orchestrator -n '__fish_seen_subcommand_from %s' -l %s\n", cmd, strings.TrimPrefix(f, "--"))
		}
	}
}
