package act_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/act"
	"github.com/multiverse-orchestrator/multiverse/branch"
)

// fakePage records every call as a line ("scroll 600", "click") and fails
// the operation named in fail with err.
type fakePage struct {
	calls    []string
	fail     string
	err      error
	strategy string
	via      string
}

var (
	_ act.Page          = (*fakePage)(nil)
	_ act.InputRecorder = (*fakePage)(nil)
	_ act.Element       = fakeElement{}
)

func (p *fakePage) op(line string) error {
	p.calls = append(p.calls, line)
	if name, _, _ := strings.Cut(line, " "); name == p.fail {
		return p.err
	}
	return nil
}

func (p *fakePage) Navigate(_ context.Context, url string) error { return p.op("navigate " + url) }
func (p *fakePage) Scroll(_ context.Context, dy float64) error {
	return p.op(fmt.Sprintf("scroll %g", dy))
}
func (p *fakePage) Eval(_ context.Context, script string) error { return p.op("eval " + script) }
func (p *fakePage) Press(_ context.Context, key string) error   { return p.op("press " + key) }
func (p *fakePage) Wait(_ context.Context, d time.Duration) error {
	return p.op("wait " + d.String())
}

func (p *fakePage) Resolve(_ context.Context, t *branch.Target) (act.Element, string, error) {
	if err := p.op("resolve " + t.Describe()); err != nil {
		return nil, "", err
	}
	return fakeElement{p}, p.strategy, nil
}

func (p *fakePage) RecordInput(name string, t *branch.Target, value string) {
	p.calls = append(p.calls, "input "+name+" at "+t.Describe()+" = "+value)
}

// fakeElement is the element a fakePage resolves: its calls go to the
// page's record.
type fakeElement struct{ p *fakePage }

func (e fakeElement) Click(context.Context) error { return e.p.op("click") }
func (e fakeElement) Fill(_ context.Context, text string) error {
	return e.p.op("fill " + text)
}
func (e fakeElement) Select(_ context.Context, value string) error {
	return e.p.op("select " + value)
}
func (e fakeElement) SetChecked(_ context.Context, checked bool) error {
	return e.p.op(fmt.Sprintf("checked %t", checked))
}
func (e fakeElement) Focus(context.Context) error { return e.p.op("focus") }
func (e fakeElement) Hover(context.Context) error { return e.p.op("hover") }
func (e fakeElement) Press(_ context.Context, key string) error {
	return e.p.op("key " + key)
}
func (e fakeElement) Set(_ context.Context, value string) (string, error) {
	return e.p.via, e.p.op("set " + value)
}
func (e fakeElement) WaitVisible(context.Context) error { return e.p.op("visible") }

// plainPage is a Page that records no inputs.
type plainPage struct{ act.Page }

var (
	errBoom  = errors.New("boom")
	target   = &branch.Target{ID: "qty"}
	tDesc    = target.Describe()
	inputsOf = func(m map[string]string) act.Resolver {
		return func(name string) (string, error) {
			v, ok := m[name]
			if !ok {
				return "", fmt.Errorf("the task has no input %q", name)
			}
			return v, nil
		}
	}
	seats = inputsOf(map[string]string{"seats": "10", "card": "4242 4242", "empty": "", "scrubbed": branch.RedactedPlaceholder})
)

