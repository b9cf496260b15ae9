package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// TestSummaryCountsModelQuestions: the run summary, for people and with
// --json, counts the model planner's questions answered and fallen back.
func TestSummaryCountsModelQuestions(t *testing.T) {
	s := &orchestrator.Summary{RunID: "R", Task: "t", Status: "explored",
		Model: &orchestrator.ModelInfo{Mode: "live", Asked: 7, Answered: 4, FellBack: 3, Unanswered: 2}}
	var text bytes.Buffer
	printSummary(&text, s, nil, false)
	if want := "model     7 question(s) asked (live): 4 answered, 3 fell back to the heuristic's order (2 unanswered)"; !strings.Contains(text.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, text.String())
	}
	var js bytes.Buffer
	printSummary(&js, s, nil, true)
	var out struct {
		Summary struct {
			Model map[string]any `json:"model"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	m := out.Summary.Model
	if m["asked"] != 7.0 || m["answered"] != 4.0 || m["fell_back"] != 3.0 || m["unanswered"] != 2.0 || m["mode"] != "live" {
		t.Errorf("--json model = %v", m)
	}
	text.Reset()
	printSummary(&text, &orchestrator.Summary{RunID: "R"}, nil, false)
	if strings.Contains(text.String(), "model ") {
		t.Errorf("a heuristic run's summary speaks of a model:\n%s", text.String())
	}
}
