package browser_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
)

// widgetSession opens testdata/widgets.html: a booking form with a
// native range, WAI-ARIA practices sliders (keys; pointer only; words),
// an ARIA spin button, number, date and time inputs, a jQuery UI style
// datepicker field and a date field without a calendar.
func widgetSession(t *testing.T) *browser.Session {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir("testdata")))
	t.Cleanup(srv.Close)
	s := sessionWith(t, browser.SessionOptions{Env: browser.Env{ActionTimeout: 5 * time.Second}, RunSeed: 1, Origin: srv.URL})
	if r := do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/widgets.html"}); r.Status != branch.StatusOK {
		t.Fatalf("navigate: %+v", r)
	}
	return s
}

func evalString(t *testing.T, s *browser.Session, expr string) string {
	t.Helper()
	v, err := s.Page().Evaluate(expr)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	str, _ := v.(string)
	return str
}

// TestSetWidgets: a set action puts each value into its control the way
// a person would, says how (its via), refuses what the control cannot
// hold with value_not_set, and never submits the form.
func TestSetWidgets(t *testing.T) {
	s := widgetSession(t)
	byID := func(id string) *branch.Target { return &branch.Target{ID: id} }
	slider := func(name string) *branch.Target { return &branch.Target{Role: "slider", Name: name} }
	cases := []struct {
		name   string
		target *branch.Target
		value  string
		via    string // regexp; empty for a refusal
		read   string // JS giving what the control holds
		want   string
	}{
		{"native range", byID("volume"), "35", `^fill 35$`, `document.getElementById('volume').value`, "35"},
		{"native range off its step", byID("volume"), "33", "", `document.getElementById('volume').value`, "35"},
		{"aria slider by arrows", slider("Temperature"), "27", `^keys ArrowRight×7$`, `document.getElementById('temp').getAttribute('aria-valuenow')`, "27"},
		{"aria slider to its start", slider("Temperature"), "10", `^keys Home$`, `document.getElementById('temp').getAttribute('aria-valuenow')`, "10"},
		{"aria slider by pages", slider("Temperature"), "29", `^keys PageUp×\d+ ArrowRight(×\d+)?$`, `document.getElementById('temp').getAttribute('aria-valuenow')`, "29"},
		{"aria slider out of range", slider("Temperature"), "45", "", `document.getElementById('temp').getAttribute('aria-valuenow')`, "29"},
		{"slider that only drags", slider("Max price"), "100", `^drag 0\.\d+$`, `document.getElementById('price').getAttribute('aria-valuenow')`, "100"},
		{"slider of words", slider("Size"), "Large", `^keys Home ArrowRight×2$`, `document.getElementById('size').getAttribute('aria-valuetext')`, "Large"},
		{"aria spin button", &branch.Target{Role: "spinbutton", Name: "Guests"}, "7", `^keys ArrowUp×5$`, `document.getElementById('guests').getAttribute('aria-valuenow')`, "7"},
		{"aria spin button to its end", &branch.Target{Role: "spinbutton", Name: "Guests"}, "12", `^keys End$`, `document.getElementById('guests').getAttribute('aria-valuenow')`, "12"},
		{"number input", byID("nights"), "4", `^fill 4$`, `document.getElementById('nights').value`, "4"},
		{"date input", byID("arrival"), "2011-10-11", `^fill 2011-10-11$`, `document.getElementById('arrival').value`, "2011-10-11"},
		{"date input, written otherwise", byID("arrival"), "October 12, 2011", `^fill 2011-10-12$`, `document.getElementById('arrival').value`, "2011-10-12"},
		{"date input, no date", byID("arrival"), "next week", "", `document.getElementById('arrival').value`, "2011-10-12"},
		{"time input", byID("checkin-time"), "20:04", `^fill 20:04$`, `document.getElementById('checkin-time').value`, "20:04"},
		{"datepicker popup", byID("checkin"), "10/11/2011", `^picker (prev|next)(×\d+)? day 11$`, `document.getElementById('checkin').value`, "10/11/2011"},
		{"datepicker popup, a later month", byID("checkin"), "2012-01-05", `^picker next×3 day 5$`, `document.getElementById('checkin').value`, "01/05/2012"},
		{"date field without a calendar", byID("birthday"), "2011-10-11", `^type 11\.10\.2011$`, `document.getElementById('birthday').value`, "11.10.2011"},
	}
	for _, tc := range cases {
		r := do(t, s, branch.Action{Kind: branch.KindSet, Target: tc.target, Value: tc.value})
		t.Logf("%s: %s in %v", tc.name, r.Via, r.End.Sub(r.Start))
		got := evalString(t, s, tc.read)
		switch {
		case tc.via == "" && (r.Status != branch.StatusFailed || r.Code != branch.CodeValueNotSet):
			t.Errorf("%s: set %q: %s %s %q, want a value_not_set refusal", tc.name, tc.value, r.Status, r.Code, r.Via)
		case tc.via != "" && r.Status != branch.StatusOK:
			t.Errorf("%s: set %q: %s %s: %s", tc.name, tc.value, r.Status, r.Code, r.Error)
		case tc.via != "" && !regexp.MustCompile(tc.via).MatchString(r.Via):
			t.Errorf("%s: via %q, want %s", tc.name, r.Via, tc.via)
		}
		if got != tc.want {
			t.Errorf("%s: the control holds %q, want %q (via %q, %s)", tc.name, got, tc.want, r.Via, r.Error)
		}
	}
	if out := evalString(t, s, `document.getElementById('out').textContent`); out != "" {
		t.Errorf("setting values submitted the form: %q", out)
	}
}

