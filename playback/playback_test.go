package playback

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/flow"
)

// fakeSession answers each action from a script keyed by the action's
// label: the status and code it ends with and the URL it leads to.
type fakeSession struct {
	script map[string]branch.StepResult
	lands  map[string]string // label -> URL after it
	url    string
	did    []branch.Action
}

func (s *fakeSession) Do(ctx context.Context, a branch.Action, inputs browser.Resolver) (branch.StepResult, error) {
	if a.Input != "" { // what the executor types: the input's value
		v, err := inputs(a.Input)
		if err != nil {
			return branch.StepResult{}, err
		}
		a.Value = v
	}
	s.did = append(s.did, a)
	r, ok := s.script[a.Label]
	if !ok {
		r = branch.StepResult{Status: branch.StatusOK}
	}
	if u, ok := s.lands[a.Label]; ok {
		s.url = u
	} else if a.Kind == branch.KindNavigate {
		s.url = a.URL
	}
	return r, nil
}
func (s *fakeSession) URL() string      { return s.url }
func (s *fakeSession) PageURL() string  { return s.url }
func (s *fakeSession) HealShot() []byte { return []byte("healed") }
func (s *fakeSession) OutlinedScreenshot(context.Context, *branch.Box) ([]byte, error) {
	return []byte("failed"), nil
}
func (s *fakeSession) Blocked() []string { return nil }

type memShots map[string][]byte

func (m memShots) Save(name string, png []byte) (string, error) {
	m[name] = png
	return "/shots/" + name, nil
}

func act(kind, label string) flow.Action {
	a := flow.Action{Kind: kind, Label: label}
	switch kind {
	case branch.KindNavigate:
		a.URL = "http://site.test/" + label
	default:
		a.Target = &flow.Target{ID: label}
	}
	if kind == branch.KindType {
		a.Value = "v"
	}
	return a
}

var notFound = branch.StepResult{Status: branch.StatusFailed, Code: branch.CodeSelectorNotFound, Error: "no strategy found target"}

func statuses(r *Report) []string {
	var out []string
	for _, x := range r.Results {
		out = append(out, x.Status+":"+string(x.ErrorCode))
	}
	return out
}

// TestOnErrorModes: one flow whose second click fails, played in each
// mode.
func TestOnErrorModes(t *testing.T) {
	f := &flow.Flow{Name: "f", Actions: []flow.Action{
		act("navigate", "home"), act("click", "open"), act("type", "name"), act("check", "terms"),
		act("click", "next"), act("type", "email"),
	}}
	cases := []struct {
		mode   OnError
		want   []string
		status string
		notRun int
	}{
		{Continue, []string{"ok:", "failed:selector_not_found", "ok:", "ok:", "ok:", "ok:"}, "completed", 0},
		{SkipDependent, []string{"ok:", "failed:selector_not_found", "skipped:skipped_dependency", "skipped:skipped_dependency", "ok:", "ok:"}, "completed", 0},
		{Stop, []string{"ok:", "failed:selector_not_found"}, "failed", 4},
	}
	for _, c := range cases {
		t.Run(string(c.mode), func(t *testing.T) {
			s := &fakeSession{script: map[string]branch.StepResult{"open": notFound}}
			shots := memShots{}
			rep, err := Play(context.Background(), s, f, Options{OnError: c.mode, Shots: shots})
			if err != nil {
				t.Fatal(err)
			}
			if got := statuses(rep); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("results = %v, want %v", got, c.want)
			}
			if rep.Status != c.status || rep.NotRun != c.notRun || rep.Failed != 1 || rep.OK() {
				t.Fatalf("report = %+v", rep)
			}
			if string(shots["step-002-failed.png"]) != "failed" || rep.Results[1].Screenshot != "/shots/step-002-failed.png" {
				t.Fatalf("failed step's screenshot: %v, %q", shots, rep.Results[1].Screenshot)
			}
		})
	}
}

func TestRecordedTiming(t *testing.T) {
	f := &flow.Flow{Actions: []flow.Action{act("navigate", "a"), act("click", "b"), act("click", "c"), act("click", "d")}}
	f.Actions[1].AtMS = 1500
	f.Actions[2].AtMS = 900       // out of order: no wait
	f.Actions[3].AtMS = 3_600_000 // an hour later: capped
	for _, c := range []struct {
		timing Timing
		want   []time.Duration
	}{
		{Fast, nil},
		{Recorded, []time.Duration{1500 * time.Millisecond, 0, MaxDelay}},
	} {
		t.Run(string(c.timing), func(t *testing.T) {
			var waited []time.Duration
			wait := func(_ context.Context, d time.Duration) error { waited = append(waited, d); return nil }
			if _, err := Play(context.Background(), &fakeSession{}, f, Options{Timing: c.timing, Wait: wait}); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(waited, c.want) {
				t.Fatalf("waited %v, want %v", waited, c.want)
			}
		})
	}
}

