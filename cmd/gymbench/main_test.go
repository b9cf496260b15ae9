package main

import (
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