// TestWidgetAffordances: sliders and spin buttons are affordances of
// their own kinds carrying their bounds and value; a number input stays
// a number with its bounds, a date input a textbox of type date.
func TestWidgetAffordances(t *testing.T) {
	s := widgetSession(t)
	snap, err := s.Observe(context.Background(), browser.ObserveSpec{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]branch.Affordance{}
	for _, a := range snap.Obs.Affordances {
		got[a.Target.Name] = a
	}
	want := []branch.Affordance{
		{Kind: "slider", InputType: "range", Value: "50", Min: "0", Max: "100", Step: "5"},
		{Kind: "slider", Value: "20", Min: "10", Max: "30", ValueText: "20°C"},
		{Kind: "slider", Value: "150", Min: "0", Max: "300"},
		{Kind: "spinbutton", Value: "2", Min: "1", Max: "12"},
		{Kind: "number", InputType: "number", Value: "1", Min: "1", Max: "30"},
		{Kind: "textbox", InputType: "date"},
	}
	for i, name := range []string{"Volume", "Temperature", "Max price", "Guests", "Nights", "Arrival date"} {
		a, ok := got[name]
		w := want[i]
		if !ok {
			t.Errorf("no affordance named %q", name)
			continue
		}
		if a.Kind != w.Kind || a.InputType != w.InputType || a.Value != w.Value || a.Min != w.Min || a.Max != w.Max ||
			a.Step != w.Step || a.ValueText != w.ValueText {
			t.Errorf("%s: kind %q type %q value %q min %q max %q step %q text %q, want %+v", name, a.Kind, a.InputType, a.Value,
				a.Min, a.Max, a.Step, a.ValueText, w)
		}
		if a.Kind == "slider" && a.Target.Text != "" {
			t.Errorf("%s: a slider is targeted by its text %q (its value, which changes)", name, a.Target.Text)
		}
	}
}

// TestSetIsHeldLikeAClick: a slider that saves itself (a POST on every
// key, as settings pages do) is held when a set action moves it: the
// step ends at the side-effect boundary naming the request, as a click
// that sent it would, and the site receives nothing.
func TestSetIsHeldLikeAClick(t *testing.T) {
	var mu sync.Mutex
	writes := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			mu.Lock()
			writes++
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>Preferences</title><span id=l>Brightness</span>
<div id=b role=slider tabindex=0 aria-labelledby=l aria-valuemin=0 aria-valuemax=10 aria-valuenow=5 style="width:200px;height:10px"></div>
<script>const b = document.getElementById('b');
b.addEventListener('keydown', (e) => { const v = +b.getAttribute('aria-valuenow') + (e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0);
  b.setAttribute('aria-valuenow', String(v)); fetch('/api/prefs', {method: 'POST', body: JSON.stringify({brightness: v})}); });</script>`)
	}))
	defer srv.Close()
	s := sessionWith(t, browser.SessionOptions{Env: browser.Env{ActionTimeout: 5 * time.Second}, RunSeed: 1, Origin: srv.URL})
	do(t, s, branch.Action{Kind: branch.KindNavigate, URL: srv.URL + "/"})
	r := do(t, s, branch.Action{Kind: branch.KindSet, Target: &branch.Target{Role: "slider", Name: "Brightness"}, Value: "7"})
	if r.Code != branch.CodeSideEffect || !strings.Contains(r.Error, "POST /api/prefs") {
		t.Errorf("set on a self-saving slider: %s %s %q, want the side-effect boundary naming POST /api/prefs", r.Status, r.Code, r.Error)
	}
	mu.Lock()
	defer mu.Unlock()
	if writes != 0 {
		t.Errorf("the site received %d state-changing requests", writes)
	}
}