func TestDo(t *testing.T) {
	for _, tc := range []struct {
		name     string
		a        branch.Action
		inputs   act.Resolver
		fail     string // the fake operation that fails with errBoom
		via      string // what the element's Set says
		calls    []string
		strategy string
		wantVia  string
		code     branch.Code // the *act.Error's code; "boom" for errBoom itself
		msg      string
	}{
		// Page-level actions.
		{name: "navigate", a: branch.Action{Kind: branch.KindNavigate, URL: "https://x.test/"}, calls: []string{"navigate https://x.test/"}},
		{name: "navigate fails", a: branch.Action{Kind: branch.KindNavigate, URL: "https://x.test/"}, fail: "navigate", calls: []string{"navigate https://x.test/"}, code: "boom"},
		{name: "scroll by value", a: branch.Action{Kind: branch.KindScroll, Value: "-250.5"}, calls: []string{"scroll -250.5"}},
		{name: "scroll without value", a: branch.Action{Kind: branch.KindScroll}, calls: []string{"scroll 600"}},
		{name: "scroll by zero", a: branch.Action{Kind: branch.KindScroll, Value: "0"}, calls: []string{"scroll 600"}},
		{name: "scroll by words", a: branch.Action{Kind: branch.KindScroll, Value: "down"}, calls: []string{"scroll 600"}},
		{name: "scroll by input", a: branch.Action{Kind: branch.KindScroll, Input: "seats"}, inputs: seats, calls: []string{"scroll 10"}},
		{name: "scroll fails", a: branch.Action{Kind: branch.KindScroll}, fail: "scroll", calls: []string{"scroll 600"}, code: "boom"},
		{name: "scroll ignores a target", a: branch.Action{Kind: branch.KindScroll, Target: target}, calls: []string{"scroll 600"}},
		{name: "eval", a: branch.Action{Kind: branch.KindEval, Value: "1+1"}, calls: []string{"eval 1+1"}},
		{name: "eval fails", a: branch.Action{Kind: branch.KindEval, Value: "x"}, fail: "eval", calls: []string{"eval x"}, code: "boom"},
		{name: "key press on the page", a: branch.Action{Kind: branch.KindKeyPress, Value: "Escape"}, calls: []string{"press Escape"}},
		{name: "key press on the page fails", a: branch.Action{Kind: branch.KindKeyPress, Value: "Escape"}, fail: "press", calls: []string{"press Escape"}, code: "boom"},
		{name: "wait a duration", a: branch.Action{Kind: branch.KindWaitFor, Value: "1500ms"}, calls: []string{"wait 1.5s"}},
		{name: "wait fails", a: branch.Action{Kind: branch.KindWaitFor, Value: "2s"}, fail: "wait", calls: []string{"wait 2s"}, code: "boom"},
		{name: "wait without duration", a: branch.Action{Kind: branch.KindWaitFor, Value: "soon"},
			code: branch.CodeUnsupported, msg: "wait_for needs a target or a duration"},
		{name: "wait without value", a: branch.Action{Kind: branch.KindWaitFor},
			code: branch.CodeUnsupported, msg: "wait_for needs a target or a duration"},

		// Actions on an element.
		{name: "click", a: branch.Action{Kind: branch.KindClick, Target: target}, calls: []string{"resolve " + tDesc, "click"}, strategy: "id"},
		{name: "type", a: branch.Action{Kind: branch.KindType, Target: target, Value: "hello"}, calls: []string{"resolve " + tDesc, "fill hello"}, strategy: "id"},
		{name: "type empty", a: branch.Action{Kind: branch.KindType, Target: target}, calls: []string{"resolve " + tDesc, "fill "}, strategy: "id"},
		{name: "select", a: branch.Action{Kind: branch.KindSelect, Target: target, Value: "Annual"}, calls: []string{"resolve " + tDesc, "select Annual"}, strategy: "id"},
		{name: "check", a: branch.Action{Kind: branch.KindCheck, Target: target, Value: "true"}, calls: []string{"resolve " + tDesc, "checked true"}, strategy: "id"},
		{name: "check without value", a: branch.Action{Kind: branch.KindCheck, Target: target}, calls: []string{"resolve " + tDesc, "checked true"}, strategy: "id"},
		{name: "check anything but false", a: branch.Action{Kind: branch.KindCheck, Target: target, Value: "no"}, calls: []string{"resolve " + tDesc, "checked true"}, strategy: "id"},
		{name: "uncheck", a: branch.Action{Kind: branch.KindCheck, Target: target, Value: "false"}, calls: []string{"resolve " + tDesc, "checked false"}, strategy: "id"},
		{name: "focus", a: branch.Action{Kind: branch.KindFocus, Target: target}, calls: []string{"resolve " + tDesc, "focus"}, strategy: "id"},
		{name: "hover", a: branch.Action{Kind: branch.KindHover, Target: target}, calls: []string{"resolve " + tDesc, "hover"}, strategy: "id"},
		{name: "key press on an element", a: branch.Action{Kind: branch.KindKeyPress, Target: target, Value: "Enter"}, calls: []string{"resolve " + tDesc, "key Enter"}, strategy: "id"},
		{name: "wait for an element", a: branch.Action{Kind: branch.KindWaitFor, Target: target, Value: "ignored"}, calls: []string{"resolve " + tDesc, "visible"}, strategy: "id"},
		{name: "set", a: branch.Action{Kind: branch.KindSet, Target: target, Value: "7"}, via: "keys ArrowRight×7", calls: []string{"resolve " + tDesc, "set 7"}, strategy: "id", wantVia: "keys ArrowRight×7"},
		{name: "set keeps a literal value in the via", a: branch.Action{Kind: branch.KindSet, Target: target, Value: "10"}, via: "typed 10", calls: []string{"resolve " + tDesc, "set 10"}, strategy: "id", wantVia: "typed 10"},
		{name: "set names the input in the via", a: branch.Action{Kind: branch.KindSet, Target: target, Input: "seats"}, inputs: seats, via: "typed 10, read 10",
			calls: []string{"resolve " + tDesc, "input seats at " + tDesc + " = 10", "set 10"}, strategy: "id", wantVia: "typed {input seats}, read {input seats}"},
		{name: "set of an empty input replaces nothing", a: branch.Action{Kind: branch.KindSet, Target: target, Input: "empty"}, inputs: seats, via: "cleared",
			calls: []string{"resolve " + tDesc, "input empty at " + tDesc + " = ", "set "}, strategy: "id", wantVia: "cleared"},
		{name: "set fails with its via", a: branch.Action{Kind: branch.KindSet, Target: target, Input: "seats"}, inputs: seats, via: "keys End, read 10", fail: "set",
			calls: []string{"resolve " + tDesc, "input seats at " + tDesc + " = 10", "set 10"}, strategy: "id", wantVia: "keys End, read {input seats}", code: "boom"},
		{name: "a healed strategy passes through", a: branch.Action{Kind: branch.KindClick, Target: target}, calls: []string{"resolve " + tDesc, "click"}, strategy: "healed:css"},
		{name: "element fails with its strategy", a: branch.Action{Kind: branch.KindClick, Target: target}, fail: "click", calls: []string{"resolve " + tDesc, "click"}, strategy: "id", code: "boom"},
		{name: "fill fails", a: branch.Action{Kind: branch.KindType, Target: target, Value: "x"}, fail: "fill", calls: []string{"resolve " + tDesc, "fill x"}, strategy: "id", code: "boom"},
		{name: "resolve fails", a: branch.Action{Kind: branch.KindClick, Target: target}, fail: "resolve", calls: []string{"resolve " + tDesc}, code: "boom"},
		{name: "resolve fails before the input is recorded", a: branch.Action{Kind: branch.KindType, Target: target, Input: "card"}, inputs: seats, fail: "resolve",
			calls: []string{"resolve " + tDesc}, code: "boom"},
		{name: "type an input", a: branch.Action{Kind: branch.KindType, Target: target, Input: "card"}, inputs: seats,
			calls: []string{"resolve " + tDesc, "input card at " + tDesc + " = 4242 4242", "fill 4242 4242"}, strategy: "id"},
		{name: "the input wins over the value", a: branch.Action{Kind: branch.KindType, Target: target, Input: "seats", Value: "3"}, inputs: seats,
			calls: []string{"resolve " + tDesc, "input seats at " + tDesc + " = 10", "fill 10"}, strategy: "id"},
		{name: "a click naming an input records it", a: branch.Action{Kind: branch.KindClick, Target: target, Input: "seats"}, inputs: seats,
			calls: []string{"resolve " + tDesc, "input seats at " + tDesc + " = 10", "click"}, strategy: "id"},

		// Refusals before the page is touched.
		{name: "input without resolver", a: branch.Action{Kind: branch.KindType, Target: target, Input: "seats"},
			code: branch.CodeInputMissing, msg: "input seats is not available"},
		{name: "input the task lacks", a: branch.Action{Kind: branch.KindType, Target: target, Input: "coupon"}, inputs: seats,
			code: branch.CodeInputMissing, msg: `the task has no input "coupon"`},
		{name: "input before navigate", a: branch.Action{Kind: branch.KindNavigate, URL: "https://x.test/", Input: "coupon"}, inputs: seats,
			code: branch.CodeInputMissing, msg: `the task has no input "coupon"`},
		{name: "redacted value", a: branch.Action{Kind: branch.KindType, Target: target, Value: branch.RedactedPlaceholder},
			code: branch.CodeRedactedValue, msg: "refusing to type a redacted placeholder"},
		{name: "redacted input", a: branch.Action{Kind: branch.KindType, Target: target, Input: "scrubbed"}, inputs: seats,
			code: branch.CodeRedactedValue, msg: "refusing to type a redacted placeholder"},
		{name: "redacted before navigate", a: branch.Action{Kind: branch.KindNavigate, URL: "https://x.test/", Value: branch.RedactedPlaceholder},
			code: branch.CodeRedactedValue, msg: "refusing to type a redacted placeholder"},
		{name: "unknown kind", a: branch.Action{Kind: "poke"}, code: branch.CodeUnsupported, msg: "unknown action kind poke"},
		{name: "unknown kind with a target", a: branch.Action{Kind: "poke", Target: target}, code: branch.CodeUnsupported, msg: "unknown action kind poke"},
		{name: "empty kind", a: branch.Action{Target: target}, code: branch.CodeUnsupported, msg: "unknown action kind "},
		{name: "click needs a target", a: branch.Action{Kind: branch.KindClick}, code: branch.CodeUnsupported, msg: "click needs a target"},
		{name: "type needs a target", a: branch.Action{Kind: branch.KindType, Value: "x"}, code: branch.CodeUnsupported, msg: "type needs a target"},
		{name: "select needs a target", a: branch.Action{Kind: branch.KindSelect, Value: "x"}, code: branch.CodeUnsupported, msg: "select needs a target"},
		{name: "check needs a target", a: branch.Action{Kind: branch.KindCheck}, code: branch.CodeUnsupported, msg: "check needs a target"},
		{name: "focus needs a target", a: branch.Action{Kind: branch.KindFocus}, code: branch.CodeUnsupported, msg: "focus needs a target"},
		{name: "hover needs a target", a: branch.Action{Kind: branch.KindHover}, code: branch.CodeUnsupported, msg: "hover needs a target"},
		{name: "set needs a target", a: branch.Action{Kind: branch.KindSet, Value: "1"}, code: branch.CodeUnsupported, msg: "set needs a target"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &fakePage{fail: tc.fail, err: errBoom, strategy: "id", via: tc.via}
			if strings.HasPrefix(tc.strategy, "healed:") {
				p.strategy = tc.strategy
			}
			res, err := act.Do(context.Background(), p, tc.a, tc.inputs)
			if !slices.Equal(p.calls, tc.calls) {
				t.Errorf("calls %q, want %q", p.calls, tc.calls)
			}
			if res.Strategy != tc.strategy || res.Via != tc.wantVia {
				t.Errorf("result %+v, want strategy %q via %q", res, tc.strategy, tc.wantVia)
			}
			requireErr(t, err, tc.code, tc.msg)
		})
	}
}

