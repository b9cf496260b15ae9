package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"io"
	"strings"
	"time"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// errUsage means the flag package already printed what was wrong.
var errUsage = errors.New("usage")

// errHelp means help was asked for (-h, --help) and printed: exit 0.
var errHelp = errors.New("help")

// parse parses flags that may appear before, between or after positional
// arguments, and returns the positional ones. Usage and help list flags
// with two dashes, as the docs write them.
//
// A flag the command does not know, or a value it cannot take, is one
// line naming it, with the closest flag the command has ("did you mean")
// and where its flags are listed: not the whole usage.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	usage := fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	defer func() {
		fs.SetOutput(&dashes{w: stderr})
		fs.Usage = usage
	}()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			fs.SetOutput(&dashes{w: stderr})
			if errors.Is(err, flag.ErrHelp) {
				if usage != nil {
					usage()
				} else {
					fs.PrintDefaults()
				}
				return nil, errHelp
			}
			fmt.Fprintf(stderr, "orchestrator %s: %s (orchestrator %s -h lists its flags)\n", fs.Name(), flagProblem(fs, err), fs.Name())
			return nil, errUsage
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagProblem says what was wrong with a flag in the docs' form (two
// dashes), suggesting the closest flag the command has for one it does
// not know.
func flagProblem(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		if near := closest(name, flagNames(fs)); near != "" {
			return fmt.Sprintf("unknown flag --%s; did you mean --%s?", name, near)
		}
		return "unknown flag --" + name
	}
	// "invalid value ... for flag -x: ...", "flag needs an argument: -x"
	return strings.Replace(strings.Replace(msg, "flag -", "flag --", 1), "argument: -", "argument: --", 1)
}

func flagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// closest returns the name among names nearest to s: within two edits,
// or one that starts with s; "" when none is.
func closest(s string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		d := editDistance(strings.ToLower(s), strings.ToLower(n))
		if d < bestD || d == bestD && n < best {
			best, bestD = n, d
		}
	}
	if best == "" {
		for _, n := range names {
			if len(s) >= 3 && strings.HasPrefix(n, s) {
				return n
			}
		}
	}
	return best
}

// editDistance is the Levenshtein distance of two strings.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// wrongArgs says in one sentence what is wrong with a command's
// positional arguments (what names the ones it takes), then prints its
// usage.
func wrongArgs(fs *flag.FlagSet, stderr io.Writer, pos []string, what string) error {
	if len(pos) == 0 {
		fmt.Fprintf(stderr, "orchestrator %s: missing %s\n", fs.Name(), what)
	} else {
		fmt.Fprintf(stderr, "orchestrator %s: unexpected argument(s) %s: it takes %s\n", fs.Name(), strings.Join(pos, " "), what)
	}
	fs.Usage()
	return errUsage
}

// parseNone parses the flags of a command that takes no positional
// argument: one is a usage error.
func parseNone(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return wrongArgs(fs, stderr, pos, "no arguments")
	}
	return nil
}

// writeJSON writes v as indented JSON: what every --json prints.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// dashes writes the flag package's output with each flag listed as
// --name (it prints -name), a line at a time.
type dashes struct {
	w   io.Writer
	buf []byte
}

func (d *dashes) Write(p []byte) (int, error) {
	d.buf = append(d.buf, p...)
	for {
		i := bytes.IndexByte(d.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := d.buf[:i+1]
		if bytes.HasPrefix(line, []byte("  -")) && len(line) > 3 && line[3] != '-' && line[3] != ' ' {
			line = append([]byte("  --"), line[3:]...)
		}
		if _, err := d.w.Write(line); err != nil {
			return len(p), err
		}
		d.buf = d.buf[i+1:]
	}
}

func badInput(format string, args ...any) error {
	return fmt.Errorf("%w: %s", orchestrator.ErrBadInput, fmt.Sprintf(format, args...))
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r", " ")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// browserFlags are the flags of the commands that drive a live browser
// against a site of their own (replay, play).
type browserFlags struct {
	chromium, driver string
	resolve          resolveFlag
	insecure         bool
}

// register adds the flags; when says when they apply ("" always).
func (f *browserFlags) register(fs *flag.FlagSet, when string) {
	fs.StringVar(&f.chromium, "chromium", "", "Chromium executable")
	fs.StringVar(&f.driver, "driver", "", "Playwright driver directory")
	fs.Var(&f.resolve, "resolve", when+"host=IP, reach host at IP (repeatable)")
	fs.BoolVar(&f.insecure, "ignore-https-errors", false, when+"accept certificates Chromium does not trust (a site behind an internal authority)")
}

// launch starts Chromium; the caller closes the runtime.
func (f *browserFlags) launch(ctx context.Context) (*browser.Runtime, error) {
	lctx, cancel := context.WithTimeout(ctx, launchTimeout)
	defer cancel()
	return browser.Launch(lctx, browser.Options{ChromiumPath: f.chromium, DriverDir: f.driver, Resolve: f.resolve})
}

// launchTimeout bounds starting Chromium and the driver.
const launchTimeout = time.Minute
