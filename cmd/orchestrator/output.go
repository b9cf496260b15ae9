package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressLine redraws one status line on a terminal, never wider than
// the terminal (the least important parts go first, then the line is
// cut).
type progressLine struct {
	w     io.Writer
	mu    sync.Mutex
	width func() int
}

func newProgressLine(w io.Writer) *progressLine {
	return &progressLine{w: w, width: func() int { return termWidth(w) }}
}

// termWidth is the width of the terminal w writes to; 80 when it is none.
func termWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	return 80
}

func (p *progressLine) update(pr orchestrator.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.w, "\r\033[K"+fitLine(progressParts(pr), p.width()-1))
}

// progressParts is what the line says, most important first.
func progressParts(pr orchestrator.Progress) []string {
	at := fmt.Sprintf("[%5.1fs]", pr.Elapsed.Seconds())
	switch pr.Phase {
	case "start":
		return []string{at, "starting: the site, the bus, Chromium and the workers…"}
	case "login":
		return []string{at, "logging in…"}
	case "minimize":
		return []string{at, "trying the winner's plan without each middle step…"}
	case "commit":
		return []string{at, "committing the winner…"}
	}
	return []string{fmt.Sprintf("[%5.1fs / %s]", pr.Elapsed.Seconds(), pr.Budget), fmt.Sprintf("wave %d", pr.Wave),
		fmt.Sprintf("%d branches", pr.Executed), fmt.Sprintf("best J %.3f", pr.BestJ),
		fmt.Sprintf("%d in flight on %d workers", pr.Running, pr.Workers), fmt.Sprintf("frontier %d", pr.Frontier)}
}

// fitLine joins parts with " · " (the first with a space) as long as they
// fit in width runes, and cuts the first one if even it does not.
func fitLine(parts []string, width int) string {
	line := ""
	for i, part := range parts {
		next := part
		switch {
		case i == 1:
			next = line + " " + part
		case i > 1:
			next = line + " · " + part
		}
		if utf8.RuneCountInString(next) > width && i > 0 {
			break
		}
		line = next
	}
	if r := []rune(line); len(r) > width && width > 1 {
		line = string(r[:width-1]) + "…"
	}
	return line
}

