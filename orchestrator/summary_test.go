package orchestrator_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// TestSummaryJSON: a summary's durations are whole milliseconds in JSON,
// as every --json writes them, and read back the same.
func TestSummaryJSON(t *testing.T) {
	s := orchestrator.Summary{RunID: "01R", Task: "t", Status: "committed", Elapsed: 12345 * time.Millisecond,
		Explore: 9 * time.Second, CPU: 3500 * time.Millisecond, ExploreCPU: 2 * time.Second,
		Minimal: &orchestrator.MinimalInfo{Steps: 3, WinnerSteps: 4}}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	for _, want := range []string{`"elapsed_ms":12345`, `"explore_ms":9000`, `"cpu_ms":3500`, `"explore_cpu_ms":2000`, `"run_id":"01R"`, `"minimal_plan":{`} {
		if !strings.Contains(out, want) {
			t.Errorf("JSON lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "_ns") {
		t.Errorf("JSON still counts nanoseconds:\n%s", out)
	}
	var back orchestrator.Summary
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, s) {
		t.Errorf("read back %+v, want %+v", back, s)
	}
}
