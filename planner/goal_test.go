package planner

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseGoal(t *testing.T) {
	cases := []struct {
		text  string
		steps []Step
		vals  []string
	}{
		{"Select GDKkQ and click Submit",
			[]Step{{Verb: VerbSelect, Target: []string{"gdkkq"}}, {Verb: VerbClick, Target: []string{"submit"}, Role: ""}}, nil},
		{"Click on Tab #3.",
			[]Step{{Verb: VerbClick, Target: []string{"tab", "3"}, Role: "tab"}}, []string{"3"}},
		{"Focus the 2nd text box",
			[]Step{{Verb: VerbFocus, Target: []string{"box"}, Ordinal: 2, OrdinalWord: "2nd", Role: "textbox"}}, nil},
		{"Check the last checkbox, then press OK",
			[]Step{{Verb: VerbCheck, Target: []string{"checkbox"}, Ordinal: -1, OrdinalWord: "last", Role: "checkbox"}, {Verb: VerbClick, Target: []string{"ok"}}}, nil},
		{`Enter "hunter 2" into the password field and submit`,
			[]Step{{Verb: VerbType, Value: "hunter 2", Target: []string{"password", "field"}, Role: "textbox"}, {Verb: VerbSubmit}}, []string{"hunter 2"}},
		{`Enter "Denver" into the To field`, // a capitalized preposition past the first word is a name
			[]Step{{Verb: VerbType, Value: "Denver", Target: []string{"to", "field"}, Role: "textbox"}}, []string{"Denver"}},
		{"Choose Format > Align > Left.", // a menu path: one step per entry, in order
			[]Step{{Verb: VerbSelect, Target: []string{"format"}}, {Verb: VerbSelect, Target: []string{"align"}}, {Verb: VerbSelect, Target: []string{"left"}}}, nil},
		{"Open File → Export → PDF", // a capitalized word alone names an entry, not a kind
			[]Step{{Verb: VerbOpen, Target: []string{"file"}}, {Verb: VerbOpen, Target: []string{"export"}}, {Verb: VerbOpen, Target: []string{"pdf"}}}, nil},
		{"Select Edit > Select > All", // entries named like a verb or an article
			[]Step{{Verb: VerbSelect, Target: []string{"edit"}}, {Verb: VerbSelect, Target: []string{"select"}}, {Verb: VerbSelect, Target: []string{"all"}}}, nil},
		{"Click Format, then Align, then Left",
			[]Step{{Verb: VerbClick, Target: []string{"format"}}, {Verb: VerbClick, Target: []string{"align"}}, {Verb: VerbClick, Target: []string{"left"}}}, nil},
		{`Enter "Do GmbH" as the company, then save.`, // a verb said alone names its button
			[]Step{{Verb: VerbType, Value: "Do GmbH", Target: []string{"company"}}, {Verb: VerbClick, Target: []string{"save"}}}, []string{"Do GmbH"}},
		{"Set the date to September 23, 2012 and the time to 5:50 pm, then press Save.", // a date's comma stops nothing; "set" goes on
			[]Step{{Verb: VerbType, Target: []string{"date"}, Value: "September 23 2012"}, {Verb: VerbType, Target: []string{"time"}, Value: "5:50 pm"},
				{Verb: VerbClick, Target: []string{"save"}}}, []string{"September 23 2012", "5:50 pm", "23", "2012"}},
		{"Type 42 in the Age box",
			[]Step{{Verb: VerbType, Value: "42", Target: []string{"age", "box"}, Role: "textbox"}}, []string{"42"}},
		{"Enter the password into both fields.",
			[]Step{{Verb: VerbType, Refers: []string{"password"}, Target: []string{"fields"}, Role: "textbox"}}, nil},
		{"Log in as 'jo' and open the third tab",
			[]Step{{Verb: VerbLogin, Target: []string{"jo"}}, {Verb: VerbOpen, Target: []string{"tab"}, Ordinal: 3, OrdinalWord: "third", Role: "tab"}}, []string{"jo"}},
		{"Wähle „Straße“ aus und klicke ÜBERNEHMEN", nil, []string{"Straße"}},
		{"Untick the first box", []Step{{Verb: VerbUncheck, Target: []string{"box"}, Ordinal: 1, OrdinalWord: "first", Role: "checkbox"}}, nil},
		{"Expand the section named Ｄｅｔａｉｌｓ",
			[]Step{{Verb: VerbExpand, Target: []string{"section", "details"}}}, nil},
		{"クリック 「送信」", nil, []string{"送信"}},
		{"Buy the Team plan for 10 seats", nil, []string{"10"}},
		{"Buy the Team plan for 10 seats with monthly billing for a company in Germany and keep the invoice.", nil, []string{"10"}},
		{"Select abc, Dx and xyz and click Submit.",
			[]Step{{Verb: VerbSelect, Target: []string{"abc"}}, {Verb: VerbSelect, Target: []string{"dx"}}, {Verb: VerbSelect, Target: []string{"xyz"}},
				{Verb: VerbClick, Target: []string{"submit"}}}, nil},
		{`Enter the username "jo" and the password "x y" and press Log in.`,
			[]Step{{Verb: VerbType, Value: "jo", Target: []string{"username"}}, {Verb: VerbType, Value: "x y", Target: []string{"password"}},
				{Verb: VerbClick, Target: []string{"log", "in"}}}, []string{"jo", "x y"}},
		{"Close the dialog by clicking Got it.", []Step{{Verb: VerbClick, Target: []string{"got", "it"}}}, nil},
		{"Select nothing, then click OK.", []Step{{Verb: VerbSelect, Target: []string{"nothing"}}, {Verb: VerbClick, Target: []string{"ok"}}}, nil},
		{`Enter the password "p4ss" into both fields and press Enter.`,
			[]Step{{Verb: VerbType, Value: "p4ss", Target: []string{"fields"}, Role: "textbox"}, {Verb: VerbClick, Target: []string{"enter"}, Key: "Enter"}}, []string{"p4ss"}},
		{"Hit the Escape key, then press Tab.", []Step{{Verb: VerbClick, Target: []string{"escape", "key"}, Key: "Escape"}, {Verb: VerbClick, Target: []string{"tab"}, Key: "Tab"}}, nil},
		{"Click the Return policy link.", []Step{{Verb: VerbClick, Target: []string{"return", "policy", "link"}, Role: "link"}}, nil},
	}
	for _, c := range cases {
		g := ParseGoal(c.text)
		for i := range g.Steps {
			g.Steps[i].At = 0 // TestGoalOrder tests where a phrase stands
		}
		if !reflect.DeepEqual(g.Steps, c.steps) {
			t.Errorf("%q: steps\n got %+v\nwant %+v", c.text, g.Steps, c.steps)
		}
		if !reflect.DeepEqual(g.Values(), c.vals) {
			t.Errorf("%q: values %q, want %q", c.text, g.Values(), c.vals)
		}
	}
}

