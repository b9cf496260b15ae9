package flow_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/flow"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
)

// TestFromBundleGuards: a flow guards what a live replay of its bundle
// would: the task's patterns, the committer's unsafe requests, and every
// unsafe method when the bundle names no pattern.
func TestFromBundleGuards(t *testing.T) {
	plan := branch.Plan{{Kind: branch.KindNavigate, URL: "http://shop.test/"}, {Kind: branch.KindClick, Target: &branch.Target{ID: "buy"}},
		{Kind: branch.KindClick, Target: &branch.Target{ID: "place"}}}
	mk := func(guard []bundle.Guard, kind bundle.Kind) *bundle.Bundle {
		b := &bundle.Bundle{Manifest: bundle.Manifest{Kind: kind, Plan: plan, Steps: len(plan), Guard: guard, Origin: "http://shop.test"},
			Network: []bundle.Entry{{Step: 3, Method: "POST", URL: "{origin}/api/orders?x=1"}}}
		if kind == bundle.KindCommit {
			b.Manifest.Commit = &bundle.CommitInfo{FirstStep: 3, ActionStep: 3}
		}
		return b
	}
	cases := []struct {
		name    string
		b       *bundle.Bundle
		blocks  []string // METHOD URL the flow's guard must match
		allNote bool
	}{
		{"task patterns", mk([]bundle.Guard{{Method: "POST", URL: "/orders"}}, bundle.KindBranch), []string{"POST http://shop.test/orders"}, false},
		{"no patterns", mk(nil, bundle.KindBranch), []string{"POST http://a.test/anything", "DELETE http://a.test/x"}, true},
		{"commit bundle", mk([]bundle.Guard{{Method: "PUT", URL: "/cart"}}, bundle.KindCommit), []string{"PUT http://shop.test/cart", "POST http://elsewhere.test/api/orders"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := flow.FromBundle(c.b)
			if err != nil {
				t.Fatal(err)
			}
			for _, req := range c.blocks {
				method, u, _ := strings.Cut(req, " ")
				if !guarded(t, f.Guard, method, u) {
					t.Errorf("the flow's guard %v lets %s through", f.Guard, req)
				}
			}
			hasNote := false
			for _, n := range f.Notes {
				hasNote = hasNote || strings.Contains(n, "names no guarded requests")
			}
			if hasNote != c.allNote {
				t.Errorf("notes %v", f.Notes)
			}
		})
	}
}

func guarded(t *testing.T, gs []flow.Guard, method, u string) bool {
	for _, g := range gs {
		if strings.EqualFold(g.Method, method) && regexp.MustCompile(g.URL).MatchString(u) {
			return true
		}
	}
	return false
}