// TestRedactedValues: a redacted action or an input is skipped unless a
// value is supplied, by index or input name; the placeholder is never
// sent to the executor.
func TestRedactedValues(t *testing.T) {
	pw := act("type", "password")
	pw.Value, pw.Redacted, pw.Secret = "", true, true
	email := act("type", "email")
	email.Value, email.Input, email.Redacted = "", "email", true
	f := &flow.Flow{Actions: []flow.Action{act("navigate", "login"), pw, email}}
	cases := []struct {
		name   string
		values map[string]string
		want   []string
		typed  []string
	}{
		{"none", nil, []string{"ok:", "skipped:redacted_value", "skipped:redacted_value"}, nil},
		{"by index and name", map[string]string{"2": "s3cret", "email": "a@b.test"}, []string{"ok:", "ok:", "ok:"}, []string{"s3cret", "a@b.test"}},
		{"index wins", map[string]string{"3": "idx@b.test", "email": "name@b.test", "2": "x"}, []string{"ok:", "ok:", "ok:"}, []string{"x", "idx@b.test"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &fakeSession{}
			rep, err := Play(context.Background(), s, f, Options{Values: c.values})
			if err != nil {
				t.Fatal(err)
			}
			if got := statuses(rep); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("results = %v, want %v", got, c.want)
			}
			var typed []string
			for _, a := range s.did {
				if a.Value == branch.RedactedPlaceholder {
					t.Fatalf("the placeholder reached the executor: %+v", a)
				}
				if a.Kind == branch.KindType {
					typed = append(typed, a.Value)
				}
			}
			if !reflect.DeepEqual(typed, c.typed) {
				t.Fatalf("typed %v, want %v", typed, c.typed)
			}
			if c.values == nil && (!strings.Contains(rep.Results[1].Error, "a secret: supply it with --set 2=env:NAME") ||
				!strings.Contains(rep.Results[2].Error, "--set email=VALUE")) {
				t.Fatalf("the skip does not say how to supply the value: %q", rep.Results[1].Error)
			}
		})
	}
}

