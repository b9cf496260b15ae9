package act

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// DefaultScroll is how far a scroll action scrolls, in CSS pixels, when
// its value is not a number or is 0.
const DefaultScroll = 600

// Resolver returns the value of a task input by name. The worker resolves
// inputs locally, so secrets never travel in plans.
type Resolver func(name string) (string, error)

// Result is what Do reports of an action besides its error.
type Result struct {
	// Strategy names the strategy that resolved the target, as
	// Page.Resolve said it ("healed:" prefix included). It is set once
	// the target resolved, also when the element action then failed,
	// and empty for a page-level action.
	Strategy string
	// Via says how a set action set its value (Element.Set), the task
	// input's value replaced by "{input NAME}"; empty for other kinds.
	Via string
}

// Do executes action a on page p with the vocabulary of branch.Action:
//
//   - the value is a.Value, or the value inputs gives for a.Input
//     (input_missing when inputs is nil or fails); the redacted
//     placeholder is refused (redacted_value);
//   - navigate loads a.URL; scroll scrolls by the value in pixels
//     (DefaultScroll when it does not parse or is 0); eval runs the
//     value; key_press without a target presses the value on the page;
//     wait_for without a target waits the value as a duration
//     (unsupported_action_type when it does not parse);
//   - an unknown kind, or a kind that needs a target without one, is
//     unsupported_action_type;
//   - otherwise the target is resolved and click, type (fill), select,
//     check (checked unless the value is "false"), focus, hover,
//     key_press, set or wait_for (visible) is done on the element.
//
// The errors Do decides are *Error; a Page's or Element's error is
// returned unchanged. Do does not wait for the page to settle after the
// action: that is the runtime's business.
func Do(ctx context.Context, p Page, a branch.Action, inputs Resolver) (Result, error) {
	value, err := valueOf(a, inputs)
	if err != nil {
		return Result{}, err
	}
	if err := selectTab(ctx, p, a.Tab); err != nil {
		return Result{}, err
	}
	if done, err := onPage(ctx, p, a, value); done {
		return Result{}, err
	}
	if !branch.KnownKind(a.Kind) {
		return Result{}, &Error{Code: branch.CodeUnsupported, Msg: "unknown action kind " + a.Kind}
	}
	if a.Target == nil {
		return Result{}, &Error{Code: branch.CodeUnsupported, Msg: a.Kind + " needs a target"}
	}
	el, strategy, err := p.Resolve(ctx, a.Target)
	if err != nil {
		return Result{}, err
	}
	if r, ok := p.(InputRecorder); ok && a.Input != "" {
		r.RecordInput(a.Input, a.Target, value)
	}
	res := Result{Strategy: strategy}
	if a.Kind == branch.KindSet {
		res.Via, err = el.Set(ctx, value)
		if a.Input != "" && value != "" {
			// The via names the input, never its value.
			res.Via = strings.ReplaceAll(res.Via, value, "{input "+a.Input+"}")
		}
		return res, err
	}
	return res, onElement(ctx, el, a.Kind, value)
}

// valueOf returns the value a acts with: its literal value or its task
// input's, never the redacted placeholder.
func valueOf(a branch.Action, inputs Resolver) (string, error) {
	value := a.Value
	if a.Input != "" {
		if inputs == nil {
			return "", &Error{Code: branch.CodeInputMissing, Msg: "input " + a.Input + " is not available"}
		}
		v, err := inputs(a.Input)
		if err != nil {
			return "", &Error{Code: branch.CodeInputMissing, Msg: err.Error()}
		}
		value = v
	}
	if value == branch.RedactedPlaceholder {
		return "", &Error{Code: branch.CodeRedactedValue, Msg: "refusing to type a redacted placeholder"}
	}
	return value, nil
}

// onPage executes a page-level action and reports whether a was one.
func onPage(ctx context.Context, p Page, a branch.Action, value string) (bool, error) {
	switch {
	case a.Kind == branch.KindNavigate:
		return true, p.Navigate(ctx, a.URL)
	case a.Kind == branch.KindScroll:
		dy, _ := strconv.ParseFloat(value, 64)
		if dy == 0 {
			dy = DefaultScroll
		}
		return true, p.Scroll(ctx, dy)
	case a.Kind == branch.KindEval:
		return true, p.Eval(ctx, value)
	case a.Kind == branch.KindKeyPress && a.Target == nil:
		return true, p.Press(ctx, value)
	case a.Kind == branch.KindWaitFor && a.Target == nil:
		d, err := time.ParseDuration(value)
		if err != nil {
			return true, &Error{Code: branch.CodeUnsupported, Msg: "wait_for needs a target or a duration"}
		}
		return true, p.Wait(ctx, d)
	}
	return false, nil
}

// onElement executes an action with a target (other than set) on the
// element it resolved to.
func onElement(ctx context.Context, el Element, kind, value string) error {
	switch kind {
	case branch.KindClick:
		return el.Click(ctx)
	case branch.KindType:
		return el.Fill(ctx, value)
	case branch.KindSelect:
		return el.Select(ctx, value)
	case branch.KindCheck:
		return el.SetChecked(ctx, value != "false")
	case branch.KindFocus:
		return el.Focus(ctx)
	case branch.KindHover:
		return el.Hover(ctx)
	case branch.KindKeyPress:
		return el.Press(ctx, value)
	case branch.KindWaitFor:
		return el.WaitVisible(ctx)
	}
	return &Error{Code: branch.CodeUnsupported, Msg: "unknown action kind " + kind}
}

// selectTab makes tab the page's current tab when the action names one.
func selectTab(ctx context.Context, p Page, tab *int) error {
	if tab == nil {
		return nil
	}
	if t, ok := p.(Tabs); ok {
		return t.SelectTab(ctx, *tab)
	}
	if *tab != 0 {
		return &Error{Code: branch.CodeNoSuchTab, Msg: "tab " + strconv.Itoa(*tab) + ": the page has one tab, 0"}
	}
	return nil
}