func printSummary(w io.Writer, s *orchestrator.Summary, err error, asJSON bool) {
	if asJSON {
		out := map[string]any{"summary": s, "exit_code": orchestrator.ExitCode(err)}
		if err != nil {
			out["error"] = err.Error()
		}
		writeJSON(w, out)
		return
	}
	if isTTY(os.Stderr) {
		fmt.Fprint(os.Stderr, "\r\033[K")
	}
	if s == nil {
		return
	}
	fmt.Fprintf(w, "Multiverse run %s: task %s, seed %d\n", s.RunID, s.Task, s.Seed)
	b := s.Branches
	fmt.Fprintf(w, "  search    %d branches explored in %d waves (%d workers, up to %d at once); %d forked, %d pruned, %d failed, %d at the %s\n",
		b.Executed, s.Waves, s.Workers, s.MaxConcurrent, b.Forked, b.Pruned, b.Failed, b.Boundary, reachedWhat(s))
	fmt.Fprintf(w, "            %d actions executed; %d branches continued their parent's live context\n", s.Actions, s.Warm)
	if len(s.Pruned) > 0 {
		keys := make([]string, 0, len(s.Pruned))
		for k := range s.Pruned {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s %d", k, s.Pruned[k])
		}
		fmt.Fprintf(w, "  pruned    %s\n", strings.Join(parts, ", "))
	}
	printMinimal(w, s.Minimal)
	printCache(w, s.Cache)
	printLearning(w, s.Learning)
	printModel(w, s.Model)
	printHeld(w, s)
	if win := s.Winner; win != nil {
		fmt.Fprintf(w, "  winner    branch %s, plan %s, J %.3f (progress %.2f)\n", win.BranchID, short(win.PlanDigest), win.Score.J, win.Score.Progress)
		for i, st := range win.Steps {
			fmt.Fprintf(w, "            %2d. %s\n", i+1, st)
		}
	}
	if len(s.Extract) > 0 {
		for i, k := range slices.Sorted(maps.Keys(s.Extract)) {
			label := "extract"
			if i > 0 {
				label = ""
			}
			fmt.Fprintf(w, "  %-9s %s = %q\n", label, k, s.Extract[k])
		}
	}
	if c := s.Commit; c != nil && c.EntryID == "" {
		for _, sk := range c.Skipped {
			fmt.Fprintf(w, "  skipped   %s\n", sk)
		}
		for _, ch := range c.Changes {
			fmt.Fprintf(w, "  changed   %s (since exploration)\n", ch)
		}
	}
	if c := s.Commit; c != nil && c.EntryID != "" {
		switch {
		case c.Existing:
			fmt.Fprintf(w, "  commit    already committed earlier: order %s (ledger entry %s); nothing was sent to the site\n", c.OrderID, c.EntryID)
		case c.Recovered:
			fmt.Fprintf(w, "  commit    recovered an interrupted commit: order %s (ledger entry %s)\n", c.OrderID, c.EntryID)
		case c.State == "committed":
			fmt.Fprintf(w, "  commit    order %s placed (ledger entry %s)\n", c.OrderID, c.EntryID)
		case len(c.PostcheckFailed) > 0 && c.State == "compensated":
			fmt.Fprintf(w, "  commit    order %s placed, then failed its post-checks (%s): undone, the site confirmed (ledger entry %s)\n",
				c.OrderID, strings.Join(c.PostcheckFailed, ", "), c.EntryID)
		case len(c.PostcheckFailed) > 0:
			fmt.Fprintf(w, "  commit    order %s placed, then failed its post-checks (%s); the undo is %s: %s (ledger entry %s; orchestrator ledger compensate %s tries again)\n",
				c.OrderID, strings.Join(c.PostcheckFailed, ", "), c.State, c.Error, c.EntryID, c.EntryID)
		default:
			fmt.Fprintf(w, "  commit    %s (ledger entry %s): %s\n", c.State, c.EntryID, c.Error)
		}
		fmt.Fprintf(w, "  ledger    %s  key %s\n", c.State, c.Key)
		if c.CompensationKey != "" {
			fmt.Fprintf(w, "            undo key %s\n", c.CompensationKey)
		}
		if len(c.Artifacts) > 0 {
			for _, k := range slices.Sorted(maps.Keys(c.Artifacts)) {
				fmt.Fprintf(w, "            %-24s sha256:%s\n", k, c.Artifacts[k])
			}
		}
		for _, sk := range c.Skipped {
			fmt.Fprintf(w, "  skipped   %s\n", sk)
		}
		for _, ch := range c.Changes {
			fmt.Fprintf(w, "  changed   %s (since exploration)\n", ch)
		}
	}
	fmt.Fprintf(w, "  records   data dir %s\n", s.Paths.DataDir)
	fmt.Fprintf(w, "            events    %s  (orchestrator events %s --data-dir %s)\n", s.Paths.Events, s.RunID, s.Paths.DataDir)
	fmt.Fprintf(w, "            ledger    %s  (orchestrator ledger list --data-dir %s)\n", s.Paths.Ledger, s.Paths.DataDir)
	fmt.Fprintf(w, "            artifacts %s\n", s.Paths.Artifacts)
	if s.Paths.Bundle != "" {
		fmt.Fprintf(w, "            bundle    %s  (orchestrator replay %s)\n", s.Paths.Bundle, s.Paths.Bundle)
	}
	printHandOver(w, s)
	status := s.Status
	if err != nil {
		status += ": " + oneLine(err.Error())
	}
	fmt.Fprintf(w, "  result    %s in %s\n", status, s.Elapsed.Round(10*time.Millisecond))
}

// printHandOver lists the bundles a failed run handed over, each with the
// command that replays it.
func printHandOver(w io.Writer, s *orchestrator.Summary) {
	written := slices.ContainsFunc(s.Paths.FailureBundles, func(fb orchestrator.FailureBundle) bool { return fb.Path != "" })
	if !written {
		return // reportHandOver names the ones that were not
	}
	fmt.Fprintf(w, "  replay    bundles of this failure in %s\n", s.Paths.FailureBundleDir)
	for _, fb := range s.Paths.FailureBundles {
		if fb.Path == "" {
			continue
		}
		why := fmt.Sprintf("%-6s branch %s, J %.3f", fb.Reason, fb.BranchID, fb.J)
		if fb.Rule != "" {
			why += ", " + fb.Rule
		}
		fmt.Fprintf(w, "            %s\n              %s\n", why, fb.Replay)
	}
}

// reportHandOver names on stderr each bundle a failed run could not
// write; the run's own error is reported after it, unchanged.
func reportHandOver(stderr io.Writer, s *orchestrator.Summary) {
	if s == nil {
		return
	}
	for _, fb := range s.Paths.FailureBundles {
		if fb.Error != "" {
			fmt.Fprintf(stderr, "orchestrator: failure bundle not written: %s\n", strings.TrimPrefix(oneLine(fb.Error), "orchestrator: "))
		}
	}
}

