package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/browser"
)

// cmdDoctor reports the browser parts a run needs, where they are and
// their versions, and for each missing one the command that installs it.
// It fails (exit 5) when a required part is missing.
func cmdDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	chromium := fs.String("chromium", "", "Chromium executable")
	driver := fs.String("driver", "", "Playwright driver directory")
	asJSON := fs.Bool("json", false, "print JSON")
	fs.Usage = func() { fmt.Fprintln(stderr, "usage: orchestrator doctor [flags]"); fs.PrintDefaults() }
	if err := parseNone(fs, args, stderr); err != nil {
		return err
	}
	parts := browser.Check(ctx, browser.Options{ChromiumPath: *chromium, DriverDir: *driver})
	var missing []string
	sentinel := browser.ErrDriverNotFound
	for _, p := range parts {
		if p.Missing != "" && !p.Optional {
			missing = append(missing, p.Name)
			if p.Name == "Chromium" {
				sentinel = browser.ErrChromiumNotFound
			}
		}
	}
	if *asJSON {
		writeJSON(stdout, map[string]any{"parts": parts, "ok": len(missing) == 0})
	} else {
		for _, p := range parts {
			if p.Missing == "" {
				fmt.Fprintf(stdout, "ok       %-24s %s  (%s)\n", p.Name, p.Version, p.Path)
				continue
			}
			state := "MISSING"
			if p.Optional {
				state = "optional"
			}
			fmt.Fprintf(stdout, "%-8s %-24s %s\n         install with: %s\n", state, p.Name, p.Missing, p.Fix)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("doctor: missing %s (%w)", strings.Join(missing, ", "), sentinel)
	}
	return nil
}

// cmdInstall installs the Playwright driver into the per-user cache.
func cmdInstall(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("install", flag.ContinueOnError)
	dir := fs.String("dir", "", "install into this directory (default: "+browser.UserDriverDir()+")")
	fs.Usage = func() { fmt.Fprintln(stderr, "usage: orchestrator install [--dir DIR]"); fs.PrintDefaults() }
	if err := parseNone(fs, args, stderr); err != nil {
		return err
	}
	d, err := browser.InstallDriver(ctx, *dir, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "installed the Playwright driver %s in %s\n", browser.DriverVersion, d)
	return nil
}
