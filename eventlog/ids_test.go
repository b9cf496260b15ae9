package eventlog_test

import (
	"context"
	"slices"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// idsLog holds two runs whose ids share a prefix, branches that share
// prefixes within and across runs, and one mixed-case id that is no ULID.
func idsLog(t *testing.T) *eventlog.Log {
	t.Helper()
	l, _ := openLog(t)
	for _, e := range []eventlog.Event{
		{RunID: "01JRUNAAAA", Kind: eventlog.KindRunStart},
		{RunID: "01JRUNAAAA", Kind: eventlog.KindBranchFork, BranchID: "01JBRAAA01"},
		{RunID: "01JRUNAAAA", Kind: eventlog.KindBranchFork, BranchID: "01JBRAAA02"},
		{RunID: "01JRUNAAAA", Kind: eventlog.KindNav, BranchID: "01JBRAAA02"},
		{RunID: "01JRUNBBBB", Kind: eventlog.KindRunStart},
		{RunID: "01JRUNBBBB", Kind: eventlog.KindBranchFork, BranchID: "01JBRBBB01"},
		{RunID: "01JRUNBBBB", Kind: eventlog.KindBranchFork, BranchID: "01JBRAAA03"},
		{RunID: "run-Mixed", Kind: eventlog.KindRunStart},
		{RunID: "run-Mixed", Kind: eventlog.KindBranchFork, BranchID: "br-Mixed"},
	} {
		e.Time = t0
		mustAppend(t, l, e)
	}
	return l
}

func TestRunIDs(t *testing.T) {
	l := idsLog(t)
	tests := []struct {
		name, prefix string
		limit        int
		want         []string
	}{
		{"full id", "01JRUNAAAA", 0, []string{"01JRUNAAAA"}},
		{"unique prefix", "01JRUNB", 0, []string{"01JRUNBBBB"}},
		{"lower case", "01jrunb", 0, []string{"01JRUNBBBB"}},
		{"ambiguous", "01JRUN", 0, []string{"01JRUNAAAA", "01JRUNBBBB"}},
		{"limit", "01JRUN", 1, []string{"01JRUNAAAA"}},
		{"mixed case as given", "run-M", 0, []string{"run-Mixed"}},
		{"mixed case upper-cased is another id", "RUN-M", 0, nil},
		{"unknown", "01JX", 0, nil},
		{"empty prefix matches nothing", "", 0, nil},
		{"longer than any id", "01JRUNAAAAA", 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := l.RunIDs(context.Background(), tc.prefix, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("RunIDs(%q, %d) = %q, want %q", tc.prefix, tc.limit, got, tc.want)
			}
		})
	}
}

func TestBranchIDs(t *testing.T) {
	l := idsLog(t)
	ref := func(run, br string) eventlog.BranchRef { return eventlog.BranchRef{RunID: run, BranchID: br} }
	tests := []struct {
		name, run, prefix string
		limit             int
		want              []eventlog.BranchRef
	}{
		{"in a run", "01JRUNAAAA", "01JBRAAA01", 0, []eventlog.BranchRef{ref("01JRUNAAAA", "01JBRAAA01")}},
		{"ambiguous in a run, each branch once", "01JRUNAAAA", "01JBRAAA", 0,
			[]eventlog.BranchRef{ref("01JRUNAAAA", "01JBRAAA01"), ref("01JRUNAAAA", "01JBRAAA02")}},
		{"every run", "", "01JBRAAA", 0, []eventlog.BranchRef{ref("01JRUNAAAA", "01JBRAAA01"),
			ref("01JRUNAAAA", "01JBRAAA02"), ref("01JRUNBBBB", "01JBRAAA03")}},
		{"every run, limit", "", "01JBRAAA", 2, []eventlog.BranchRef{ref("01JRUNAAAA", "01JBRAAA01"), ref("01JRUNAAAA", "01JBRAAA02")}},
		{"lower case", "", "01jbrbbb", 0, []eventlog.BranchRef{ref("01JRUNBBBB", "01JBRBBB01")}},
		{"mixed case", "", "br-M", 0, []eventlog.BranchRef{ref("run-Mixed", "br-Mixed")}},
		{"other run's branch", "01JRUNAAAA", "01JBRBBB", 0, nil},
		{"unknown run", "01JNONE", "01JBR", 0, nil},
		{"empty prefix matches nothing", "01JRUNAAAA", "", 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := l.BranchIDs(context.Background(), tc.run, tc.prefix, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("BranchIDs(%q, %q, %d) = %v, want %v", tc.run, tc.prefix, tc.limit, got, tc.want)
			}
		})
	}
}

func TestBranchIDsEnding(t *testing.T) {
	l := idsLog(t)
	ref := func(run, br string) eventlog.BranchRef { return eventlog.BranchRef{RunID: run, BranchID: br} }
	tests := []struct {
		name, run, suffix string
		want              []eventlog.BranchRef
	}{
		{"in a run", "01JRUNAAAA", "A01", []eventlog.BranchRef{ref("01JRUNAAAA", "01JBRAAA01")}},
		{"every run", "", "01", []eventlog.BranchRef{ref("01JRUNAAAA", "01JBRAAA01"), ref("01JRUNBBBB", "01JBRBBB01")}},
		{"lower case", "", "b01", []eventlog.BranchRef{ref("01JRUNBBBB", "01JBRBBB01")}},
		{"whole id", "", "br-Mixed", []eventlog.BranchRef{ref("run-Mixed", "br-Mixed")}},
		{"unknown", "", "ZZ", nil},
		{"empty suffix matches nothing", "", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := l.BranchIDsEnding(context.Background(), tc.run, tc.suffix, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("BranchIDsEnding(%q, %q) = %v, want %v", tc.run, tc.suffix, got, tc.want)
			}
		})
	}
}

// TestBranchIDsRandom: two branches of one run share their ULID time; a
// prefix of the random part after it tells them apart, in either case.
func TestBranchIDsRandom(t *testing.T) {
	l, _ := openLog(t)
	const run = "01M8EAH2AMHYGZZJG95TW3GGMD"
	a, b := "01M8EAHEEZDREN7YYJV5HX64XJ", "01M8EAHEEZ9F3K2QW8V1T0RB7C"
	for _, e := range []eventlog.Event{{RunID: run, Kind: eventlog.KindRunStart},
		{RunID: run, Kind: eventlog.KindBranchFork, BranchID: a}, {RunID: run, Kind: eventlog.KindBranchFork, BranchID: b},
		{RunID: run, Kind: eventlog.KindBranchFork, BranchID: "short"}} {
		e.Time = t0
		mustAppend(t, l, e)
	}
	ref := func(br string) eventlog.BranchRef { return eventlog.BranchRef{RunID: run, BranchID: br} }
	for _, tc := range []struct {
		name, part string
		want       []eventlog.BranchRef
	}{
		{"unique", "DREN", []eventlog.BranchRef{ref(a)}},
		{"lower case", "9f3k", []eventlog.BranchRef{ref(b)}},
		{"the time is not the random part", "01M8", nil},
		{"not at its start", "REN7", nil},
		{"empty matches nothing", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := l.BranchIDsRandom(context.Background(), run, tc.part, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("BranchIDsRandom(%q) = %v, want %v", tc.part, got, tc.want)
			}
		})
	}
}
