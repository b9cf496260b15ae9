package branch

import "testing"

func TestTargetSelector(t *testing.T) {
	for _, c := range []struct {
		t    Target
		want string
	}{
		{Target{TestID: "a", Role: "button", Name: "A"}, "testid=a"},
		{Target{AriaLabel: "Close"}, "aria-label=Close"},
		{Target{Role: "link", Name: "Pricing", ID: "p"}, `role=link "Pricing"`},
		{Target{ID: "seats", Field: "seats"}, "#seats"},
		{Target{Field: "email"}, "field=email"},
		{Target{Text: "Buy"}, `text="Buy"`},
		{Target{CSS: "main > a"}, "css=main > a"},
		{Target{}, "(no selector)"},
	} {
		if got := c.t.Selector(); got != c.want {
			t.Errorf("Selector(%+v) = %q, want %q", c.t, got, c.want)
		}
	}
	if got := (*Target)(nil).Selector(); got != "" {
		t.Errorf("a nil target's selector is %q", got)
	}
}
