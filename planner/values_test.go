package planner

import (
	"bufio"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// render writes a value as testdata/values.txt spells it.
func render(v Value) string {
	s := string(v.Kind) + "/" + string(v.Source) + " \"" + v.Text + "\" " + v.Norm
	if len(v.Cue) > 0 {
		s += " cue=" + strings.Join(v.Cue, ",")
	}
	if v.Case != "" {
		s += " case=" + v.Case
	}
	return s
}

// TestExtractValues reads testdata/values.txt: each goal and the values
// the reader must find in it, typed, normalized, with their cue words.
func TestExtractValues(t *testing.T) {
	f, err := os.Open("testdata/values.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type tc struct {
		goal string
		line int
		want []string
	}
	var cases []tc
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "> "):
			cases = append(cases, tc{goal: strings.TrimPrefix(line, "> "), line: n})
		case len(cases) == 0:
			t.Fatalf("testdata/values.txt:%d: a value before any goal", n)
		default:
			cases[len(cases)-1].want = append(cases[len(cases)-1].want, line)
		}
	}
	if len(cases) < 10 {
		t.Fatalf("testdata/values.txt holds %d cases", len(cases))
	}
	for _, c := range cases {
		var got []string
		for _, v := range ExtractValues(c.goal) {
			got = append(got, render(v))
			if c.goal[v.Start:v.End] != v.Text {
				t.Errorf("values.txt:%d: %q spans %d:%d, which holds %q", c.line, v.Text, v.Start, v.End, c.goal[v.Start:v.End])
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("values.txt:%d: %q\n got %q\nwant %q", c.line, c.goal, got, c.want)
		}
	}
}

// TestWritten: a value is written in the control's own format, or not at
// all where the control cannot take it.
func TestWritten(t *testing.T) {
	input := func(typ string) branch.Affordance {
		return branch.Affordance{Kind: "textbox", InputType: typ, Form: -1, Target: branch.Target{Name: "x"}}
	}
	sel := branch.Affordance{Kind: "select", Form: -1, Target: branch.Target{Name: "x"}, Options: []branch.Option{
		{Value: "", Text: "Choose"}, {Value: "bos", Text: "  boston "}, {Value: "d1", Text: "10/11/2011"}, {Value: "n", Text: "1000"}}}
	cases := []struct {
		goal string // the goal's first value is written
		into branch.Affordance
		want string // "" for refused
	}{
		{"on 10/11/2011", input("date"), "2011-10-11"},
		{"on October 11, 2011", input("date"), "2011-10-11"},
		{"on Oct 11", input("date"), ""}, // no year, no date input
		{"on Oct 11", input("text"), "Oct 11"},
		{"in October 2011", input("month"), "2011-10"},
		{"on 2011-10-11", input("month"), "2011-10"},
		{"on 2011-10-11", input("week"), "2011-W41"},
		{"at 8:04 PM", input("time"), "20:04"},
		{"at noon", input("time"), "12:00"},
		{"at 8:04 PM", input("date"), ""},
		{"for 1,000 people", input("number"), "1000"},
		{"for $12.50", input("range"), "12.50"},
		{"for Boston", input("number"), ""},
		{"mail jane@example.org", input("email"), "jane@example.org"},
		{"to Boston", input("email"), ""},
		{"call 555-123-4567", input("tel"), "555-123-4567"},
		{"visit https://example.org", input("url"), "https://example.org"},
		{"to Boston", input("text"), "Boston"},
		{"Book a hotel in Paris. Type it in lowercase.", input("search"), "paris"},
		{"to Boston", input("password"), ""},
		{"to BOSTON", sel, "bos"},
		{"on 2011-10-11", sel, "d1"},
		{"for 1,000", sel, "n"},
		{"to Denver", sel, ""},
	}
	for _, c := range cases {
		vs := ExtractValues(c.goal)
		if len(vs) == 0 {
			t.Errorf("%q: no value", c.goal)
			continue
		}
		got, ok := Written(c.into, vs[0])
		if !ok {
			got = ""
		}
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%q into %s %s: %q, %v; want %q", c.goal, c.into.Kind, c.into.InputType, got, ok, c.want)
		}
	}
}

// TestInFormat: a literal a goal step spells is written in a strict
// control's own format, or refused there.
func TestInFormat(t *testing.T) {
	tm := branch.Affordance{Kind: "textbox", InputType: "time"}
	dt := branch.Affordance{Kind: "textbox", InputType: "datetime-local"}
	tx := branch.Affordance{Kind: "textbox", InputType: "text"}
	for _, c := range []struct {
		a       branch.Affordance
		in, out string
		ok      bool
	}{
		{tm, "8:04 PM", "20:04", true},
		{tm, "soon", "", false},
		{dt, "10/11/2011 8:04 PM", "2011-10-11T20:04", true},
		{tx, "8:04 PM", "8:04 PM", true},
	} {
		got, ok := inFormat(c.a, c.in)
		if got != c.out || ok != c.ok {
			t.Errorf("inFormat(%s, %q) = %q, %v; want %q, %v", c.a.InputType, c.in, got, ok, c.out, c.ok)
		}
	}
}

