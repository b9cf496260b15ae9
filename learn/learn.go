// Package learn holds what earlier runs on a site measured, for the next
// run's search to read: how long each step took (by the page it acted on,
// its kind and its target) and which targets needed healing, by the
// strategy that found them.
//
// A site's record is a Snapshot: one JSON file per site in the data dir's
// learn/ directory, named by the sha256 of the site's identity
// (task.SiteKey). Each run that learns reads the file once at its start
// (the snapshot it searches with, stored as an artifact whose digest its
// run_start names, so a rerun pins the same one) and folds its own
// measurements in at the end, which makes the next version. The record is
// bounded: MaxSamples durations per step, MaxSteps steps (the ones the
// fewest recent runs used go first) and MaxRuns run ids.
//
// The record also keeps what the searches showed of the stall rule: the
// most expansions without progress a branch on the way to the boundary
// needed here. A search that read enough runs that reached it prunes
// stalled branches sooner where the site's ways never stall long
// (planner.Search.Learn).
//
// A reader refuses a file of another format, one that does not decode,
// one whose site is not the one asked for, or one that breaks a bound,
// with an error wrapping ErrInvalid that names the file and the field.
// Writes go through a temporary file and a rename.
package learn

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Format is the snapshot format this package writes and reads.
const Format = 1

// Bounds of a snapshot.
const (
	// MaxSamples is how many durations a step keeps, the latest.
	MaxSamples = 8
	// MaxSteps is how many steps a snapshot keeps.
	MaxSteps = 2000
	// MaxRuns is how many run ids a snapshot names, the latest.
	MaxRuns = 32
	// MaxFileSize bounds a snapshot file; a larger one is refused unread.
	MaxFileSize = 8 << 20
)

// ErrInvalid is wrapped by every error about a snapshot's content.
var ErrInvalid = errors.New("learn: invalid snapshot")

// Snapshot is what the runs on one site taught, as of one version.
type Snapshot struct {
	Format int `json:"format"`
	// Site is the site's identity (task.SiteKey).
	Site string `json:"site"`
	// Version counts the runs folded in; 0 is a site no run taught yet.
	Version int `json:"version"`
	// Runs names the latest runs folded in, oldest first.
	Runs  []string `json:"runs"`
	Steps []Step   `json:"steps"`
	// Stall is what the runs' searches showed of the stall rule here.
	Stall Stall `json:"stall"`
}

// Stall is the record of the stall rule (search.stall_limit: a branch
// that went that many expansions without progress is pruned) on a site.
type Stall struct {
	// Reached counts the runs in a row, the latest, whose search reached
	// the boundary or the goal (a run that did not starts it over);
	// Longest is the most expansions without progress that a branch on
	// the way to it went, over those runs.
	Reached int `json:"reached"`
	Longest int `json:"longest"`
	// Pruned counts the branches the rule pruned, over every run.
	Pruned int `json:"pruned"`
}

// Step is one step as the runs that executed it measured it.
type Step struct {
	// Page is the page the step acted on (Page of its URL), "" for a
	// branch's first navigation.
	Page string `json:"page"`
	// Kind is the action's kind; Target its target (Target).
	Kind   string `json:"kind"`
	Target string `json:"target"`
	// MS are the latest durations in milliseconds, oldest first.
	MS []int64 `json:"ms"`
	// Runs counts the runs that executed the step; Last is the version
	// that last did.
	Runs int `json:"runs"`
	Last int `json:"last"`
	// Healed counts, by strategy, the runs in which the step's target was
	// not found by its first strategy and the healing cascade found it.
	Healed map[string]int `json:"healed,omitempty"`
}

func (s *Step) key() string { return s.Page + "\x00" + s.Kind + "\x00" + s.Target }

// Empty returns the snapshot of a site no run taught yet.
func Empty(site string) *Snapshot {
	return &Snapshot{Format: Format, Site: site, Runs: []string{}, Steps: []Step{}}
}

