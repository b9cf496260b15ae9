package planner

import (
	"slices"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

func widget(kind branch.ElementKind, name string, f func(*branch.Affordance)) branch.Affordance {
	a := branch.Affordance{Kind: kind, Target: branch.Target{Role: string(kind), Name: name, CSS: "#" + name}, Region: "main", Form: 0}
	if f != nil {
		f(&a)
	}
	return a
}

// TestSetAction: a set action for each control that takes one and a
// value in its format within its bounds; none for a value out of range,
// in another format, already held, or a control that takes clicks.
func TestSetAction(t *testing.T) {
	volume := widget("slider", "Volume", func(a *branch.Affordance) { a.Value, a.Min, a.Max = "50", "0", "100" })
	size := widget("slider", "Size", func(a *branch.Affordance) { a.Value, a.Min, a.Max, a.ValueText = "1", "0", "2", "Medium" })
	guests := widget("spinbutton", "Guests", func(a *branch.Affordance) { a.Value, a.Min, a.Max = "2", "1", "12" })
	rng := widget("slider", "Zoom", func(a *branch.Affordance) { a.InputType, a.Value, a.Min, a.Max, a.Step = "range", "5", "1", "10", "1" })
	date := widget("textbox", "Arrival", func(a *branch.Affordance) { a.InputType, a.Min = "date", "2020-01-01" })
	tm := widget("textbox", "Time", func(a *branch.Affordance) { a.InputType = "time" })
	picker := widget("textbox", "Check-in", func(a *branch.Affordance) { a.InputType = "text" })
	button := widget("button", "Book", nil)
	cases := []struct {
		a     branch.Affordance
		value string
		want  string // the set value, "" for none
	}{
		{volume, "40", "40"},
		{volume, "40%", "40"},
		{volume, "140", ""},
		{volume, "50", ""},
		{volume, "loud", ""},
		{size, "Large", "Large"},
		{size, "Medium", ""},
		{guests, "7", "7"},
		{guests, "0", ""},
		{rng, "8", "8"},
		{date, "2021-10-11", "2021-10-11"},
		{date, "10/11/2021", ""},
		{date, "2011-10-11", ""}, // before its min
		{tm, "20:04", "20:04"},
		{tm, "8pm", ""},
		{picker, "10/11/2011", "10/11/2011"},
		{picker, "October 11, 2011", "October 11, 2011"},
		{picker, "hello", ""},
		{button, "1", ""},
	}
	for _, c := range cases {
		act, ok := setAction(c.a, c.value)
		switch {
		case c.want == "" && ok:
			t.Errorf("%s %s %q: %+v, want no set action", c.a.Kind, c.a.Target.Name, c.value, act)
		case c.want != "" && (!ok || act.Kind != branch.KindSet || act.Value != c.want || act.Target == nil || act.Target.Name != c.a.Target.Name):
			t.Errorf("%s %s %q: %+v %v, want set %q", c.a.Kind, c.a.Target.Name, c.value, act, ok, c.want)
		}
		if ok {
			if err := act.Validate(); err != nil {
				t.Errorf("%s %q: %v", c.a.Target.Name, c.value, err)
			}
		}
	}
}

// TestProposeSet: the goal's numbers go to the sliders and spin buttons
// whose labels they stand by (or the only one of the kind it names), as
// set actions; a slider or spin button is never clicked.
func TestProposeSet(t *testing.T) {
	page := func(extra ...branch.Affordance) *branch.Observation {
		affs := []branch.Affordance{
			widget("slider", "Volume", func(a *branch.Affordance) { a.Value, a.Min, a.Max = "50", "0", "100" }),
			widget("spinbutton", "Guests", func(a *branch.Affordance) { a.Value, a.Min, a.Max = "2", "1", "12" }),
			widget("button", "Book", nil),
		}
		return &branch.Observation{URL: "http://site.test/", Affordances: append(affs, extra...)}
	}
	cases := []struct {
		goal string
		obs  *branch.Observation
		want []string
		not  []string
	}{
		{"Set the volume to 40, then click Book", page(), []string{"set Volume = 40"}, []string{"set Guests = 40"}},
		{"Book a room for 7 guests", page(), []string{"set Guests = 7"}, []string{"set Volume = 7"}},
		{"Turn the volume up to 75 and pick 3 guests", page(), []string{"set Volume = 75", "set Guests = 3"}, nil},
		{"Move the slider to 65", page(), []string{"set Volume = 65"}, nil},
		{"Move the slider to 65", page(widget("slider", "Bass", nil)), nil, []string{"set Volume = 65", "set Bass = 65"}},
		{"Set the volume to 400", page(), nil, []string{"set Volume = 400"}},
		{"Click Book", page(), nil, []string{"set Volume = 50"}},
	}
	for _, c := range cases {
		p, err := NewProposer(goalTask(t, c.goal, ""))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, cand := range p.Propose(c.obs, History{}) {
			got = append(got, describe(cand.Action))
			if cand.Action.Kind == branch.KindClick && (cand.Action.Target.Role == "slider" || cand.Action.Target.Role == "spinbutton") {
				t.Errorf("%q: clicks a %s: %s", c.goal, cand.Action.Target.Role, cand.Reason)
			}
		}
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: no %q among %q", c.goal, w, got)
			}
		}
		for _, n := range c.not {
			if slices.Contains(got, n) {
				t.Errorf("%q: %q among %q", c.goal, n, got)
			}
		}
	}
}

// TestProposeSetInput: a task input whose rule names a slider is set on
// it by name, never typed.
func TestProposeSetInput(t *testing.T) {
	p, err := NewProposer(goalTask(t, "Adjust the sound", "inputs:\n  level: {match: \"(?i)volume\", value: \"30\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	obs := &branch.Observation{URL: "http://site.test/", Affordances: []branch.Affordance{
		widget("slider", "Volume", func(a *branch.Affordance) { a.Value, a.Min, a.Max = "50", "0", "100" })}}
	var got []string
	for _, c := range p.Propose(obs, History{}) {
		got = append(got, describe(c.Action))
	}
	if !slices.Contains(got, "set Volume <- level") || slices.Contains(got, "type Volume <- level") {
		t.Errorf("proposals %q, want set Volume <- level and no typing", got)
	}
}
