package learn

import (
	"slices"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Expect answers from a snapshot what a search may expect on the site:
// how long a step takes, and how long the ways to the boundary went
// without progress. It is read only and safe for concurrent use.
type Expect struct {
	stall   Stall
	byKey   map[string]float64
	slowest map[string]float64 // kind and target -> the largest on any page
	median  float64
}

// Expect returns what the snapshot leads a search to expect: each step's
// median sample as its duration, the median of those for a step no run
// measured, and the record of the stall rule.
func (s *Snapshot) Expect() *Expect {
	d := &Expect{stall: s.Stall, byKey: make(map[string]float64, len(s.Steps)), slowest: map[string]float64{}}
	meds := make([]float64, 0, len(s.Steps))
	for _, st := range s.Steps {
		m := median(st.MS)
		d.byKey[st.key()] = m
		k := st.Kind + "\x00" + st.Target
		d.slowest[k] = max(d.slowest[k], m)
		meds = append(meds, m)
	}
	d.median = medianF(meds)
	return d
}

// StepMS is the expected duration in milliseconds of a, acted on the page
// at the URL page: the median of its samples, measured true; for a step no
// run measured, the site's median step, measured false (0 when the
// snapshot holds no step).
func (d *Expect) StepMS(page string, a branch.Action) (ms float64, measured bool) {
	if d == nil {
		return 0, false
	}
	st := Step{Page: Page(page), Kind: string(a.Kind), Target: Target(a)}
	if m, ok := d.byKey[st.key()]; ok {
		return m, true
	}
	return d.median, false
}

// SlowestMS is the longest expected duration of a on any page a run
// measured it on, measured true; else the site's median step, false.
func (d *Expect) SlowestMS(a branch.Action) (ms float64, measured bool) {
	if d == nil {
		return 0, false
	}
	if m, ok := d.slowest[string(a.Kind)+"\x00"+Target(a)]; ok {
		return m, true
	}
	return d.median, false
}

// MedianMS is the median of the steps' expected durations (0 for none).
func (d *Expect) MedianMS() float64 {
	if d == nil {
		return 0
	}
	return d.median
}

func median(ms []int64) float64 {
	f := make([]float64, len(ms))
	for i, v := range ms {
		f[i] = float64(v)
	}
	return medianF(f)
}

func medianF(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// StallOnTheWay is the most expansions without progress a branch on the
// way to the boundary went, over the runs that reached it, and how many
// runs those are.
func (d *Expect) StallOnTheWay() (longest, runs int) {
	if d == nil {
		return 0, 0
	}
	return d.stall.Longest, d.stall.Reached
}
