package flow_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/flow"
)

func parseFile(t *testing.T, path string) (*flow.Flow, error) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return flow.Parse(path, data)
}

func TestParseGood(t *testing.T) {
	f, err := parseFile(t, "testdata/good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "buy the team plan" || len(f.Actions) != 6 || len(f.Guard) != 1 || f.Environment.Width != 1280 {
		t.Fatalf("parsed %+v", f)
	}
	click := f.Actions[1]
	if click.AtMS != 850 || click.Target.TestID != "plan-team" || click.Target.Box == nil || click.Target.Box.W != 120 {
		t.Fatalf("click = %+v", click)
	}
	// A redacted action becomes the placeholder no executor types.
	if got := f.Actions[2].Branch().Value; got != branch.RedactedPlaceholder {
		t.Fatalf("redacted action's value = %q", got)
	}
	j, err := parseFile(t, "testdata/good.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Actions) != 2 || j.Actions[1].Dialog != branch.DialogAccept {
		t.Fatalf("json flow = %+v", j)
	}
}

// TestParseVocabulary: a screenshot checkpoint, a per-action timeout and
// who chose each action parse; a kind playback does not know parses too
// (playback skips it) and is the only unsupported action.
func TestParseVocabulary(t *testing.T) {
	f, err := parseFile(t, "testdata/vocabulary.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var unsupported []string
	for _, a := range f.Actions {
		if !a.Supported() {
			unsupported = append(unsupported, a.Kind)
		}
	}
	if strings.Join(unsupported, ",") != "tap" {
		t.Errorf("unsupported kinds %q, want tap", unsupported)
	}
	if a := f.Actions[0]; a.TimeoutMS != 5000 || a.Source != flow.SourcePerson {
		t.Errorf("navigate = %+v, want timeout_ms 5000 from a person", a)
	}
	if a := f.Actions[1]; a.Kind != flow.KindScreenshot || a.Label != "the pricing page" {
		t.Errorf("screenshot = %+v", a)
	}
	if got := flow.FromBranch(f.Actions[3].Branch()).Source; got != flow.SourcePlanner {
		t.Errorf("an exported action's source = %q, want planner", got)
	}
}

// TestParseBad: every bad file is refused with an error wrapping
// ErrInvalid that names the file, the line where known, and the field.
func TestParseBad(t *testing.T) {
	cases := []struct {
		file string
		want string
	}{
		{"no-version.yaml", "no-version.yaml:1: schema_version: missing; this reader reads schema version 1"},
		{"version-2.yaml", `version-2.yaml:1: schema_version: "2" is not supported`},
		{"no-actions.yaml", "actions: a flow needs at least one action"},
		{"empty-kind.yaml", `empty-kind.yaml:4: actions[1].kind: is empty`},
		{"negative-timeout.yaml", `negative-timeout.yaml:3: actions[0].timeout_ms: is negative`},
		{"negative-tab.yaml", `negative-tab.yaml:4: actions[1].tab: is negative`},
		{"bad-source.yaml", `bad-source.yaml:3: actions[0].source: "robot" is neither person nor planner`},
		{"no-target.yaml", "no-target.yaml:4: actions[1].target: a click action needs a target"},
		{"relative-url.yaml", `relative-url.yaml:3: actions[0].url: "/relative" is not an absolute URL`},
		{"unknown-field.yaml", "unknown-field.yaml:5: field colour not found"},
		{"type-no-value.yaml", "type-no-value.yaml:3: actions[0].value: a type action needs a value"},
		{"set-no-value.yaml", "set-no-value.yaml:3: actions[0].value: a set action needs the value its control is to hold"},
		{"redacted-with-value.yaml", "redacted-with-value.yaml:3: actions[0].value: a redacted action holds no value in the file"},
		{"bad-guard.yaml", "bad-guard.yaml:3: guard[0].url: is not a regular expression"},
		{"bad-dialog.yaml", `bad-dialog.yaml:3: actions[0].dialog: "maybe" is neither accept nor dismiss`},
		{"bad-at.yaml", "bad-at.yaml:3: cannot unmarshal"},
		{"bad-seed.yaml", `bad-seed.yaml:2: environment: seed "-3" is not a whole number`},
		{"eval.yaml", "eval.yaml:3: actions[0].kind: eval is not played back"},
		{"syntax.yaml", "syntax.yaml:"},
		{"empty.yaml", "empty.yaml: flow file is empty"},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.file] = true
		t.Run(c.file, func(t *testing.T) {
			_, err := parseFile(t, filepath.Join("testdata/bad", c.file))
			if !errors.Is(err, flow.ErrInvalid) {
				t.Fatalf("err = %v, want one wrapping ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %q, want it to contain %q", err, c.want)
			}
		})
	}
	// Every bad fixture has a case.
	all, _ := filepath.Glob("testdata/bad/*")
	for _, p := range all {
		if !seen[filepath.Base(p)] {
			t.Errorf("testdata/bad/%s has no case", filepath.Base(p))
		}
	}
}

func TestWriteRoundTrip(t *testing.T) {
	f, err := parseFile(t, "testdata/good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := flow.Write(&buf, f); err != nil {
		t.Fatal(err)
	}
	g, err := flow.Parse("written", buf.Bytes())
	if err != nil {
		t.Fatalf("re-reading what Write wrote: %v\n%s", err, buf.String())
	}
	var again bytes.Buffer
	if err := flow.Write(&again, g); err != nil {
		t.Fatal(err)
	}
	if again.String() != buf.String() {
		t.Fatalf("round trip changed the flow:\n%s\n---\n%s", buf.String(), again.String())
	}
}

func TestFromBranchRedactsInputs(t *testing.T) {
	cases := []struct {
		name     string
		in       branch.Action
		redacted bool
		value    string
	}{
		{"typed input", branch.Action{Kind: "type", Input: "email", Target: &branch.Target{Field: "email"}}, true, ""},
		{"placeholder", branch.Action{Kind: "type", Value: branch.RedactedPlaceholder, Target: &branch.Target{ID: "q"}}, true, ""},
		{"literal", branch.Action{Kind: "type", Value: "3", Target: &branch.Target{ID: "seats"}}, false, "3"},
		{"click", branch.Action{Kind: "click", Target: &branch.Target{Role: "button", Name: "Go", Box: &branch.Box{X: 1, Y: 2, W: 3, H: 4}}}, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := flow.FromBranch(c.in)
			if a.Redacted != c.redacted || a.Value != c.value {
				t.Fatalf("FromBranch = %+v, want redacted %v value %q", a, c.redacted, c.value)
			}
			if c.in.Target != nil && c.in.Target.Box != nil && (a.Target.Box == nil || a.Target.Box.H != 4) {
				t.Fatalf("box lost: %+v", a.Target)
			}
		})
	}
}

// TestParseSet: a set action is a flow action like the others: read with
// its target and value, and the same action back for the executor.
func TestParseSet(t *testing.T) {
	src := "schema_version: 1\nactions:\n  - {kind: set, target: {role: slider, name: Volume}, value: \"40\"}\n" +
		"  - {kind: set, target: {id: checkin}, value: 10/11/2011}\n"
	f, err := flow.Parse("set.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	a := f.Actions[0].Branch()
	if a.Kind != branch.KindSet || a.Value != "40" || a.Target.Role != "slider" || a.Validate() != nil {
		t.Fatalf("set action = %+v", a)
	}
	if back := flow.FromBranch(a).Branch(); back.Kind != a.Kind || back.Value != a.Value || *back.Target != *a.Target {
		t.Fatalf("round trip = %+v, want %+v", back, a)
	}
}
