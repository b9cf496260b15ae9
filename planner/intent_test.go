package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// aff builds an affordance of a kind with a name, in the main region.
func aff(kind branch.ElementKind, name string, opts ...func(*branch.Affordance)) branch.Affordance {
	css := "#" + strings.NewReplacer(" ", "_", "#", "n").Replace(string(kind)+"-"+name)
	a := branch.Affordance{Kind: kind, Region: "main", Form: -1, Target: branch.Target{Name: name, CSS: css}}
	if kind == "button" || kind == "link" || kind == "tab" || kind == "clickable" {
		a.Target.Text = name
	}
	for _, o := range opts {
		o(&a)
	}
	return a
}

func checked(a *branch.Affordance)            { a.Checked = true }
func inForm(i int) func(*branch.Affordance)   { return func(a *branch.Affordance) { a.Form = i } }
func near(s string) func(*branch.Affordance)  { return func(a *branch.Affordance) { a.Target.Near = s } }
func value(s string) func(*branch.Affordance) { return func(a *branch.Affordance) { a.Value = s } }
func holds(s string) func(*branch.Affordance) { return func(a *branch.Affordance) { a.Holds = s } }
func options(o ...string) func(*branch.Affordance) {
	return func(a *branch.Affordance) {
		for _, x := range o {
			a.Options = append(a.Options, branch.Option{Value: strings.ToLower(x), Text: x})
		}
	}
}

