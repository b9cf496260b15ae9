package task

import (
	"fmt"
	"strconv"

	"github.com/multiverse-orchestrator/multiverse/scoring"
)

// Selector engines: how the browser evaluates a selector of the task.
const (
	// EngineCSS is document.querySelector: predicates (visible, hidden,
	// text, value, count), intent fields, the confirmation token, the
	// idempotency form field and the CAS version are read this way, so
	// they take plain CSS.
	EngineCSS = "css"
	// EngineLocator is Playwright's locator engine: CSS plus its own
	// syntax (text=, role=, xpath=, :has-text(), >> chains). The commit
	// action's css target and the invoice selector are resolved this way.
	EngineLocator = "locator"
)

// Selector is a selector the task hands the browser, with where it is
// written.
type Selector struct {
	Field  string // dotted path: commit.confirm.token
	Line   int    // 1-based, 0 when unknown
	Value  string
	Engine string // EngineCSS or EngineLocator
}

// Selectors lists every selector of the task with the engine the browser
// evaluates it with, so they can be checked by the browser's own parser
// before any exploration starts.
func (t *Task) Selectors() []Selector {
	var out []Selector
	add := func(field, value, engine string) {
		if value != "" {
			out = append(out, Selector{Field: field, Line: lineOf(t.root, field), Value: value, Engine: engine})
		}
	}
	var pred func(path string, p *scoring.Predicate)
	pred = func(path string, p *scoring.Predicate) {
		add(path+".visible", p.Visible, EngineCSS)
		add(path+".hidden", p.Hidden, EngineCSS)
		if p.Text != nil {
			add(path+".text.selector", p.Text.Selector, EngineCSS)
		}
		if p.Value != nil {
			add(path+".value.selector", p.Value.Selector, EngineCSS)
		}
		if p.Count != nil {
			add(path+".count.selector", p.Count.Selector, EngineCSS)
		}
		for i := range p.All {
			pred(path+".all["+strconv.Itoa(i)+"]", &p.All[i])
		}
		for i := range p.Any {
			pred(path+".any["+strconv.Itoa(i)+"]", &p.Any[i])
		}
		if p.Not != nil {
			pred(path+".not", p.Not)
		}
	}
	for i := range t.Goal.Milestones {
		pred(fmt.Sprintf("goal.milestones[%d]", i), &t.Goal.Milestones[i])
	}
	for i := range t.Goal.Success {
		pred(fmt.Sprintf("goal.success[%d]", i), &t.Goal.Success[i])
	}
	for i := range t.Goal.Failure {
		pred(fmt.Sprintf("goal.failure[%d]", i), &t.Goal.Failure[i])
	}
	for _, f := range t.Extract {
		add("extract."+f.Name, f.Selector, EngineCSS)
	}
	if p := t.Auth.LoginPage; p != nil {
		pred("auth.login_page", p)
	}
	for i, a := range t.Auth.Login {
		if a.Target != nil {
			add(fmt.Sprintf("auth.login[%d].%s.css", i, a.Kind), a.Target.CSS, EngineLocator)
		}
	}
	c := t.Commit
	if c == nil {
		return out
	}
	pred("commit.boundary", &c.Boundary)
	for _, f := range c.Intent {
		add("commit.intent."+f.Name, f.Selector, EngineCSS)
	}
	for i := range c.Preconditions {
		pred(fmt.Sprintf("commit.preconditions[%d]", i), &c.Preconditions[i])
	}
	if a := c.Action; a.Target != nil {
		add("commit.action."+a.Kind+".css", a.Target.CSS, EngineLocator)
	}
	add("commit.idempotency.form_field", c.Idempotency.FormField, EngineCSS)
	pred("commit.confirm.success", &c.Confirm.Success)
	add("commit.confirm.token", c.Confirm.Token.Selector, EngineCSS)
	add("commit.confirm.invoice.selector", c.Confirm.Invoice.Selector, EngineLocator)
	if c.CAS != nil {
		add("commit.cas.selector", c.CAS.Selector, EngineCSS)
	}
	return out
}

// SelectorError is the task error for a selector the browser does not
// accept: file, line and field, and the browser's own message.
func (t *Task) SelectorError(s Selector, msg string) error {
	return &Error{File: t.file, Line: s.Line, Field: s.Field, Msg: fmt.Sprintf("%q is not a valid %s selector: %s", s.Value, engineName(s.Engine), msg)}
}

func engineName(engine string) string {
	if engine == EngineLocator {
		return "Playwright locator"
	}
	return "CSS"
}