// requireErr checks that err is nil (code ""), errBoom itself (code
// "boom": a page's error passes through unchanged) or an *act.Error with
// code and msg.
func requireErr(t *testing.T, err error, code branch.Code, msg string) {
	t.Helper()
	switch code {
	case "":
		if err != nil {
			t.Fatalf("error %v, want none", err)
		}
	case "boom":
		if err != errBoom {
			t.Fatalf("error %#v, want the page's own error", err)
		}
	default:
		var ae *act.Error
		if !errors.As(err, &ae) {
			t.Fatalf("error %#v, want an *act.Error", err)
		}
		if ae.Code != code || ae.Msg != msg {
			t.Fatalf("error %q %q, want %q %q", ae.Code, ae.Msg, code, msg)
		}
		if want := string(code) + ": " + msg; err.Error() != want {
			t.Fatalf("Error() = %q, want %q", err.Error(), want)
		}
	}
}

// TestDoPageErrorCode: an *act.Error a page returns keeps its code (the
// page says what "no page is open" means).
func TestDoPageErrorCode(t *testing.T) {
	noPage := &act.Error{Code: branch.CodeSelectorNotFound, Msg: "no page is open"}
	p := &fakePage{fail: "resolve", err: noPage}
	_, err := act.Do(context.Background(), p, branch.Action{Kind: branch.KindClick, Target: target}, nil)
	if err != noPage {
		t.Fatalf("error %v, want the page's %v", err, noPage)
	}
}