func TestWordsFoldAnyScriptAndLength(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"Tab #3", []string{"tab", "3"}},
		{"STRASSE Straße", []string{"strasse", "strasse"}},
		{"Ｆｕｌｌ　ｗｉｄｔｈ", []string{"full", "width"}},
		{"Ὀδυσσεύς x", []string{"ὀδυσσεύσ", "x"}},
		{"日本語 a", []string{"日本語", "a"}},
		{"Cafe\u0301", []string{"café"}},
	}
	for _, c := range cases {
		if got := Words(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Words(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMatchExactOverPartial(t *testing.T) {
	cases := []struct {
		target []string
		text   string
		want   float64
	}{
		{[]string{"tab", "3"}, "Tab #3", 1},
		{[]string{"tab", "3"}, "Tab #2", 0.3375},
		{[]string{"tab", "3"}, "Tab #13", 0.3375},
		{[]string{"close"}, "Close dialog", 0.675},
		{[]string{"ok"}, "OK", 1},
		{[]string{"ok"}, "Okay then", 0.28125},
		{[]string{"submit"}, "Cancel", 0},
		{[]string{"gdkkq"}, "gdkkq", 1},
		{[]string{"recently", "changed"}, "Recent changes", 0.9}, // one word normalization
		{[]string{"add", "users"}, "Adding a user", 0.75},
		{[]string{"送信"}, "送信する", 0.3375},
		{nil, "x", 0},
		{[]string{"x"}, "", 0},
	}
	for _, c := range cases {
		if got := Match(c.target, c.text); got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("Match(%q, %q) = %v, want %v", c.target, c.text, got, c.want)
		}
	}
}

// TestGoalDatesSearchAndPronouns: a date or time is one literal, "as the
// date" is not part of the value but names the field, the words before a
// value name its field when the field after "into" is only a kind
// ("the text fields"), "search for X" types X, and "it" stands for the
// thing named before it.
func TestGoalDatesSearchAndPronouns(t *testing.T) {
	for _, tc := range []struct {
		text   string
		step   int
		verb   string
		value  string
		target string
		role   string
	}{
		{text: "Enter 04/05/2016 as the date in the input field and press OK.", step: 0, verb: VerbType, value: "04/05/2016", target: "date"},
		{text: "Type 10:30 into the time box.", step: 0, verb: VerbType, value: "10:30", target: "time box", role: "textbox"},
		{text: `Enter the username "vtg" and the password "s3" into the text fields and press Submit.`, step: 1, verb: VerbType, value: "s3", target: "password"},
		{text: `Search for "fugiat" and click the result Xy fugiat.`, step: 0, verb: VerbType, value: "fugiat"},
		{text: "Find lorem in the list and click it.", step: 0, verb: VerbClick, target: "lorem"},
		{text: "Wait for the QxT button to appear and click it.", step: 0, verb: VerbClick, target: "qxt", role: "button"},
	} {
		g := ParseGoal(tc.text)
		if len(g.Steps) <= tc.step {
			t.Errorf("%q: steps %+v", tc.text, g.Steps)
			continue
		}
		st := g.Steps[tc.step]
		if st.Verb != tc.verb || st.Value != tc.value || strings.Join(st.Target, " ") != tc.target || string(st.Role) != tc.role {
			t.Errorf("%q: step %d = %+v, want %s %q target %q role %q", tc.text, tc.step, st, tc.verb, tc.value, tc.target, tc.role)
		}
	}
}

// TestSetAndTurn: "set X to V" types V into X; "turn on/off X" checks or
// unchecks X.
func TestSetAndTurn(t *testing.T) {
	g := ParseGoal("Set the quantity of Eiusmod to 3 and click Apply.")
	if len(g.Steps) < 1 || g.Steps[0].Verb != VerbType || g.Steps[0].Value != "3" || strings.Join(g.Steps[0].Target, " ") != "quantity eiusmod" {
		t.Errorf("set: %+v", g.Steps)
	}
	for text, verb := range map[string]string{"Turn off Notifications and click Apply.": VerbUncheck, "Turn on Dark mode.": VerbCheck,
		"Enable Sync.": VerbCheck, "Switch off Location.": VerbUncheck} {
		g := ParseGoal(text)
		if len(g.Steps) < 1 || g.Steps[0].Verb != verb {
			t.Errorf("%q: %+v, want %s", text, g.Steps, verb)
		}
	}
}
