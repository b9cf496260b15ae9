package task

import (
	"reflect"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

func TestFormatActionParsesBack(t *testing.T) {
	cases := []branch.Action{
		{Kind: branch.KindClick, Target: &branch.Target{Role: "button", Name: "Add New User"}},
		{Kind: branch.KindClick, Target: &branch.Target{Text: "Log: out"}},
		{Kind: branch.KindType, Target: &branch.Target{Field: "email"}, Input: "email"},
		{Kind: branch.KindType, Target: &branch.Target{ID: "seats"}, Value: "10"},
		{Kind: branch.KindSelect, Target: &branch.Target{CSS: "form > select:nth-of-type(2)"}, Value: "true"},
		{Kind: branch.KindNavigate, URL: "http://127.0.0.1:1/a?b=c#d"},
		{Kind: branch.KindKeyPress, Value: "Enter"},
	}
	for _, want := range cases {
		src := FormatAction(want)
		got, err := ParseAction("test", src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s parsed back as %+v (target %+v), want %+v (target %+v)", src, got, got.Target, want, want.Target)
		}
	}
}