// TestInputRecorderIsOptional: a Page without RecordInput acts on
// inputs all the same.
func TestInputRecorderIsOptional(t *testing.T) {
	p := &fakePage{strategy: "id"}
	a := branch.Action{Kind: branch.KindType, Target: target, Input: "card"}
	res, err := act.Do(context.Background(), plainPage{p}, a, seats)
	if err != nil || res.Strategy != "id" {
		t.Fatalf("Do = %+v, %v", res, err)
	}
	if want := []string{"resolve " + tDesc, "fill 4242 4242"}; !slices.Equal(p.calls, want) {
		t.Fatalf("calls %q, want %q", p.calls, want)
	}
}

// TestEveryKindIsInterpreted: every kind branch knows reaches the page
// or its element, none is unsupported.
func TestEveryKindIsInterpreted(t *testing.T) {
	kinds := []string{branch.KindNavigate, branch.KindClick, branch.KindType, branch.KindSelect, branch.KindCheck, branch.KindFocus,
		branch.KindKeyPress, branch.KindHover, branch.KindScroll, branch.KindWaitFor, branch.KindEval, branch.KindSet}
	for _, k := range kinds {
		if !branch.KnownKind(k) {
			t.Fatalf("branch does not know %q", k)
		}
		for _, tg := range []*branch.Target{nil, target} {
			p := &fakePage{strategy: "id"}
			a := branch.Action{Kind: k, Target: tg, URL: "https://x.test/", Value: "1s"}
			_, err := act.Do(context.Background(), p, a, nil)
			if tg == nil && err != nil && strings.HasSuffix(err.Error(), "needs a target") {
				continue
			}
			if err != nil || len(p.calls) == 0 {
				t.Errorf("%s (target %v): calls %q, error %v", k, tg != nil, p.calls, err)
			}
		}
	}
}