// reachedWhat names where a winner stops: the commit boundary, or the
// goal of a task without commit.
func reachedWhat(s *orchestrator.Summary) string {
	if s.NoCommit {
		return "goal"
	}
	return "boundary"
}

func short(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}

// printModel counts the model planner's questions.
func printModel(w io.Writer, m *orchestrator.ModelInfo) {
	if m == nil {
		return
	}
	line := fmt.Sprintf("  model     %d question(s) asked (%s): %d answered, %d fell back to the heuristic's order", m.Asked, m.Mode, m.Answered, m.FellBack)
	if m.Unanswered > 0 {
		line += fmt.Sprintf(" (%d unanswered)", m.Unanswered)
	}
	fmt.Fprintln(w, line)
}

// printMinimal says how long the minimal plan is against the winner's,
// and which steps it leaves out.
func printMinimal(w io.Writer, m *orchestrator.MinimalInfo) {
	switch {
	case m == nil:
	case len(m.Removed) == 0:
		fmt.Fprintf(w, "  plan      %d steps, each needed (tried without each middle step that writes no value)\n", m.Steps)
	default:
		fmt.Fprintf(w, "  plan      %d steps, the winner's %d without %s (cached and exported so)\n",
			m.Steps, m.WinnerSteps, strings.Join(quoted(m.Removed), ", "))
	}
}

func quoted(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Quote(x)
	}
	return out
}

// printCache says how the run used the plan cache.
func printCache(w io.Writer, c *orchestrator.CacheInfo) {
	if c == nil {
		return
	}
	switch {
	case c.Hit && c.DivergedAt > 0:
		fmt.Fprintf(w, "  cache     followed %d of %d cached steps (run %s); diverged at step %d: %s; searched on from there\n",
			c.Followed, c.Steps, c.From, c.DivergedAt, c.Reason)
	case c.Hit:
		fmt.Fprintf(w, "  cache     followed %d of %d cached steps (run %s)\n", c.Followed, c.Steps, c.From)
	}
	if c.Stored {
		fmt.Fprintf(w, "  cache     the plan is cached in %s (orchestrator cache list)\n", c.File)
	}
}

// printLearning says which version of the site's record the search read
// and which the run wrote.
func printLearning(w io.Writer, l *orchestrator.LearningInfo) {
	if l == nil || l.Version == 0 && l.Wrote == 0 {
		return
	}
	var parts []string
	if l.Version > 0 {
		read := fmt.Sprintf("read version %d of the site's record (%d steps measured", l.Version, l.Steps)
		if l.StallLimit > 0 {
			read += fmt.Sprintf(", stall limit %d", l.StallLimit)
		}
		if l.Pinned {
			read += ", pinned"
		}
		parts = append(parts, read+")")
	}
	if l.Wrote > 0 {
		parts = append(parts, fmt.Sprintf("wrote version %d", l.Wrote))
	}
	fmt.Fprintf(w, "  learned   %s\n", strings.Join(parts, "; "))
}

// maxHeldLines bounds the held requests the summary prints.
const maxHeldLines = 8

// printHeld prints what speculation held and, for a run that stopped at
// a side-effect boundary, the commit section that would send it.
func printHeld(w io.Writer, s *orchestrator.Summary) {
	for i, h := range s.Held {
		if i == maxHeldLines {
			fmt.Fprintf(w, "            ... %d more (run --json lists them all)\n", len(s.Held)-i)
			break
		}
		label := "held"
		if i > 0 {
			label = ""
		}
		who := "the page's own"
		if h.Caused > 0 {
			who = fmt.Sprintf("%d caused by an action", h.Caused)
		}
		fmt.Fprintf(w, "  %-9s %s %s%s on %d branch(es), %s; to let it out: %s\n", label, h.Method, h.Origin, h.Path, h.Branches, who, h.Allow)
	}
	for i, e := range s.SideEffects {
		label := "boundary"
		if i > 0 {
			label = ""
		}
		fields := ""
		if len(e.Fields) > 0 {
			fields = " (fields: " + strings.Join(e.Fields, ", ") + ")"
		}
		fmt.Fprintf(w, "  %-9s %q would send %s%s: %d branch(es), e.g. %s\n", label, e.Action, e.Request, fields, e.Branches, e.BranchID)
	}
	if s.NoCommit && s.Status == "side_effect_boundary" && len(s.SideEffects) > 0 {
		fmt.Fprintf(w, "  commit    a draft commit section for the first (check boundary, intent and confirm):\n")
		for _, line := range strings.Split(strings.TrimRight(s.SideEffects[0].Commit, "\n"), "\n") {
			fmt.Fprintf(w, "            %s\n", line)
		}
	}
}
