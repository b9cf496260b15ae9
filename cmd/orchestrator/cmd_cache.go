package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/plancache"
	"github.com/multiverse-orchestrator/multiverse/task"
)

const cacheUsage = "usage: orchestrator cache list|show TASK|drop TASK|--all [--site ORIGIN] [--data-dir DIR] [--json]"

// cmdCache lists, shows and drops the plan cache's entries. TASK is a
// task name or a prefix of its digest.
func cmdCache(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cache", flag.ContinueOnError)
	dataDir := fs.String("data-dir", orchestrator.DefaultDataDir, "data dir")
	site := fs.String("site", "", "only the entry of this site (an origin, e.g. http://127.0.0.1:8555; a loopback site is one site on any port)")
	all := fs.Bool("all", false, "drop: every entry")
	asJSON := fs.Bool("json", false, "print JSON")
	fs.Usage = func() { fmt.Fprintln(stderr, cacheUsage); fs.PrintDefaults() }
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) == 0 || !slices.Contains([]string{"list", "show", "drop"}, pos[0]) {
		return wrongArgs(fs, stderr, pos, "a subcommand: list, show TASK or drop TASK|--all")
	}
	sub, pos := pos[0], pos[1:]
	store := plancache.Open(orchestrator.PlanCacheDir(*dataDir))
	entries, err := store.List(ctx)
	if err != nil {
		return fmt.Errorf("%w: %v", orchestrator.ErrVerify, err)
	}
	switch {
	case sub == "list" && len(pos) == 0:
		return printCacheEntries(stdout, entries, *asJSON)
	case sub == "show" && len(pos) == 1:
		e, err := oneEntry(entries, pos[0], *site)
		if err != nil {
			return err
		}
		return printCacheEntry(stdout, e, *asJSON)
	case sub == "drop" && *all && len(pos) == 0:
		n, err := store.Drop(ctx, "")
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "dropped %d cached plan(s)\n", n)
		return nil
	case sub == "drop" && !*all && len(pos) == 1:
		// One entry: the task's plan on one site, not on every site.
		e, err := oneEntry(entries, pos[0], *site)
		if err != nil {
			return err
		}
		if err := store.Remove(e.TaskDigest, e.Site); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "dropped 1 cached plan(s)\n")
		return nil
	}
	fs.Usage()
	return errUsage
}

// oneEntry finds the entry of a task (by name or digest prefix) and,
// when the task has entries on several sites, of site.
func oneEntry(entries []*plancache.Entry, name, site string) (*plancache.Entry, error) {
	var found []*plancache.Entry
	for _, e := range entries {
		if (e.Task == name || strings.HasPrefix(e.TaskDigest, name)) && (site == "" || e.Site == site || e.Site == task.SiteKey(site)) {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, badInput("no cached plan of task %s%s (`orchestrator cache list` lists them)", name, onSite(site))
	}
	var sites []string
	for _, e := range found {
		sites = append(sites, e.Task+" on "+e.Site)
	}
	return nil, badInput("%d cached plans match %s: %s (give --site or more of the digest)", len(found), name, strings.Join(sites, ", "))
}

func onSite(site string) string {
	if site == "" {
		return ""
	}
	return " on " + site
}

func printCacheEntries(w io.Writer, entries []*plancache.Entry, asJSON bool) error {
	if asJSON {
		return writeJSON(w, entries)
	}
	if len(entries) == 0 {
		fmt.Fprintln(w, "no cached plans")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tDIGEST\tSITE\tSTEPS\tFROM RUN\tCACHED")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", e.Task, short(e.TaskDigest), e.Site, len(e.Steps), e.RunID, e.Created.Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}

func printCacheEntry(w io.Writer, e *plancache.Entry, asJSON bool) error {
	if asJSON {
		return writeJSON(w, e)
	}
	fmt.Fprintf(w, "task     %s (%s)\nsite     %s\nfrom     run %s, branch %s\ncached   %s\nsteps    %d\n",
		e.Task, e.TaskDigest, e.Site, e.RunID, e.BranchID, e.Created.Format("2006-01-02 15:04:05 MST"), len(e.Steps))
	for i, st := range e.Steps {
		fmt.Fprintf(w, "  %2d. %s\n", i+1, st.Action.Describe())
		var held []string
		for _, k := range slices.Sorted(maps.Keys(st.Expect)) {
			if st.Expect[k] {
				held = append(held, k)
			}
		}
		if len(held) > 0 {
			fmt.Fprintf(w, "      then: %s\n", strings.Join(held, ", "))
		}
	}
	return nil
}
