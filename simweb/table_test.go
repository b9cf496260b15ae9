package simweb

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestTable(t *testing.T) {
	results := []Outcome{
		{Site: 1, Strategy: "beam", Success: true, Actions: 30, SimTime: 3 * time.Second, CostSpent: 30, CostBudget: 400},
		{Site: 2, Trap: true, Strategy: "beam", Success: true, Actions: 51, SimTime: 5 * time.Second, CostSpent: 51, CostBudget: 400},
		{Site: 1, Strategy: "greedy", Success: true, Actions: 6, SimTime: time.Second, CostSpent: 6, CostBudget: 400},
		{Site: 2, Trap: true, Strategy: "greedy", Actions: 4, SimTime: 2 * time.Second, CostSpent: 403.5, CostBudget: 400, Overrun: 3.5, Exhausted: "frontier empty"},
		{Site: 1, Strategy: "teleport", Error: "task: unknown strategy"},
		{Site: 2, Strategy: "teleport", Error: "task: unknown strategy"},
	}
	got := Table(results)
	golden := filepath.Join("testdata", "table.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("table:\n%s\nwant:\n%s", got, want)
	}
	sums := Summarize(results)
	if len(sums) != 3 || sums[0].Strategy != "beam" || sums[0].SuccessRate != 1 || sums[0].MeanSimTime != 4*time.Second ||
		sums[1].TrapSuccessRate != 0 || sums[1].Overruns != 1 || sums[1].MaxOverrun != 3.5 || sums[2].Available() {
		t.Fatalf("summaries %+v", sums)
	}
}
