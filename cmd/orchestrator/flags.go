package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// errUsage means the flag package already printed what was wrong.
var errUsage = errors.New("usage")

// parse parses flags that may appear before, between or after positional
// arguments, and returns the positional ones.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	fs.SetOutput(stderr)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, errUsage
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
