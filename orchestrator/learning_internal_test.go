package orchestrator

import (
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/learn"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// TestStorable: a step whose page or target holds what the run scrubs
// stays out of the site's record.
func TestStorable(t *testing.T) {
	r := &run{records: records{sc: scrub.New(scrub.NewKey(), []string{"hunter2-secret"})}}
	click := func(text string) branch.Action {
		return branch.Action{Kind: branch.KindClick, Target: &branch.Target{Role: "button", Name: text}}
	}
	for _, c := range []struct {
		name string
		m    learn.Measured
		want bool
	}{
		{"plain", learn.Measured{Action: click("Continue"), Page: "http://shop.test/checkout/review"}, true},
		{"an e-mail address in the target", learn.Measured{Action: click("Send to jane.roe@example.org"), Page: "http://shop.test/"}, false},
		{"a secret in the target", learn.Measured{Action: click("hunter2-secret"), Page: "http://shop.test/"}, false},
		{"an e-mail address in the page", learn.Measured{Action: click("Continue"), Page: "http://shop.test/users/jane.roe@example.org/edit"}, false},
		{"a navigation to a secret", learn.Measured{Action: branch.Action{Kind: branch.KindNavigate, URL: "http://shop.test/k/hunter2-secret"}}, false},
	} {
		if got := r.storable(c.m); got != c.want {
			t.Errorf("%s: storable %v, want %v", c.name, got, c.want)
		}
	}
}
