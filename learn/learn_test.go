package learn

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.json")

const site = "http://127.0.0.1"

func click(testid string) branch.Action {
	return branch.Action{Kind: branch.KindClick, Target: &branch.Target{TestID: testid}}
}

func nav(u string) branch.Action { return branch.Action{Kind: branch.KindNavigate, URL: u} }

// twoRuns is a site taught by two runs: a slow and a fast way on.
func twoRuns() *Snapshot {
	s := Empty(site).Fold(Run{ID: "R1", Reached: true, Longest: 1, StallPruned: 2, Steps: []Measured{
		{Action: nav("http://127.0.0.1:4100/start"), MS: 300},
		{Page: "http://127.0.0.1:4100/start", Action: click("slow-continue"), MS: 2100},
		{Page: "http://127.0.0.1:4100/start", Action: click("fast-continue"), MS: 110},
		{Page: "http://127.0.0.1:4100/orders/1234?x=1", Action: click("pay"), MS: 90, Healed: "role"},
	}})
	return s.Fold(Run{ID: "R2", StallPruned: 1, Steps: []Measured{
		{Action: nav("http://127.0.0.1:4100/start"), MS: 280},
		{Page: "http://127.0.0.1:4100/start", Action: click("slow-continue"), MS: 1900},
		{Page: "http://127.0.0.1:4100/start", Action: click("slow-continue"), MS: 2000},
	}})
}

func TestFold(t *testing.T) {
	s := twoRuns()
	if s.Version != 2 || strings.Join(s.Runs, ",") != "R1,R2" {
		t.Fatalf("version %d runs %v, want 2 and R1,R2", s.Version, s.Runs)
	}
	d := s.Expect()
	for _, c := range []struct {
		page     string
		a        branch.Action
		ms       float64
		measured bool
	}{
		{"http://127.0.0.1:4100/start", click("slow-continue"), 2000, true},
		{"http://127.0.0.1:4100/start?again=1", click("fast-continue"), 110, true},
		{"", nav("http://127.0.0.1:9999/start"), 290, true},
		{"http://127.0.0.1:4100/orders/77", click("pay"), 90, true},
		// never measured: the median of the steps' medians (90, 110, 290, 2000)
		{"http://127.0.0.1:4100/start", click("back"), 200, false},
	} {
		ms, ok := d.StepMS(c.page, c.a)
		if ms != c.ms || ok != c.measured {
			t.Errorf("StepMS(%s, %s) = %v %v, want %v %v", c.page, c.a.Describe(), ms, ok, c.ms, c.measured)
		}
	}
	if ms, ok := d.SlowestMS(click("slow-continue")); ms != 2000 || !ok {
		t.Errorf("SlowestMS(slow-continue) = %v %v, want 2000 true", ms, ok)
	}
	if ms, ok := d.SlowestMS(click("back")); ms != 200 || ok {
		t.Errorf("SlowestMS(back) = %v %v, want the median 200, false", ms, ok)
	}
	for _, st := range s.Steps {
		switch st.Target {
		case "testid=slow-continue":
			if st.Runs != 2 || st.Last != 2 || len(st.MS) != 3 {
				t.Errorf("slow-continue: runs %d last %d samples %v, want 2, 2 and three samples", st.Runs, st.Last, st.MS)
			}
		case "testid=pay":
			if st.Page != "/orders/*" || st.Healed["role"] != 1 || st.Last != 1 {
				t.Errorf("pay: %+v, want page /orders/* healed by role once, last 1", st)
			}
		}
	}
	// R2 did not reach the boundary: the calibration starts over.
	if longest, runs := d.StallOnTheWay(); longest != 0 || runs != 0 || s.Stall.Pruned != 3 {
		t.Errorf("stall record %+v, on the way %d in %d runs; want none after a run that did not reach, 3 pruned", s.Stall, longest, runs)
	}
	r3 := s.Fold(Run{ID: "R3", Reached: true, Longest: 2})
	if longest, runs := r3.Expect().StallOnTheWay(); longest != 2 || runs != 1 {
		t.Errorf("after a run that reached with a stall of 2: %d in %d runs", longest, runs)
	}
	// A run stopped before its search ended leaves the calibration;
	// one that ended without reaching starts it over.
	if longest, runs := r3.Fold(Run{ID: "R4", Interrupted: true}).Expect().StallOnTheWay(); longest != 2 || runs != 1 {
		t.Errorf("after an interrupted run: %d in %d runs, want 2 in 1", longest, runs)
	}
	if longest, runs := r3.Fold(Run{ID: "R4"}).Expect().StallOnTheWay(); longest != 0 || runs != 0 {
		t.Errorf("after a run that did not reach: %d in %d runs, want none", longest, runs)
	}
	if (&Snapshot{}).Expect().MedianMS() != 0 {
		t.Error("an empty snapshot expects a duration")
	}
	if ms, ok := (*Expect)(nil).StepMS("", nav("x")); ms != 0 || ok {
		t.Error("nil durations answer")
	}
}

