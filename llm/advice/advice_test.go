package advice

import (
	"fmt"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/planner"
)

func TestParse(t *testing.T) {
	q := planner.Query{Menu: make([]planner.Candidate, 3), Fields: make([]branch.Affordance, 1)}
	cases := []struct {
		content, want, err string
	}{
		{`{"ranking":[2,0],"values":[]}`, "[2 0] map[]", ""},
		{` {"ranking":[1,1,0],"values":[{"id":3,"value":"Acme"}]} `, "[1 0 3] map[3:Acme]", ""},
		{`{"ranking":[3],"values":[{"id":3,"value":"Acme"}]}`, "[3] map[3:Acme]", ""},
		{"```json\n{\"ranking\":[2],\"values\":[]}\n```", "[2] map[]", ""},
		{`{"ranking":[4],"values":[]}`, "", "names 4"},
		{`{"ranking":[-1],"values":[]}`, "", "names -1"},
		{`{"ranking":[0],"values":[{"id":1,"value":"x"}]}`, "", "not an empty field"},
		{`{"ranking":[0],"values":[],"why":"x"}`, "", "unknown field"},
		{`I would click the first one`, "", "invalid character"},
	}
	for _, tc := range cases {
		adv, err := Parse(tc.content, q)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err = %v, want %q", tc.content, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.content, err)
			continue
		}
		if got := fmt.Sprint(adv.Order, " ", adv.Values); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.content, got, tc.want)
		}
	}
}

func TestRequestIsStable(t *testing.T) {
	obs := &branch.Observation{URL: "http://shop.test/plans", Title: "Plans", Predicates: map[string]bool{"b": true, "a": false}}
	q := planner.Query{Goal: "buy  the\nteam plan", Done: []string{"open the start page"}, Obs: obs,
		Menu: []planner.Candidate{{Action: branch.Action{Kind: branch.KindClick, Label: "click \"Team\""}}}}
	p := Params{Model: "m", MaxTokens: 100}
	a, b := Request(q, p), Request(q, p)
	fa, _ := a.Fingerprint()
	fb, _ := b.Fingerprint()
	if fa != fb || a.PromptVersion != PromptVersion || len(PromptVersion) != 16 {
		t.Fatalf("fingerprints %s %s, version %q", fa, fb, a.PromptVersion)
	}
	u := a.Messages[1].Content
	for _, want := range []string{"Goal: buy the team plan", "1. open the start page", "Goal checks on this page: a=false b=true", `[0] click "Team"`} {
		if !strings.Contains(u, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, u)
		}
	}
}

// TestRequestIgnoresThePort: the same page of the same site served on
// another port is the same question (a cassette recorded on one port
// answers on the next); another site is not.
func TestRequestIgnoresThePort(t *testing.T) {
	ask := func(site, url string) string {
		q := planner.Query{Goal: "open the plans", Site: site, Obs: &branch.Observation{URL: url, Title: "Plans"},
			Menu: []planner.Candidate{{Action: branch.Action{Kind: branch.KindClick, Label: "click \"Team\""}}}}
		f, err := Request(q, Params{Model: "m"}).Fingerprint()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	a := ask("http://127.0.0.1:8555", "http://127.0.0.1:8555/plans?x=1")
	if b := ask("http://127.0.0.1:40211", "http://127.0.0.1:40211/plans?x=1"); a != b {
		t.Errorf("another port is another question: %s vs %s", a, b)
	}
	if c := ask("http://127.0.0.1:8555", "http://127.0.0.1:85556/plans?x=1"); a == c {
		t.Error("a page off the site is asked as if on it")
	}
}