// Page is the form of a page's URL that steps are keyed by: the path,
// without query or fragment, with each path segment that holds a digit
// and no letter, or a long run of letters and digits (an order number, a
// ULID), written "*". Two orders' pages are one page.
func Page(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	segs := strings.Split(u.EscapedPath(), "/")
	for i, s := range segs {
		if volatileSegment(s) {
			segs[i] = "*"
		}
	}
	p := strings.Join(segs, "/")
	if p == "" {
		p = "/"
	}
	return p
}

func volatileSegment(s string) bool {
	var digits, letters int
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letters++
		}
	}
	return digits > 0 && (letters == 0 || len(s) >= 16)
}

// Target names what an action acts on: its target by the first strategy
// it carries (testid=continue, role=button "Pay", #seats), the page of a
// navigation's URL, or "" for an action without either.
func Target(a branch.Action) string {
	if a.Kind == branch.KindNavigate {
		return Page(a.URL)
	}
	return a.Target.Selector()
}

// Measured is one executed step of a run, to fold in.
type Measured struct {
	// Page is the URL of the page the step acted on ("" for a first
	// navigation).
	Page   string
	Action branch.Action
	MS     int64
	// Healed names the strategy that found a healed target ("" when the
	// step's first strategy found it).
	Healed string
}

// Run is what one run measured, to fold in.
type Run struct {
	ID    string
	Steps []Measured
	// Reached: the run's search reached the boundary or the goal, and
	// Longest is the most expansions without progress of a branch on the
	// way to it.
	Reached bool
	Longest int
	// StallPruned counts the branches the stall rule pruned.
	StallPruned int
	// Interrupted: the run was stopped (a person, its engine) before its
	// search ended, so whether it would have reached the boundary is
	// unknown: the stall calibration is left as it was.
	Interrupted bool
}

// Fold returns the next version of s with a run in. The run's steps of
// one key add one sample each, and count as one run. s is not changed.
func (s *Snapshot) Fold(run Run) *Snapshot {
	next := s.clone()
	next.Version++
	next.Runs = append(next.Runs, run.ID)
	if len(next.Runs) > MaxRuns {
		next.Runs = slices.Clone(next.Runs[len(next.Runs)-MaxRuns:])
	}
	next.Stall.Pruned += max(run.StallPruned, 0)
	switch {
	case run.Reached:
		next.Stall.Reached++
		next.Stall.Longest = max(next.Stall.Longest, run.Longest)
	case !run.Interrupted:
		// The site may now need longer ways than the record says: the
		// calibration starts over (a lowered stall limit could otherwise
		// never learn that).
		next.Stall.Reached, next.Stall.Longest = 0, 0
	}
	idx := map[string]int{}
	for i := range next.Steps {
		idx[next.Steps[i].key()] = i
	}
	seen := map[string]bool{}
	for _, m := range run.Steps {
		next.add(m, idx, seen)
	}
	next.bound()
	next.sort()
	return next
}

// add folds one measured step in: idx maps keys to steps, seen the keys
// this run already counted.
func (s *Snapshot) add(m Measured, idx map[string]int, seen map[string]bool) {
	st := Step{Page: Page(m.Page), Kind: string(m.Action.Kind), Target: Target(m.Action)}
	k := st.key()
	i, ok := idx[k]
	if !ok {
		s.Steps = append(s.Steps, st)
		i = len(s.Steps) - 1
		idx[k] = i
	}
	p := &s.Steps[i]
	p.MS = append(p.MS, max(m.MS, 0))
	if len(p.MS) > MaxSamples {
		p.MS = p.MS[len(p.MS)-MaxSamples:]
	}
	if !seen[k] {
		seen[k] = true
		p.Runs++
		p.Last = s.Version
	}
	if m.Healed != "" {
		if p.Healed == nil {
			p.Healed = map[string]int{}
		}
		p.Healed[m.Healed]++
	}
}

// bound drops the steps the longest unused beyond MaxSteps (then the
// fewest runs, then by key).
func (s *Snapshot) bound() {
	if len(s.Steps) <= MaxSteps {
		return
	}
	slices.SortStableFunc(s.Steps, func(a, b Step) int {
		return cmp.Or(cmp.Compare(b.Last, a.Last), cmp.Compare(b.Runs, a.Runs), cmp.Compare(a.key(), b.key()))
	})
	s.Steps = s.Steps[:MaxSteps]
}