func goalTask(t *testing.T, goal, inputs string) *task.Task {
	t.Helper()
	src := fmt.Sprintf("start_url: http://site.test/\nseed: 1\ngoal:\n  text: %q\n  success:\n    - {name: done, url_matches: /done}\n%s"+
		"budgets: {total_branches: 10, steps_per_branch: 5}\ncommit:\n  boundary: {url_matches: /review}\n  intent: {total: '#total'}\n"+
		"  action: {click: {role: button, name: Place order}}\n  idempotency: {form_field: '#ref'}\n  guard: [{method: POST, url: /orders}]\n"+
		"  confirm: {success: {url_matches: /done}, token: '#id'}\n", goal, inputs)
	tk, err := task.Parse("goal.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func describe(a branch.Action) string {
	s := a.Kind + " " + a.Target.Name
	switch {
	case a.Input != "":
		s += " <- " + a.Input
	case a.Value != "":
		s += " = " + a.Value
	}
	return s
}

// TestProposerFollowsTheGoal: the verb phrases of the goal choose the
// element (by name of any length, exact over partial, or by ordinal) and
// the action (click, check, uncheck, focus, type, select) on any kind of
// affordance.
func TestProposerFollowsTheGoal(t *testing.T) {
	tabs := func() []branch.Affordance {
		var out []branch.Affordance
		for _, n := range []int{1, 2, 13, 3, 31} {
			out = append(out, aff("tab", fmt.Sprintf("Tab #%d", n)))
		}
		return out
	}
	cases := []struct {
		name, goal, inputs string
		page               []branch.Affordance
		want               string
	}{
		{"tab by one-character number", "Switch to Tab #3.", "", tabs(), "click Tab #3"},
		{"span inside text", "Click on feugiat.", "",
			[]branch.Affordance{aff("link", "Lorem"), aff("clickable", "ipsum feugiat"), aff("clickable", "feugiat"), aff("button", "Cancel")}, "click feugiat"},
		{"checkbox by label then submit", "Select GDKkQ and click Submit", "",
			[]branch.Affordance{aff("checkbox", "gdkkq2"), aff("checkbox", "GDKkQ"), aff("checkbox", "xYz"), aff("button", "Submit")}, "check GDKkQ = true"},
		{"checked box leaves the submit", "Select GDKkQ and click Submit", "",
			[]branch.Affordance{aff("checkbox", "GDKkQ", checked), aff("checkbox", "xYz"), aff("button", "Submit")}, "click Submit"},
		{"OK is a submit", "Check the last checkbox, then press OK", "",
			[]branch.Affordance{aff("checkbox", "a", checked), aff("checkbox", "b", checked), aff("checkbox", "c"), aff("button", "Cancel"), aff("button", "OK")}, "check c = true"},
		{"uncheck", "Untick Newsletter", "",
			[]branch.Affordance{aff("checkbox", "Terms", checked), aff("checkbox", "Newsletter", checked)}, "check Newsletter = false"},
		{"radio", "Choose Medium and submit", "",
			[]branch.Affordance{aff("radio", "Small", checked), aff("radio", "Medium"), aff("radio", "Medium rare"), aff("button", "Submit")}, "check Medium = true"},
		{"second text box", "Focus the 2nd text box", "",
			[]branch.Affordance{aff("button", "Go"), aff("textbox", "First"), aff("checkbox", "x"), aff("textarea", "Second"), aff("textbox", "Third")}, "focus Second"},
		{"last link", "Click the last link", "",
			[]branch.Affordance{aff("link", "a"), aff("button", "b"), aff("link", "c"), aff("button", "d")}, "click c"},
		{"quoted value into a named field", `Enter "Ünïcode 7" into the city field`, "",
			[]branch.Affordance{aff("textbox", "Name"), aff("textbox", "City"), aff("button", "Save")}, "type City = Ünïcode 7"},
		{"one value fills the second field", `Type "s3cret" into both fields and press Enter`, "",
			[]branch.Affordance{aff("textbox", "Password", value("s3cret")), aff("textbox", "Confirm", value("")), aff("button", "Enter")}, "type Confirm = s3cret"},
		{"an input the goal refers to fills both", "Enter the password into both fields", "inputs:\n  password: {match: '(?i)pass', secret_env: PW}\n",
			[]branch.Affordance{aff("textbox", "Password", holds("password")), aff("textbox", "Retype it"), aff("button", "Log in")}, "type Retype it <- password"},
		{"option of a select", "Select Blue from the list and submit", "",
			[]branch.Affordance{aff("select", "Colour", options("Red", "Blue", "Blueish")), aff("button", "Submit")}, "select Colour = blue"},
		{"tree node", "Expand the folder Documents", "",
			[]branch.Affordance{aff("treeitem", "Desktop"), aff("treeitem", "Documents"), aff("treeitem", "Downloads")}, "click Documents"},
		{"button by its name, not the word button", "Click the OK button", "",
			[]branch.Affordance{aff("button", "Cancel"), aff("button", "OK"), aff("link", "OK computer")}, "click OK"},
		{"dialog closed by the named button", "Close the dialog by clicking Dismiss", "",
			[]branch.Affordance{aff("button", "Close"), aff("button", "Dismiss")}, "click Dismiss"},
		{"nearby text names the element", "Click the link in the paragraph about tigers", "",
			[]branch.Affordance{aff("clickable", "here", near("Lions live in Africa; read more here")), aff("clickable", "there", near("Tigers live in Asia; read more there"))}, "click there"},
		{"a date is one value", "Enter 04/05/2016 as the date in the input field and press OK.", "",
			[]branch.Affordance{aff("textbox", "Date"), aff("button", "OK")}, "type Date = 04/05/2016"},
		{"a filled form goes on with its button", `Search for "fugiat" and click the result Xy fugiat.`, "",
			[]branch.Affordance{aff("search", "Query", value("fugiat"), inForm(0)), aff("button", "Go", inForm(0)), aff("link", "Help")}, "click Go"},
		{"a field named by what looks like an ordinal", `Enter the first name "Nunc", press Next, enter the last name "Cillum" and press Send.`, "",
			[]branch.Affordance{aff("textbox", "Last name"), aff("button", "Send")}, "type Last name = Cillum"},
		{"the words before the value name its field", `Enter the username "vtg" and the password "s3cret" into the text fields and press Login.`, "",
			[]branch.Affordance{aff("textbox", "Login", value("vtg")), aff("textbox", "Password"), aff("button", "Login")}, "type Password = s3cret"},
		{"a field nothing names takes the value meant for it", `Enter the username "vtg" and the password "s3cret" into the text fields and press Login.`, "",
			[]branch.Affordance{aff("textbox", "Login", inForm(0)), aff("textbox", "Password", value("s3cret"), inForm(0)), aff("button", "Login", inForm(0))}, "type Login = vtg"},
		{"what the goal names is further on", "Find cupidatat in the list and click it.", "",
			[]branch.Affordance{aff("link", "amet"), aff("link", "orci"), aff("button", "Next page"), aff("link", "About")}, "click Next page"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := NewProposer(goalTask(t, c.goal, c.inputs))
			if err != nil {
				t.Fatal(err)
			}
			cands := p.Propose(&branch.Observation{URL: "http://site.test/", Affordances: c.page}, History{})
			if len(cands) == 0 {
				t.Fatal("no candidates")
			}
			if got := describe(cands[0].Action); got != c.want {
				var all []string
				for _, c := range cands {
					all = append(all, fmt.Sprintf("%s (%.2f)", describe(c.Action), c.Prior))
				}
				t.Fatalf("best = %q, want %q; all: %s", got, c.want, strings.Join(all, "; "))
			}
		})
	}
}

