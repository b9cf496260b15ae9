package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/sites/gym"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// TestEpisodesArePlainTasks: every family's episode, in both modes, is a
// valid task without commit whose success and failure are the page's own
// verdict, and the greedy mode is one branch on one worker.
func TestEpisodesArePlainTasks(t *testing.T) {
	for _, f := range gym.Families() {
		e, err := gym.New(f, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range modes {
			tk, err := task.Parse("gym.yaml", []byte(taskText("http://127.0.0.1:1", e, m)))
			if err != nil {
				t.Fatalf("%s %s: %v", f, m.Name, err)
			}
			if tk.HasCommit() || tk.Goal.Text != e.Goal || len(tk.Goal.Success) != 1 || len(tk.Goal.Failure) != 1 {
				t.Fatalf("%s %s: task %+v", f, m.Name, tk.Goal)
			}
			if m.Name == "greedy" && (tk.Search.Strategy != "greedy" || tk.Search.BeamWidth != 1 || tk.Search.Workers != 1) {
				t.Fatalf("greedy mode searches %+v", tk.Search)
			}
		}
	}
}

// TestSelectFamilies: -part and -families choose the families run; bad
// input is an error naming it.
func TestSelectFamilies(t *testing.T) {
	tuning, evaluation := gym.Split()
	for _, tc := range []struct {
		part, names string
		want        int
		err         string
	}{
		{"all", "", len(gym.Families()), ""},
		{"", "", len(gym.Families()), ""},
		{"tuning", "", len(tuning), ""},
		{"evaluation", "", len(evaluation), ""},
		{"all", tuning[0] + "," + evaluation[0], 2, ""},
		{"tuning", tuning[0] + "," + evaluation[0], 1, ""},
		{"evaluation", tuning[0], 0, "none of them"},
		{"tuning", "no-such", 0, `unknown family "no-such"`},
		{"some", "", 0, `-part "some"`},
	} {
		got, err := selectFamilies(tc.part, tc.names)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q %q: err %v, want %q", tc.part, tc.names, err, tc.err)
			}
			continue
		}
		if err != nil || len(got) != tc.want {
			t.Errorf("%q %q: %d families (%v), want %d", tc.part, tc.names, len(got), err, tc.want)
		}
		for _, f := range got {
			if tc.part == "evaluation" && !gym.Evaluation(f) || tc.part == "tuning" && gym.Evaluation(f) {
				t.Errorf("%q: %s is in the other part", tc.part, f)
			}
		}
	}
}

// TestReport: totals per part, over all and over the ambiguous
// families, and the ratio search/greedy, in JSON and in the table.
func TestReport(t *testing.T) {
	rows := []Row{
		{Family: "a", Part: PartTuning, Seeds: 10, Solved: map[string]int{"search": 10, "greedy": 9}},
		{Family: "b", Part: PartTuning, Ambiguous: true, Seeds: 10, Solved: map[string]int{"search": 9, "greedy": 3}},
		{Family: "c", Part: PartEvaluation, Pattern: true, Ambiguous: true, Seeds: 10, Solved: map[string]int{"search": 6, "greedy": 3}},
	}
	rep := report(rows)
	if tu := rep.Parts[PartTuning]; tu.Episodes != 20 || tu.Solved["search"] != 19 || tu.Percent["greedy"] != 60 {
		t.Errorf("tuning %+v", tu)
	}
	if ev := rep.Parts[PartEvaluation]; ev.Episodes != 10 || ev.Percent["search"] != 60 {
		t.Errorf("evaluation %+v", ev)
	}
	if rep.All.Episodes != 30 || rep.All.Solved["search"] != 25 || rep.SearchOverGreedy == nil || *rep.SearchOverGreedy != 2.5 {
		t.Errorf("all %+v, ambiguous %+v, ratio %v", rep.All, rep.Ambiguous, rep.SearchOverGreedy)
	}
	var b bytes.Buffer
	printTable(&b, rep)
	for _, want := range []string{"-- tuning families", "-- evaluation families", "c + *", "tuning total", "95.0% (19)", "evaluation total", "search/greedy = 2.50"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Index(b.String(), "-- tuning") > strings.Index(b.String(), "-- evaluation") {
		t.Error("evaluation printed before tuning")
	}
	js, err := json.Marshal(rep)
	if err != nil || !strings.Contains(string(js), `"parts":{"evaluation"`) || !strings.Contains(string(js), `"search_over_greedy":2.5`) {
		t.Errorf("json %s %v", js, err)
	}
}