func TestFoldLeavesItsSnapshot(t *testing.T) {
	s := twoRuns()
	before := digest(s)
	s.Fold(Run{ID: "R3", Steps: []Measured{{Page: "http://127.0.0.1/start", Action: click("slow-continue"), MS: 5}}})
	if digest(s) != before {
		t.Fatal("Fold changed the snapshot it was called on")
	}
}

func TestBounds(t *testing.T) {
	s := Empty(site)
	for i := range MaxSamples + 3 {
		s = s.Fold(Run{ID: "R", Steps: []Measured{{Page: "http://h/p", Action: click("c"), MS: int64(i)}}})
	}
	if st := s.Steps[0]; len(st.MS) != MaxSamples || st.MS[0] != 3 || st.Runs != MaxSamples+3 {
		t.Fatalf("samples %v runs %d, want the latest %d and %d runs", st.MS, st.Runs, MaxSamples, MaxSamples+3)
	}
	for i := range MaxRuns + 5 {
		s = s.Fold(Run{ID: "R" + string(rune('a'+i%26))})
	}
	if len(s.Runs) != MaxRuns {
		t.Fatalf("%d run ids kept, want %d", len(s.Runs), MaxRuns)
	}
	var many []Measured
	for i := range MaxSteps + 10 {
		many = append(many, Measured{Page: "http://h/p", Action: click("b" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)), MS: 1})
	}
	s = s.Fold(Run{ID: "big", Steps: many})
	if len(s.Steps) != MaxSteps {
		t.Fatalf("%d steps kept, want %d", len(s.Steps), MaxSteps)
	}
	for _, st := range s.Steps {
		if st.Target == "testid=c" {
			t.Fatal("the step unused the longest was kept over newer ones")
		}
	}
}

func TestPage(t *testing.T) {
	for in, want := range map[string]string{
		"":                                   "",
		"http://a.test":                      "/",
		"http://a.test/orders/1234/receipt":  "/orders/*/receipt",
		"http://a.test/u/01JD3Q8ZK2M4N5P6Q7": "/u/*",
		"http://a.test/plans/team?seats=2#x": "/plans/team",
		"http://a.test/v2/items":             "/v2/items",
	} {
		if got := Page(in); got != want {
			t.Errorf("Page(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGolden(t *testing.T) {
	b, err := twoRuns().Encode()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "golden.json")
	if *update {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(want) {
		t.Fatalf("encoding differs from %s (go test ./learn -update):\n%s", path, b)
	}
	s, err := Decode(path, want)
	if err != nil {
		t.Fatal(err)
	}
	if digest(s) != digest(twoRuns()) {
		t.Fatal("the golden file does not decode to the snapshot it encodes")
	}
}

func TestDecodeRefuses(t *testing.T) {
	want := map[string]string{
		"format.json":        "format 2",
		"site.json":          "site: required",
		"negative-ms.json":   "steps[0].ms[1]: -5 is negative",
		"last-ahead.json":    "steps[0].last: 2",
		"twice.json":         "steps[1]: a second record",
		"unknown-field.json": `unknown field "durations"`,
		"no-samples.json":    "steps[0].ms: 0 samples",
		"trailing.json":      "data after the snapshot",
		"stall.json":         "stall.reached: 2 runs, more than the version 1",
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "bad", "*.json"))
	if len(files) != len(want) {
		t.Fatalf("%d bad fixtures, the test knows %d", len(files), len(want))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Decode(f, b)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), want[filepath.Base(f)]) || !strings.Contains(err.Error(), f) {
			t.Errorf("%s: %v, want ErrInvalid naming the file and %q", f, err, want[filepath.Base(f)])
		}
	}
}

func TestStore(t *testing.T) {
	ctx := context.Background()
	st := Open(filepath.Join(t.TempDir(), "learn"))
	s, err := st.Get(ctx, site)
	if err != nil || s.Version != 0 || len(s.Steps) != 0 {
		t.Fatalf("a site never taught: %+v %v, want the empty snapshot", s, err)
	}
	if err := st.Put(twoRuns()); err != nil {
		t.Fatal(err)
	}
	got, err := st.Get(ctx, site)
	if err != nil || digest(got) != digest(twoRuns()) {
		t.Fatalf("read back: %v (digest %s, want %s)", err, digest(got), digest(twoRuns()))
	}
	other := twoRuns()
	other.Site = "https://shop.test"
	if err := os.WriteFile(st.Path("https://elsewhere.test"), must(other.Encode()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, "https://elsewhere.test"); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "not https://elsewhere.test") {
		t.Fatalf("a file of another site: %v", err)
	}
	bad := twoRuns()
	bad.Steps[0].MS = nil
	if err := st.Put(bad); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Put of an invalid snapshot: %v", err)
	}
}

// digest is s's canonical encoding, for comparing snapshots.
func digest(s *Snapshot) string { return string(must(s.Encode())) }

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