// TestURLMismatchAuthRedirect: a navigation that lands on a login page is
// flagged, stays ok, and the target failures after it are put down to it
// until a navigation lands where it asked.
func TestURLMismatchAuthRedirect(t *testing.T) {
	f := &flow.Flow{Actions: []flow.Action{act("navigate", "account"), act("click", "edit"), act("navigate", "home"), act("click", "logo")}}
	s := &fakeSession{
		script: map[string]branch.StepResult{"edit": notFound, "logo": notFound},
		lands:  map[string]string{"account": "http://site.test/login?next=/account"},
	}
	rep, err := Play(context.Background(), s, f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results
	if r[0].Status != branch.StatusOK || r[0].ErrorCode != CodeURLMismatch || !strings.Contains(r[0].Error, "landed on http://site.test/login") {
		t.Fatalf("navigate = %+v", r[0])
	}
	if r[1].LikelyCause != CauseAuthRedirect {
		t.Fatalf("the failure after the redirect = %+v, want likely_cause auth_redirect", r[1])
	}
	if r[2].ErrorCode != "" || r[3].LikelyCause != "" {
		t.Fatalf("after a navigation that landed where it asked: %+v, %+v", r[2], r[3])
	}
}

// TestViewportScaling: boxes are scaled by the viewport ratio, and a
// difference over 20% is a warning.
func TestViewportScaling(t *testing.T) {
	click := act("click", "buy")
	click.Target.Box = &flow.Box{X: 100, Y: 200, W: 50, H: 20}
	f := &flow.Flow{Environment: flow.Environment{Width: 1000, Height: 800}, Actions: []flow.Action{click}}
	for _, c := range []struct {
		w, h    int
		box     branch.Box
		warning bool
	}{
		{1000, 800, branch.Box{X: 100, Y: 200, W: 50, H: 20}, false},
		{1250, 800, branch.Box{X: 125, Y: 200, W: 62.5, H: 20}, true},
		{1100, 880, branch.Box{X: 110, Y: 220, W: 55, H: 22}, false},
		{500, 400, branch.Box{X: 50, Y: 100, W: 25, H: 10}, true},
	} {
		s := &fakeSession{}
		rep, err := Play(context.Background(), s, f, Options{Width: c.w, Height: c.h})
		if err != nil {
			t.Fatal(err)
		}
		if got := *s.did[0].Target.Box; !approx(got, c.box) {
			t.Errorf("%dx%d: box %+v, want %+v", c.w, c.h, got, c.box)
		}
		warned := len(rep.Warnings) > 0 && strings.HasPrefix(rep.Warnings[0], "viewport_mismatch")
		if warned != c.warning {
			t.Errorf("%dx%d: warnings %v", c.w, c.h, rep.Warnings)
		}
	}
	if *f.Actions[0].Target.Box != (flow.Box{X: 100, Y: 200, W: 50, H: 20}) {
		t.Fatalf("playing changed the flow: %+v", f.Actions[0].Target.Box)
	}
}

func TestStartURLMovesTheOrigin(t *testing.T) {
	nav := act("navigate", "pricing")
	f := &flow.Flow{Origin: "http://site.test", Actions: []flow.Action{nav}}
	s := &fakeSession{}
	if _, err := Play(context.Background(), s, f, Options{StartURL: "https://staging.test:8443/x"}); err != nil {
		t.Fatal(err)
	}
	if got := s.did[0].URL; got != "https://staging.test:8443/pricing" {
		t.Fatalf("navigated to %s", got)
	}
}

func approx(a, b branch.Box) bool {
	near := func(x, y float64) bool { return x-y < 1e-9 && y-x < 1e-9 }
	return near(a.X, b.X) && near(a.Y, b.Y) && near(a.W, b.W) && near(a.H, b.H)
}

// TestSuppliedValuesAreSecret: a value supplied for a redacted action is
// typed through a secret input (its field masked in screenshots) and
// scrubbed from whatever the session reports.
func TestSuppliedValuesAreSecret(t *testing.T) {
	pw := act("type", "password")
	pw.Value, pw.Redacted = "", true
	f := &flow.Flow{Actions: []flow.Action{act("navigate", "login"), pw, act("type", "name")}}
	so, err := SessionOptions(f, Options{Values: map[string]string{"2": "s3cret-pw"}})
	if err != nil {
		t.Fatal(err)
	}
	if !so.SecretInputs[suppliedInput(1)] || len(so.SecretInputs) != 1 {
		t.Fatalf("secret inputs = %v, want only action 2's", so.SecretInputs)
	}
	if got := so.Scrub.Text("login failed for s3cret-pw"); strings.Contains(got, "s3cret-pw") {
		t.Fatalf("the session's scrubber leaves the supplied value in clear: %q", got)
	}
}

// TestVocabulary: an action of a kind playback does not know is skipped
// with unsupported_action_type and the flow goes on; a screenshot
// checkpoint stores the page and acts on nothing.
func TestVocabulary(t *testing.T) {
	f := &flow.Flow{Actions: []flow.Action{act(branch.KindNavigate, "home"), {Kind: "tap", Target: &flow.Target{ID: "x"}},
		{Kind: flow.KindScreenshot, Label: "the home page"}, act(branch.KindClick, "go")}}
	sess := &fakeSession{}
	shots := memShots{}
	rep, err := Play(context.Background(), sess, f, Options{Shots: shots})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ok:", "skipped:" + string(branch.CodeUnsupported), "ok:", "ok:"}
	if got := statuses(rep); !reflect.DeepEqual(got, want) {
		t.Fatalf("statuses %v, want %v", got, want)
	}
	if r := rep.Results[1]; r.Error != "unsupported_action_type: tap" {
		t.Errorf("skipped action's error %q", r.Error)
	}
	if len(sess.did) != 2 {
		t.Errorf("the session ran %d actions, want the navigate and the click: %+v", len(sess.did), sess.did)
	}
	if r := rep.Results[2]; r.Screenshot != "/shots/step-003-screenshot.png" || shots["step-003-screenshot.png"] == nil {
		t.Errorf("checkpoint %+v, shots %v", r, shots)
	}
	if rep.Executed != 3 || rep.Skipped != 1 || rep.OK() || len(rep.Screenshots) != 1 {
		t.Errorf("report counts: executed %d skipped %d screenshots %v ok %v", rep.Executed, rep.Skipped, rep.Screenshots, rep.OK())
	}
}

func TestOptionsCheck(t *testing.T) {
	ok := Options{OnError: Continue, Timing: Fast}
	for _, c := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"defaults", func(*Options) {}, ""},
		{"a viewport and a start URL", func(o *Options) { o.Width, o.Height, o.StartURL = 1280, 800, "https://shop.test/" }, ""},
		{"an unknown on_error", func(o *Options) { o.OnError = "retry" }, `on_error "retry"`},
		{"an unknown timing", func(o *Options) { o.Timing = "slow" }, `timing "slow"`},
		{"a tiny viewport", func(o *Options) { o.Width, o.Height = 50, 800 }, "viewport 50x800"},
		{"one side only", func(o *Options) { o.Width = 1280 }, "viewport 1280x0"},
		{"a relative start URL", func(o *Options) { o.StartURL = "/checkout" }, `start_url "/checkout"`},
	} {
		o := ok
		c.edit(&o)
		err := o.Check()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
