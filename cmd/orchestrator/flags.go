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
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	fs.SetOutput(&dashes{w: stderr})
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, errHelp
			}
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

// parseNone parses the flags of a command that takes no positional
// argument: one is a usage error.
func parseNone(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		fs.Usage()
		return errUsage
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