// field builds a form field of a kind and input type, labelled name.
func field(kind branch.ElementKind, typ, name string, opts ...func(*branch.Affordance)) branch.Affordance {
	a := aff(kind, name, append([]func(*branch.Affordance){inForm(0)}, opts...)...)
	a.InputType = typ
	return a
}

func submitButton(name string) branch.Affordance {
	a := aff("button", name, inForm(0))
	a.Submit = true
	return a
}

// valueActions are the proposer's type and select candidates, best first,
// as "kind name = value prior".
func valueActions(cs []Candidate) []Candidate {
	var out []Candidate
	for _, c := range cs {
		if (c.Action.Kind == branch.KindType || c.Action.Kind == branch.KindSelect || c.Action.Kind == branch.KindSet) && c.Reason != restReason {
			out = append(out, c)
		}
	}
	return out
}

// TestProposerBindsStatedValues: values the goal states without quotes
// fill the fields whose labels their words name, in the control's format,
// one field per form at a time in page order; an uncertain binding
// branches.
func TestProposerBindsStatedValues(t *testing.T) {
	booking := func(from, to, date string) []branch.Affordance {
		return []branch.Affordance{
			field("textbox", "text", "From", value(from)),
			field("textbox", "text", "To", value(to)),
			field("textbox", "date", "Date", value(date)),
			submitButton("Search flights"),
		}
	}
	movies := []branch.Affordance{
		field("textbox", "text", "Title"),
		field("textbox", "text", "Director"),
		field("select", "", "Year", options("Any", "1994", "1995", "1996"), value("any")),
		submitButton("Find"),
	}
	cases := []struct {
		name, goal, inputs string
		page               []branch.Affordance
		want               []string // the value candidates, best first
	}{
		{"from, the first field", "Book a flight from Boston to Denver on 10/11/2011.", "",
			booking("", "", ""), []string{"type From = Boston"}},
		{"to, once from is filled", "Book a flight from: Boston to: Denver on 10/11/2011.", "",
			booking("Boston", "", ""), []string{"type To = Denver"}},
		{"an ambiguous date branches in both readings", "Book a flight from Boston to Denver on 10/11/2011.", "",
			booking("Boston", "Denver", ""), []string{"set Date = 2011-10-11", "set Date = 2011-11-10"}},
		{"the next field once the date is typed", "Book a flight from Boston to Denver on 10/11/2011 at 8:04 PM.", "",
			append(booking("Boston", "Denver", "2011-10-11"), field("textbox", "time", "Departure time")),
			[]string{"set Departure time = 20:04"}},
		{"labels named by synonyms", "Book a flight from Boston to Denver.", "",
			[]branch.Affordance{field("textbox", "text", "Destination"), field("textbox", "text", "Departure city")},
			[]string{"type Destination = Denver"}},
		{"directed by", "Find movies directed by Steven Spielberg", "",
			movies, []string{"type Director = Steven Spielberg"}},
		{"year", "Find movies from year 1995", "",
			movies, []string{"select Year = 1995"}},
		{"after the field's label", "Find the movie with the title Jaws", "",
			movies, []string{"type Title = Jaws"}},
		{"time input", "Wake me at 8:04 PM", "",
			[]branch.Affordance{field("textbox", "time", "Alarm")}, []string{"set Alarm = 20:04"}},
		{"e-mail to the email field", "Sign up with the e-mail jane@example.org", "",
			[]branch.Affordance{field("textbox", "text", "Name"), field("email", "email", "Your address")},
			[]string{"type Your address = jane@example.org"}},
		{"a value a filled field holds (scrubbed) is not guessed elsewhere", "Sign up with the e-mail jane@example.org", "",
			[]branch.Affordance{field("textbox", "text", "Name"), field("email", "email", "Email", value("[email-1]"))}, nil},
		{"a select offers the value", "Ship it to Germany", "",
			[]branch.Affordance{field("select", "", "Country", options("France", "Germany"), value("france"))},
			[]string{"select Country = germany"}},
		{"nothing names the field: a loose guess", "Find movies directed by Steven Spielberg", "",
			[]branch.Affordance{field("textbox", "text", "Keywords")}, []string{"type Keywords = Steven Spielberg"}},
		{"case instruction", "Book a hotel in Paris. Type the city name in lowercase.", "",
			[]branch.Affordance{field("textbox", "text", "City")}, []string{"type City = paris"}},
		{"two cities, two unnamed fields: branch", "Compare Boston and Denver", "",
			[]branch.Affordance{field("textbox", "text", "First"), field("textbox", "text", "Second")},
			[]string{"type First = Boston", "type First = Denver"}},
		{"a task input's field waits for the input", "Book a flight from Boston to Denver", "inputs:\n  origin: {value: BOS, match: '^From$'}\n",
			booking("", "", ""), []string{"type From <- origin"}},
		{"a step's field is the step's", `Enter "Denver" into the Destination field`, "",
			[]branch.Affordance{field("textbox", "text", "Origin"), field("textbox", "text", "Destination")},
			[]string{"type Destination = Denver"}},
		{"a step's time in the control's format", "Set the time to 8:04 PM", "",
			[]branch.Affordance{field("textbox", "time", "Time")}, []string{"set Time = 20:04"}},
		{"a button's name is no value", "Click the Submit button", "",
			[]branch.Affordance{field("textbox", "text", "Comment"), submitButton("Submit")}, nil},
		{"a value naming an element is no value", "Open Settings and press Save", "",
			[]branch.Affordance{field("textbox", "text", "Name"), aff("link", "Settings"), submitButton("Save")}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := NewProposer(goalTask(t, c.goal, c.inputs))
			if err != nil {
				t.Fatal(err)
			}
			cs := valueActions(p.Propose(&branch.Observation{URL: "http://site.test/", Affordances: c.page}, History{}))
			var got []string
			for _, c := range cs {
				got = append(got, describe(c.Action))
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("value candidates %q, want %q\n%+v", got, c.want, cs)
			}
			if c.name == "nothing names the field: a loose guess" && cs[0].Prior != defaults.ValueLoosePrior {
				t.Errorf("prior %.3f, want the loose %.3f", cs[0].Prior, defaults.ValueLoosePrior)
			}
			for i := 1; i < len(cs); i++ {
				if cs[i].Prior >= cs[i-1].Prior {
					t.Errorf("candidate %d prior %.3f, not below %.3f", i, cs[i].Prior, cs[i-1].Prior)
				}
			}
		})
	}
}

