package branch

import "testing"

// TestElementKindPredicates pins which kinds take text and which of them
// are one line, for every kind the browser reports.
func TestElementKindPredicates(t *testing.T) {
	for _, tc := range []struct {
		kind       ElementKind
		text, line bool
	}{
		{ElemTextbox, true, true},
		{ElemSearch, true, true},
		{ElemEmail, true, true},
		{ElemNumber, true, true},
		{ElemTextarea, true, false},
		{ElemLink, false, false},
		{ElemButton, false, false},
		{ElemSelect, false, false},
		{ElemCheckbox, false, false},
		{ElemRadio, false, false},
		{ElemSwitch, false, false},
		{ElemSlider, false, false},
		{ElemSpinbutton, false, false},
		{ElemCombobox, false, false},
		{ElemListbox, false, false},
		{ElemOption, false, false},
		{ElemMenuitem, false, false},
		{ElemTab, false, false},
		{ElemTreeitem, false, false},
		{ElemClickable, false, false},
		{ElemMenu, false, false},
		{"", false, false},
		{"hidden", false, false},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			if got := tc.kind.TakesText(); got != tc.text {
				t.Errorf("TakesText() = %v, want %v", got, tc.text)
			}
			if got := tc.kind.SingleLine(); got != tc.line {
				t.Errorf("SingleLine() = %v, want %v", got, tc.line)
			}
		})
	}
}