// TestProposerTiesByGoalThenDocumentOrder: equal priors go to the element
// holding more goal words, then to the first on the page, whatever the
// canonical form says.
func TestProposerTiesByGoalThenDocumentOrder(t *testing.T) {
	p, err := NewProposer(goalTask(t, "Read the note about x", ""))
	if err != nil {
		t.Fatal(err)
	}
	page := []branch.Affordance{aff("clickable", "zeta"), aff("clickable", "alpha"), aff("clickable", "x"), aff("clickable", "beta")}
	var got []string
	for _, c := range p.Propose(&branch.Observation{URL: "http://site.test/", Affordances: page}, History{}) {
		got = append(got, c.Action.Target.Name)
	}
	if want := "x zeta alpha beta"; strings.Join(got, " ") != want {
		t.Fatalf("order %q, want %q", got, want)
	}
}

// TestNoopsAreNotProposedAgain: an action that left the page as it was is
// not proposed again on that state.
func TestNoopsAreNotProposedAgain(t *testing.T) {
	page := []branch.Affordance{aff("clickable", "x"), aff("clickable", "y")}
	obs := func(dom string) *Outcome { return &Outcome{OK: true, Obs: &branch.Observation{DOMHash: dom}} }
	click := branch.Action{Kind: branch.KindClick, Target: targetOf(page[0]), Label: "any label"}
	other := branch.Action{Kind: branch.KindClick, Target: targetOf(page[1])}
	root := &Node{Plan: branch.Plan{{Kind: branch.KindNavigate, URL: "http://site.test/"}}, Outcome: obs("a")}
	moved := &Node{Parent: root, Plan: root.Plan.Extend(other), Outcome: obs("b")}
	same := &Node{Parent: moved, Plan: moved.Plan.Extend(click), Outcome: obs("b")}
	done := noops(same)
	if !done[string(branch.Plan{click}.Canonical())] || done[string(branch.Plan{other}.Canonical())] || len(done) != 1 {
		t.Fatalf("noops = %v", done)
	}
	if noops(moved) != nil {
		t.Fatal("an action that changed the page counted as a no-op")
	}
	p, err := NewProposer(goalTask(t, "Click x", ""))
	if err != nil {
		t.Fatal(err)
	}
	cands := p.Propose(&branch.Observation{URL: "http://site.test/", Affordances: page}, History{})
	if len(cands) == 0 || cands[0].Action.Target.Name != "x" {
		t.Fatalf("without history the goal's click is not first: %+v", cands)
	}
	for _, c := range p.Propose(&branch.Observation{URL: "http://site.test/", Affordances: page}, History{Done: done}) {
		if c.Action.Target.Name == "x" {
			t.Fatalf("the no-op click was proposed again: %+v", c)
		}
	}
}

// TestOnwardControlsClearTheFloor: a pager when nothing the goal names is
// on the page, and the button of a form whose text fields all hold a
// value, are proposed above the fork floor (MinPrior), so a search forks
// them after its first expansion too; a pager is not lifted when the goal's
// target is on the page.
func TestOnwardControlsClearTheFloor(t *testing.T) {
	prior := func(goal string, page []branch.Affordance, name string) float64 {
		t.Helper()
		p, err := NewProposer(goalTask(t, goal, ""))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range p.Propose(&branch.Observation{URL: "http://site.test/", Affordances: page}, History{}) {
			if c.Action.Target != nil && c.Action.Target.Name == name && c.Action.Kind == branch.KindClick {
				return c.Prior
			}
		}
		t.Fatalf("%q: no click on %s", goal, name)
		return 0
	}
	list := []branch.Affordance{aff("link", "amet"), aff("link", "orci"), aff("button", "Next")}
	if got := prior("Find cupidatat in the list and click it.", list, "Next"); got < defaults.MinPrior {
		t.Errorf("pager prior %.3f is below the floor %.2f", got, defaults.MinPrior)
	}
	if got := prior("Find orci in the list and click it.", list, "Next"); got >= defaults.MinPrior {
		t.Errorf("pager prior %.3f with the named item on the page, want below %.2f", got, defaults.MinPrior)
	}
	form := []branch.Affordance{aff("search", "Query", value("fugiat"), inForm(0)), aff("button", "Go", inForm(0))}
	if got := prior(`Search for "fugiat" and click the result Xy fugiat.`, form, "Go"); got < defaults.MinPrior {
		t.Errorf("filled form's button prior %.3f is below the floor %.2f", got, defaults.MinPrior)
	}
}

