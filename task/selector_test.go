package task

import (
	"errors"
	"strings"
	"testing"
)

// TestSelectors lists every selector of a task with the line and field it
// is written at and the engine the browser evaluates it with, and turns a
// rejected one into a task error naming file, line and field.
func TestSelectors(t *testing.T) {
	tk, err := Load("testdata/selectors.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []Selector{
		{"goal.milestones[0].visible", 4, ".banner", EngineCSS},
		{"goal.success[0].all[0].count.selector", 8, "li.item", EngineCSS},
		{"goal.success[0].all[1].not.hidden", 9, "#gone", EngineCSS},
		{"commit.boundary.text.selector", 11, "h1", EngineCSS},
		{"commit.intent.total", 13, "[data-field=total]", EngineCSS},
		{"commit.intent.plan", 14, "[data-field=plan]", EngineCSS},
		{"commit.action.click.css", 15, `button:has-text("Buy")`, EngineLocator},
		{"commit.idempotency.form_field", 16, "#ref", EngineCSS},
		{"commit.confirm.success.value.selector", 19, "#state", EngineCSS},
		{"commit.confirm.token", 20, "[[[[", EngineCSS},
		{"commit.confirm.invoice.selector", 21, "text=Invoice", EngineLocator},
		{"commit.cas.selector", 17, "input[name=v]", EngineCSS},
	}
	got := tk.Selectors()
	if len(got) != len(want) {
		t.Fatalf("got %d selectors, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("selector %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	err = tk.SelectorError(got[9], "'[[[[' is not a valid selector.")
	if !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), "testdata/selectors.yaml:20: commit.confirm.token: ") {
		t.Fatalf("error = %v", err)
	}
}
