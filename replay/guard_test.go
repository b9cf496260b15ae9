package replay

import (
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
)

// commitBundle is a three-step commit bundle: one branch step, the key
// write and the commit action, which POSTed /orders.
func commitBundle(guard []bundle.Guard, info bundle.CommitInfo) *bundle.Bundle {
	plan := branch.Plan{{Kind: branch.KindNavigate, URL: "http://127.0.0.1:8555/checkout/review"},
		{Kind: branch.KindEval, Value: "1", Label: "write the idempotency key"},
		{Kind: branch.KindClick, Target: &branch.Target{Role: "button", Name: "Place order"}}}
	return &bundle.Bundle{Manifest: bundle.Manifest{Kind: bundle.KindCommit, Plan: plan, Steps: len(plan), Guard: guard, Commit: &info},
		Network: []bundle.Entry{{Seq: 1, Step: 1, Method: "GET", URL: "http://127.0.0.1:8555/checkout/review"},
			{Seq: 2, Step: 3, Method: "POST", URL: "http://127.0.0.1:8555/orders"},
			{Seq: 3, Step: 3, Method: "GET", URL: "http://127.0.0.1:8555/orders/ORD-1"}}}
}

// TestLiveGuardWithoutPatterns: whatever the bundle says about its guard,
// a live replay blocks what the commit sent, and a bundle without any
// guard gets every unsafe method blocked; a strict replay of a commit
// bundle leaves the guard to the proxy.
func TestLiveGuardWithoutPatterns(t *testing.T) {
	cases := []struct {
		name    string
		b       *bundle.Bundle
		live    bool
		blocked []string // "METHOD URL" that must be guarded
		open    []string // that must not
		stop    int
	}{
		{"commit bundle with its guard", commitBundle([]bundle.Guard{{Method: "POST", URL: "/orders"}}, bundle.CommitInfo{FirstStep: 2, ActionStep: 3}), true,
			[]string{"POST http://10.0.0.1:9/orders", "POST http://10.0.0.1:9/orders?x=1"}, []string{"GET http://10.0.0.1:9/orders/ORD-1", "POST http://10.0.0.1:9/signup"}, 2},
		{"commit bundle that lost its guard and steps", commitBundle(nil, bundle.CommitInfo{}), true,
			[]string{"POST http://10.0.0.1:9/orders", "PUT http://10.0.0.1:9/anything"}, []string{"GET http://10.0.0.1:9/orders"}, 3},
		{"branch bundle without guard", &bundle.Bundle{Manifest: bundle.Manifest{Kind: bundle.KindBranch, Plan: branch.Plan{{Kind: branch.KindNavigate, URL: "http://a/"}}, Steps: 1}}, true,
			[]string{"POST http://a/x", "DELETE http://a/y", "PATCH http://a/z"}, []string{"GET http://a/x"}, 0},
		{"strict commit replay: the proxy answers", commitBundle([]bundle.Guard{{Method: "POST", URL: "/orders"}}, bundle.CommitInfo{FirstStep: 2, ActionStep: 3}), false,
			nil, []string{"POST http://127.0.0.1:8555/orders"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := &Report{}
			g, err := guardOf(c.b, c.live, rep)
			if err != nil {
				t.Fatal(err)
			}
			guarded := func(req string) bool {
				meth, u, _ := strings.Cut(req, " ")
				for _, p := range g {
					if p.Matches(meth, u) {
						return true
					}
				}
				return false
			}
			for _, r := range c.blocked {
				if !guarded(r) {
					t.Errorf("%s is not guarded", r)
				}
			}
			for _, r := range c.open {
				if guarded(r) {
					t.Errorf("%s is guarded", r)
				}
			}
			if !c.live {
				return
			}
			plan, err := stopAtCommit(c.b, c.b.Manifest.Plan, rep)
			if err != nil {
				t.Fatal(err)
			}
			if c.stop == 0 {
				if rep.Stop != nil || len(plan) != len(c.b.Manifest.Plan) {
					t.Fatalf("a branch bundle stopped: %+v", rep.Stop)
				}
				return
			}
			if rep.Stop == nil || rep.Stop.Step != c.stop || len(plan) != c.stop-1 || !strings.Contains(rep.Stop.Reason, "Place order") {
				t.Fatalf("stop %+v with %d steps left, want a stop before step %d naming the commit action", rep.Stop, len(plan), c.stop)
			}
		})
	}
}
