package branch

import "testing"

func TestDigestFoldsOriginAndIgnoresGeometry(t *testing.T) {
	a := Plan{{Kind: KindNavigate, URL: "http://127.0.0.1:8555/"},
		{Kind: KindClick, Target: &Target{TestID: "nav-pricing", Box: &Box{X: 1}}, Label: "click Pricing"}}
	b := Plan{{Kind: KindNavigate, URL: "http://127.0.0.1:9999/"},
		{Kind: KindClick, Target: &Target{TestID: "nav-pricing", Box: &Box{X: 2}}, Label: "other label"}}
	if a.Digest("t", "http://127.0.0.1:8555") != b.Digest("t", "http://127.0.0.1:9999") {
		t.Fatal("digest depends on the origin, box or label")
	}
	if a.Digest("t", "http://127.0.0.1:8555") == a.Digest("u", "http://127.0.0.1:8555") {
		t.Fatal("digest ignores the task digest")
	}
	c := a.Extend(Action{Kind: KindType, Target: &Target{ID: "seats"}, Input: "seats"})
	if len(a) != 2 || len(c) != 3 {
		t.Fatal("Extend modified its receiver")
	}
	if c.Digest("t", "") == a.Digest("t", "") {
		t.Fatal("extension has the same digest")
	}
}

func TestSeedFor(t *testing.T) {
	if SeedFor(7, "abc") != SeedFor(7, "abc") {
		t.Fatal("seed is not a pure function")
	}
	if SeedFor(7, "abc") == SeedFor(8, "abc") || SeedFor(7, "abc") == SeedFor(7, "abd") {
		t.Fatal("seed ignores an input")
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		a  Action
		ok bool
	}{
		{Action{Kind: KindNavigate, URL: "http://x/"}, true},
		{Action{Kind: KindNavigate}, false},
		{Action{Kind: "fly"}, false},
		{Action{Kind: KindClick}, false},
		{Action{Kind: KindClick, Target: &Target{Role: "button"}}, false},
		{Action{Kind: KindClick, Target: &Target{Role: "button", Name: "Go"}}, true},
		{Action{Kind: KindType, Target: &Target{ID: "q"}}, false},
		{Action{Kind: KindType, Target: &Target{ID: "q"}, Input: "email"}, true},
		{Action{Kind: KindSet, Target: &Target{ID: "volume"}, Value: "40"}, true},
		{Action{Kind: KindSet, Target: &Target{ID: "volume"}}, false},
		{Action{Kind: KindSet, Value: "40"}, false},
	}
	for i, c := range cases {
		if err := c.a.Validate(); (err == nil) != c.ok {
			t.Errorf("case %d: %+v: err = %v", i, c.a, err)
		}
	}
}
