package browser

import (
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

func TestWithoutFailed(t *testing.T) {
	full := branch.Target{TestID: "buy", AriaLabel: "Buy now", Role: "button", Name: "Buy now", ID: "b", Field: "f", Text: "Buy now",
		CSS: "#b", Near: "Team plan", Box: &branch.Box{W: 1, H: 1}}
	cases := []struct {
		used string
		want branch.Target
	}{
		{"testid", full},
		{"", full},
		{"coordinates", full},
		{"role", branch.Target{Role: "button", Name: "Buy now", ID: "b", Field: "f", Text: "Buy now", CSS: "#b", Near: "Team plan", Box: full.Box}},
		{"css", branch.Target{CSS: "#b", Near: "Team plan", Box: full.Box}},
	}
	for _, c := range cases {
		if got := WithoutFailed(full, c.used); got != c.want {
			t.Errorf("WithoutFailed(%s) = %+v, want %+v", c.used, got, c.want)
		}
	}
}
