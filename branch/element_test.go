package branch

import "testing"

// TestElementKindPredicates pins which kinds take text, which of them are
// one line, and which hold a value, for every kind the browser reports.
func TestElementKindPredicates(t *testing.T) {
	for _, tc := range []struct {
		kind              ElementKind
		text, line, value bool
	}{
		{ElemTextbox, true, true, true},
		{ElemSearch, true, true, true},
		{ElemEmail, true, true, true},
		{ElemNumber, true, true, true},
		{ElemTextarea, true, false, true},
		{ElemLink, false, false, false},
		{ElemButton, false, false, false},
		{ElemSelect, false, false, true},
		{ElemCheckbox, false, false, true},
		{ElemRadio, false, false, true},
		{ElemSwitch, false, false, true},
		{ElemSlider, false, false, true},
		{ElemSpinbutton, false, false, true},
		{ElemCombobox, false, false, true},
		{ElemListbox, false, false, true},
		{ElemOption, false, false, false},
		{ElemMenuitem, false, false, false},
		{ElemTab, false, false, false},
		{ElemTreeitem, false, false, false},
		{ElemClickable, false, false, false},
		{ElemMenu, false, false, false},
		{"", false, false, false},
		{"hidden", false, false, false},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			if got := tc.kind.TakesText(); got != tc.text {
				t.Errorf("TakesText() = %v, want %v", got, tc.text)
			}
			if got := tc.kind.SingleLine(); got != tc.line {
				t.Errorf("SingleLine() = %v, want %v", got, tc.line)
			}
			if got := tc.kind.HoldsValue(); got != tc.value {
				t.Errorf("HoldsValue() = %v, want %v", got, tc.value)
			}
		})
	}
}