// TestLoginLinksWithCredentials: a login link ranks below a neutral one
// for a task that cannot log in, and not below it for a task that can.
func TestLoginLinksWithCredentials(t *testing.T) {
	page := []branch.Affordance{aff("link", "Login"), aff("link", "Products")}
	priorOf := func(inputs string) map[string]float64 {
		p, err := NewProposer(goalTask(t, "Buy the Team plan", inputs))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, c := range p.Propose(&branch.Observation{URL: "http://site.test/", Affordances: page}, History{}) {
			out[c.Action.Target.Name] = c.Prior
		}
		return out
	}
	without := priorOf("")
	if without["Login"] >= without["Products"] {
		t.Errorf("without credentials: Log in %.3f, Products %.3f; want the login link lower", without["Login"], without["Products"])
	}
	with := priorOf("inputs:\n  password: {secret_env: SHOP_PASSWORD}\n")
	if with["Login"] < with["Products"] {
		t.Errorf("with a password: Log in %.3f, Products %.3f; want the login link not lower", with["Login"], with["Products"])
	}
}

// TestEarlierPhrasesFirst: a phrase with something to do on the page
// keeps later phrases below it however well they are named; "set X to V"
// types V; a custom dropdown opens, its option is chosen, and a combobox
// that shows the option needs nothing more.
func TestEarlierPhrasesFirst(t *testing.T) {
	cases := []struct {
		name, goal string
		page       []branch.Affordance
		want       string
	}{
		{"set before apply", "Set the quantity of Eiusmod to 3 and click Apply.",
			[]branch.Affordance{aff("number", "Quantity", value("1")), aff("button", "Apply")}, "type Quantity = 3"},
		{"open the dropdown first", "Choose yry from the size dropdown and press Confirm.",
			[]branch.Affordance{aff("combobox", "Size"), aff("button", "Confirm")}, "click Size"},
		{"then its option", "Choose yry from the size dropdown and press Confirm.",
			[]branch.Affordance{aff("combobox", "Size"), aff("option", "abc"), aff("option", "yry"), aff("button", "Confirm")}, "click yry"},
		{"then confirm", "Choose yry from the size dropdown and press Confirm.",
			[]branch.Affordance{aff("combobox", "Size", value("yry")), aff("button", "Confirm")}, "click Confirm"},
		{"turn off", "Turn off Notifications and click Apply.",
			[]branch.Affordance{aff("switch", "Sync", checked), aff("switch", "Notifications", checked), aff("button", "Apply")}, "check Notifications = false"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := NewProposer(goalTask(t, c.goal, ""))
			if err != nil {
				t.Fatal(err)
			}
			cands := p.Propose(&branch.Observation{URL: "http://site.test/", Affordances: c.page}, History{})
			if len(cands) == 0 || describe(cands[0].Action) != c.want {
				var all []string
				for _, c := range cands {
					all = append(all, fmt.Sprintf("%s (%.2f)", describe(c.Action), c.Prior))
				}
				t.Fatalf("want %q first; got %s", c.want, strings.Join(all, "; "))
			}
		})
	}
}

// TestHoverMenuCandidates: a closed hover menu that hides what the goal
// names is pointed at first; one the goal names only by its label comes
// next; others are a look around.
func TestHoverMenuCandidates(t *testing.T) {
	menu := func(name string, reveals ...string) branch.Affordance {
		return branch.Affordance{Kind: "menu", Form: -1, Region: "nav", Hover: true, Reveals: reveals,
			Target: branch.Target{Name: name, CSS: "#" + name}}
	}
	obs := &branch.Observation{URL: "http://x.test/", Affordances: []branch.Affordance{
		menu("Company", "Careers", "Press"), menu("Account", "Billing", "Privacy"), menu("Help", "Guides")}}
	p, err := NewProposer(&task.Task{Goal: task.Goal{Text: "Open Privacy from the Account menu."}})
	if err != nil {
		t.Fatal(err)
	}
	cs := p.Propose(obs, History{})
	if len(cs) != 3 {
		t.Fatalf("%d candidates, want a hover per menu: %+v", len(cs), cs)
	}
	want := []struct {
		css   string
		prior float64
	}{{"#Account", defaults.HoverRevealPrior + defaults.HoverBothBonus}, {"#Company", defaults.HoverPrior}, {"#Help", defaults.HoverPrior}}
	for i, w := range want {
		c := cs[i]
		if c.Action.Kind != branch.KindHover || c.Action.Target.CSS != w.css || c.Prior != w.prior {
			t.Errorf("candidate %d: %s %s prior %.2f, want hover %s prior %.2f", i, c.Action.Kind, c.Action.Target.CSS, c.Prior, w.css, w.prior)
		}
	}
}
