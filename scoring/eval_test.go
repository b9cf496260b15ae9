package scoring_test

import (
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/scoring"
)

func intp(n int) *int { return &n }

// TestEval: every predicate kind against the facts of one page, and how
// a failed probe reads: false with its error, still usable in all, any
// and not.
func TestEval(t *testing.T) {
	el := func(sel string) scoring.Probe { return scoring.Probe{Kind: scoring.ProbeElement, Selector: sel} }
	f := scoring.Facts{
		URL: "http://shop.test/checkout/review", Title: "Review your order",
		Answers: map[scoring.Probe]scoring.Answer{
			el("#total"):              {Found: true, Visible: true, Count: 1, Text: "  Total:\n 42.00 EUR "},
			el(".line"):               {Found: true, Visible: true, Count: 3, Text: "Seat"},
			el("#hidden"):             {Found: true, Visible: false, Count: 1},
			el("#qty"):                {Found: true, Visible: true, Count: 1, Value: "5"},
			el("#missing"):            {},
			el("#broken"):             {Err: "bad selector"},
			{Kind: scoring.ProbeBody}: {Text: "Review your order. Total: 42.00 EUR"},
			{Kind: scoring.ProbeJS, Script: "window.ok"}:  {Truthy: true},
			{Kind: scoring.ProbeJS, Script: "window.bad"}: {Err: "ReferenceError"},
		},
		Requests: []scoring.RequestFact{{Method: "POST", URL: "http://shop.test/api/cart", Status: 201}},
	}
	yes, no := true, false
	for _, tc := range []struct {
		name    string
		p       scoring.Predicate
		want    bool
		wantErr string
	}{
		{"url", scoring.Predicate{URLMatches: "/checkout/review$"}, yes, ""},
		{"url no", scoring.Predicate{URLMatches: "^/cart"}, no, ""},
		{"title", scoring.Predicate{TitleMatches: "(?i)review"}, yes, ""},
		{"visible", scoring.Predicate{Visible: "#total"}, yes, ""},
		{"visible but hidden", scoring.Predicate{Visible: "#hidden"}, no, ""},
		{"hidden", scoring.Predicate{Hidden: "#hidden"}, yes, ""},
		{"hidden when missing", scoring.Predicate{Hidden: "#missing"}, yes, ""},
		{"text equals, spaces folded", scoring.Predicate{Text: &scoring.TextMatch{Selector: "#total", Equals: "Total: 42.00 EUR"}}, yes, ""},
		{"text contains, any case", scoring.Predicate{Text: &scoring.TextMatch{Selector: "#total", Contains: "total: 42"}}, yes, ""},
		{"text matches", scoring.Predicate{Text: &scoring.TextMatch{Selector: "#total", Matches: `\d+\.\d\d EUR$`}}, yes, ""},
		{"text of a missing element", scoring.Predicate{Text: &scoring.TextMatch{Selector: "#missing", Contains: "x"}}, no, ""},
		{"page text", scoring.Predicate{Text: &scoring.TextMatch{Contains: "42.00"}}, yes, ""},
		{"value", scoring.Predicate{Value: &scoring.TextMatch{Selector: "#qty", Equals: "5"}}, yes, ""},
		{"count equals", scoring.Predicate{Count: &scoring.CountMatch{Selector: ".line", Equals: intp(3)}}, yes, ""},
		{"count range", scoring.Predicate{Count: &scoring.CountMatch{Selector: ".line", Min: intp(1), Max: intp(2)}}, no, ""},
		{"count any", scoring.Predicate{Count: &scoring.CountMatch{Selector: ".line"}}, yes, ""},
		{"request seen by class", scoring.Predicate{RequestSeen: &scoring.RequestMatch{Method: "post", URL: "/api/cart$", Status: "2xx"}}, yes, ""},
		{"request seen, other status", scoring.Predicate{RequestSeen: &scoring.RequestMatch{URL: "/api/cart$", Status: "200"}}, no, ""},
		{"js", scoring.Predicate{JS: "window.ok"}, yes, ""},
		{"js that threw", scoring.Predicate{JS: "window.bad"}, no, "ReferenceError"},
		{"a broken probe", scoring.Predicate{Visible: "#broken"}, no, "bad selector"},
		{"an unasked probe", scoring.Predicate{Visible: "#never"}, no, "no answer"},
		{"all", scoring.Predicate{All: []scoring.Predicate{{URLMatches: "review"}, {Visible: "#total"}}}, yes, ""},
		{"all with one false", scoring.Predicate{All: []scoring.Predicate{{URLMatches: "review"}, {Visible: "#hidden"}}}, no, ""},
		{"any past an error", scoring.Predicate{Any: []scoring.Predicate{{JS: "window.bad"}, {Visible: "#total"}}}, yes, ""},
		{"any all false keeps the error", scoring.Predicate{Any: []scoring.Predicate{{JS: "window.bad"}, {Visible: "#hidden"}}}, no, "ReferenceError"},
		{"not", scoring.Predicate{Not: &scoring.Predicate{Visible: "#hidden"}}, yes, ""},
		{"not of an error is false", scoring.Predicate{Not: &scoring.Predicate{Visible: "#broken"}}, no, "bad selector"},
		{"no kind", scoring.Predicate{}, no, "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.p.Eval(f)
			if got != tc.want {
				t.Errorf("Eval = %v, want %v (err %v)", got, tc.want, err)
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.wantErr))):
				t.Errorf("error %v, want one naming %q", err, tc.wantErr)
			}
		})
	}
}