func (s *Snapshot) sort() {
	slices.SortFunc(s.Steps, func(a, b Step) int { return cmp.Compare(a.key(), b.key()) })
}

func (s *Snapshot) clone() *Snapshot {
	c := *s
	c.Runs = slices.Clone(s.Runs)
	c.Steps = make([]Step, len(s.Steps))
	for i, st := range s.Steps {
		st.MS = slices.Clone(st.MS)
		if st.Healed != nil {
			h := make(map[string]int, len(st.Healed))
			for k, v := range st.Healed {
				h[k] = v
			}
			st.Healed = h
		}
		c.Steps[i] = st
	}
	return &c
}

// Encode is the snapshot's canonical JSON: steps sorted by page, kind and
// target, map keys sorted, indented, one trailing newline.
func (s *Snapshot) Encode() ([]byte, error) {
	c := s.clone()
	c.sort()
	if c.Runs == nil {
		c.Runs = []string{}
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("learn: encoding: %w", err)
	}
	return append(b, '\n'), nil
}

// Decode reads a snapshot from b, the content of name (named in errors).
func Decode(name string, b []byte) (*Snapshot, error) {
	var s Snapshot
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, name, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: %s: data after the snapshot", ErrInvalid, name)
	}
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if s.Runs == nil {
		s.Runs = []string{}
	}
	if s.Steps == nil {
		s.Steps = []Step{}
	}
	return &s, nil
}

func (s *Snapshot) validate() error {
	switch {
	case s.Format != Format:
		return fmt.Errorf("%w: format %d, this reader reads %d", ErrInvalid, s.Format, Format)
	case s.Site == "":
		return fmt.Errorf("%w: site: required", ErrInvalid)
	case s.Version < 0:
		return fmt.Errorf("%w: version: %d is negative", ErrInvalid, s.Version)
	case len(s.Runs) > MaxRuns:
		return fmt.Errorf("%w: runs: %d ids, at most %d", ErrInvalid, len(s.Runs), MaxRuns)
	case len(s.Steps) > MaxSteps:
		return fmt.Errorf("%w: steps: %d, at most %d", ErrInvalid, len(s.Steps), MaxSteps)
	case s.Stall.Reached < 0 || s.Stall.Longest < 0 || s.Stall.Pruned < 0:
		return fmt.Errorf("%w: stall: %+v: counts are not negative", ErrInvalid, s.Stall)
	case s.Stall.Reached > s.Version:
		return fmt.Errorf("%w: stall.reached: %d runs, more than the version %d", ErrInvalid, s.Stall.Reached, s.Version)
	}
	seen := map[string]bool{}
	for i, st := range s.Steps {
		if err := st.validate(s.Version); err != nil {
			return fmt.Errorf("%w: steps[%d].%v", ErrInvalid, i, err)
		}
		if seen[st.key()] {
			return fmt.Errorf("%w: steps[%d]: a second record of %s %s on %q", ErrInvalid, i, st.Kind, st.Target, st.Page)
		}
		seen[st.key()] = true
	}
	return nil
}

func (st *Step) validate(version int) error {
	switch {
	case st.Kind == "":
		return errors.New("kind: required")
	case len(st.MS) == 0 || len(st.MS) > MaxSamples:
		return fmt.Errorf("ms: %d samples, want 1 to %d", len(st.MS), MaxSamples)
	case st.Runs < 1:
		return fmt.Errorf("runs: %d, at least 1", st.Runs)
	case st.Last < 1 || st.Last > version:
		return fmt.Errorf("last: %d, want 1 to the version %d", st.Last, version)
	}
	for j, ms := range st.MS {
		if ms < 0 {
			return fmt.Errorf("ms[%d]: %d is negative", j, ms)
		}
	}
	for k, n := range st.Healed {
		if k == "" || n < 1 {
			return fmt.Errorf("healed: %q: %d", k, n)
		}
	}
	return nil
}
