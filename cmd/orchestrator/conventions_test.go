package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// TestCLIConventions walks every command: -h and --help print its usage
// with double-dash flags and exit 0; a mistyped flag names the closest
// one; the commands that print JSON without a site print JSON that parses,
// with durations in milliseconds.
func TestCLIConventions(t *testing.T) {
	ctx := context.Background()
	seen := map[string]bool{}
	for _, c := range commandTable() {
		if seen[c.name] || c.run == nil || !strings.Contains(usage, "\n  "+c.name+" ") {
			t.Errorf("command %s: twice in the table, without a function, or not in the usage text", c.name)
		}
		seen[c.name] = true
	}
	flags := commandFlags(ctx)
	for _, cmd := range commandNames() {
		t.Run(cmd, func(t *testing.T) {
			for _, help := range []string{"-h", "--help"} {
				args := []string{cmd, help}
				var o, e bytes.Buffer
				if code := run(ctx, args, &o, &e); code != 0 || !strings.Contains(o.String()+e.String(), "usage: orchestrator "+cmd) {
					t.Errorf("%s %s: exit %d\n%s%s", cmd, help, code, o.String(), e.String())
				}
				if out := o.String() + e.String(); strings.Contains(out, "\n  -") && !strings.Contains(out, "\n  --") {
					t.Errorf("%s %s lists flags with one dash:\n%s", cmd, help, out)
				}
			}
			var f string
			for _, x := range flags[cmd] {
				if x != "--help" && len(x) > 4 {
					f = x
					break
				}
			}
			if f == "" {
				return
			}
			args := []string{cmd, f + "x"}
			if cmd == "flow" {
				args = []string{"flow", "export", f + "x"}
			}
			var o, e bytes.Buffer
			if code := run(ctx, args, &o, &e); code != 2 || !strings.Contains(e.String(), "did you mean "+f+"?") {
				t.Errorf("%s %sx: exit %d, stderr %q; want exit 2 suggesting %s", cmd, f, code, e.String(), f)
			}
		})
	}
	dir := t.TempDir()
	l, err := eventlog.Open(ctx, filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	for _, args := range [][]string{{"version", "--json"}, {"drift", "--json", "--data-dir", dir}, {"cache", "list", "--json", "--data-dir", dir}} {
		var o, e bytes.Buffer
		code := run(ctx, args, &o, &e)
		var v any
		if err := json.Unmarshal(o.Bytes(), &v); err != nil || code != 0 {
			t.Errorf("%v: exit %d, not JSON (%v):\n%s%s", args, code, err, o.String(), e.String())
		}
		if strings.Contains(o.String(), `_ns"`) {
			t.Errorf("%v counts nanoseconds:\n%s", args, o.String())
		}
	}
}
