package browser_test

import (
	"context"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/browser"
)

// TestInvalidSelectors: each selector is parsed by the engine that
// evaluates it. Plain CSS passes both; Playwright's own syntax passes
// only the locator engine (probes and reads use document.querySelector,
// which would throw on it); malformed selectors fail both, with the
// browser's message.
func TestInvalidSelectors(t *testing.T) {
	s := session(t, "", 1)
	for _, tc := range []struct {
		sel              string
		cssOK, locatorOK bool
	}{
		{"[data-testid=order-id]", true, true},
		{"#client_reference", true, true},
		{"input[name=total_cents]", true, true},
		{"main > section:has(h2) .price:not(.old)", true, true},
		{"[data-field=total]", true, true},
		{"text=Download invoice", false, true},
		{"role=button[name=\"Place order\"]", false, true},
		{"button:has-text(\"Place order\")", false, true},
		{"xpath=//a[@download]", false, true},
		{"#checkout >> text=Total", false, true},
		{"[[[[", false, false},
		{"div[", false, false},
		{"a:unknown-pseudo(", false, false},
	} {
		t.Run(tc.sel, func(t *testing.T) {
			msgs, err := s.InvalidSelectors(context.Background(), []browser.SelectorCheck{{Value: tc.sel}, {Value: tc.sel, Locator: true}})
			if err != nil {
				t.Fatal(err)
			}
			if got := msgs[0] == ""; got != tc.cssOK {
				t.Errorf("css engine: valid = %v (%q), want %v", got, msgs[0], tc.cssOK)
			}
			if got := msgs[1] == ""; got != tc.locatorOK {
				t.Errorf("locator engine: valid = %v (%q), want %v", got, msgs[1], tc.locatorOK)
			}
			for i, m := range msgs {
				if m != "" && !strings.Contains(m, tc.sel) && !strings.Contains(strings.ToLower(m), "selector") {
					t.Errorf("message %d does not name the problem: %q", i, m)
				}
			}
		})
	}
}