// TestBoundFormWaits: while a value binds clearly to a field of a form,
// its submit button waits below the fill.
func TestBoundFormWaits(t *testing.T) {
	p, err := NewProposer(goalTask(t, "Find movies directed by Steven Spielberg", ""))
	if err != nil {
		t.Fatal(err)
	}
	page := []branch.Affordance{field("textbox", "text", "Director"), submitButton("Find")}
	cs := p.Propose(&branch.Observation{URL: "http://site.test/", Affordances: page}, History{})
	if len(cs) < 2 || cs[0].Action.Kind != branch.KindType || cs[0].Prior != defaults.ValueSurePrior {
		t.Fatalf("candidates %+v: want the Director fill first at %.2f", cs, defaults.ValueSurePrior)
	}
	for _, c := range cs[1:] {
		if c.Action.Kind == branch.KindClick && c.Prior >= cs[0].Prior {
			t.Errorf("%s at %.3f: the submit does not wait for the field", describe(c.Action), c.Prior)
		}
	}
}

// FuzzParseGoal: the goal reader never panics; every stated value is a
// span of the text (or a conversion of one) and reading twice gives the
// same goal.
func FuzzParseGoal(f *testing.F) {
	for _, s := range []string{
		"book a flight from: Boston to: Denver on 10/11/2011",
		"Find movies directed by Steven Spielberg from year 1995",
		"set the time to 8:04 PM", "enter the e-mail jane@example.org",
		"Book a hotel in Paris. Type the city name in lowercase.",
		`Enter "hunter 2" into the password field and submit`, "Pay $1,250.50 to Rio de Janeiro Bank",
		"Call (555) 123-4567, then visit https://example.org/a?b=1.", "„Straße“ 「送信」 ‘x’ «y»",
		"on 31/02/2011 at 25:00 in October 2011", ":::", "in in lowercase", "\"", "x: \"", "11.10.11 Oct 1st",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		g := ParseGoal(text)
		if again := ParseGoal(text); !reflect.DeepEqual(g, again) {
			t.Fatalf("%q read twice differs", text)
		}
		for _, v := range g.Stated {
			if v.Start < 0 || v.End > len(text) || v.Start > v.End || text[v.Start:v.End] != v.Text {
				t.Fatalf("%q: value %+v is not a span of the text", text, v)
			}
			if v.Kind == "" || v.Source == "" || v.Norm == "" && v.Text != "" {
				t.Fatalf("%q: value %+v is not well formed", text, v)
			}
			for _, typ := range []string{"date", "time", "month", "week", "number", "email", "tel", "url", "text", "datetime-local"} {
				a := branch.Affordance{Kind: "textbox", InputType: typ}
				if w, ok := Written(a, v); ok && w == "" && v.Text != "" {
					t.Fatalf("%q: %+v written into %s as nothing", text, v, typ)
				}
			}
		}
		for _, st := range g.Steps {
			if st.Verb == "" {
				t.Fatalf("%q: a step without a verb: %+v", text, st)
			}
		}
	})
}
