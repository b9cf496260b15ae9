package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/multiverse-orchestrator/multiverse/browser"
)

// versionInfo is what `orchestrator version` reports: the build (module
// version, VCS revision and whether the tree was modified, Go) and the
// browser parts a run would use.
type versionInfo struct {
	Version    string         `json:"version"`
	Commit     string         `json:"commit,omitempty"`
	CommitTime string         `json:"commit_time,omitempty"`
	Modified   bool           `json:"modified,omitempty"`
	Go         string         `json:"go"`
	Playwright string         `json:"playwright_go,omitempty"`
	Driver     string         `json:"driver_version"`
	Parts      []browser.Part `json:"parts"`
}

// buildInfo reads the binary's own build information.
func buildInfo() versionInfo {
	v := versionInfo{Version: "(devel)", Go: runtime.Version(), Driver: browser.DriverVersion}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	for _, d := range bi.Deps {
		if d.Path == "github.com/playwright-community/playwright-go" {
			v.Playwright = d.Version
		}
	}
	return v
}

// cmdVersion prints the build and the browser parts (also `--version`).
func cmdVersion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	chromium := fs.String("chromium", "", "Chromium executable")
	driver := fs.String("driver", "", "Playwright driver directory")
	fs.Usage = func() { fmt.Fprintln(stderr, "usage: orchestrator version [--json]"); fs.PrintDefaults() }
	if err := parseNone(fs, args, stderr); err != nil {
		return err
	}
	v := buildInfo()
	v.Parts = browser.Check(ctx, browser.Options{ChromiumPath: *chromium, DriverDir: *driver})
	if *asJSON {
		return writeJSON(stdout, v)
	}
	commit := v.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if v.Modified {
		commit += " (modified)"
	}
	if commit != "" {
		commit = ", commit " + commit
	}
	fmt.Fprintf(stdout, "orchestrator %s%s, %s\n", v.Version, commit, v.Go)
	fmt.Fprintf(stdout, "playwright-go %s, Playwright driver %s\n", v.Playwright, v.Driver)
	for _, p := range v.Parts {
		if p.Missing != "" {
			fmt.Fprintf(stdout, "%-24s missing: %s\n", p.Name, p.Missing)
			continue
		}
		fmt.Fprintf(stdout, "%-24s %s (%s)\n", p.Name, p.Version, p.Path)
	}
	return nil
}