// tabbedPage is a Page with tabs: it records the tab each action selects.
type tabbedPage struct{ *fakePage }

func (p tabbedPage) SelectTab(_ context.Context, i int) error {
	return p.op("tab " + strconv.Itoa(i))
}

// TestTabs: an action that names its tab selects it first on a Page with
// tabs; a Page without them has tab 0 only, and any other tab is
// no_such_tab before anything is done.
func TestTabs(t *testing.T) {
	one, zero := 1, 0
	p := &fakePage{strategy: "id"}
	if _, err := act.Do(context.Background(), tabbedPage{p}, branch.Action{Kind: branch.KindClick, Target: target, Tab: &one}, nil); err != nil {
		t.Fatal(err)
	}
	if want := []string{"tab 1", "resolve " + tDesc, "click"}; !slices.Equal(p.calls, want) {
		t.Fatalf("calls %q, want %q", p.calls, want)
	}
	p = &fakePage{strategy: "id"}
	if _, err := act.Do(context.Background(), plainPage{p}, branch.Action{Kind: branch.KindClick, Target: target, Tab: &zero}, nil); err != nil {
		t.Fatalf("tab 0 of a page without tabs: %v", err)
	}
	p = &fakePage{}
	_, err := act.Do(context.Background(), plainPage{p}, branch.Action{Kind: branch.KindClick, Target: target, Tab: &one}, nil)
	var ae *act.Error
	if !errors.As(err, &ae) || ae.Code != branch.CodeNoSuchTab || len(p.calls) != 0 {
		t.Fatalf("tab 1 of a page without tabs: %v, calls %q; want no_such_tab and nothing done", err, p.calls)
	}
}
