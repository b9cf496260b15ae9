package browser

import (
	"testing"
	"time"
)

func TestSentLedger(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		name     string
		seen     []string // before the drain
		reported []string
		after    []string // seen after the drain
		at       time.Duration
		owes     bool
	}{
		{name: "seen before reported", seen: []string{"http://a/x"}, reported: []string{"http://a/x"}, owes: false},
		{name: "reported, not seen", reported: []string{"http://a/x"}, owes: true},
		{name: "reported, seen after", reported: []string{"http://a/x"}, after: []string{"http://a/x"}, owes: false},
		{name: "twice reported, once seen", seen: []string{"http://a/x"}, reported: []string{"http://a/x", "http://a/x"}, owes: true},
		{name: "seen another", seen: []string{"http://a/y"}, reported: []string{"http://a/x"}, owes: true},
		{name: "given up", reported: []string{"http://a/x"}, at: owedWait, owes: false},
		{name: "nothing", owes: false},
		{name: "a document left, its navigation not seen yet", reported: []string{navSent}, owes: true},
		{name: "a document left, its navigation seen after", reported: []string{navSent}, after: []string{navSent}, owes: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l sentLedger
			for _, u := range tc.seen {
				l.saw(u)
			}
			l.reported(tc.reported, t0)
			for _, u := range tc.after {
				l.saw(u)
			}
			if got := l.owes(t0.Add(tc.at)); got != tc.owes {
				t.Errorf("owes %v, want %v", got, tc.owes)
			}
		})
	}
	// What was seen and not reported is forgotten at the drain: a later
	// report of that URL is a new request.
	var l sentLedger
	l.saw("http://a/img.png")
	l.reported(nil, t0)
	l.reported([]string{"http://a/img.png"}, t0)
	if !l.owes(t0) {
		t.Error("a request seen before an earlier drain matched a later report")
	}
}
