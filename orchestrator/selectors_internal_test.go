package orchestrator

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// TestValidSelectorsCheckOnce: a warm engine's record of valid selectors
// keeps those the browser accepted, never one it refused, and a task
// whose selectors it all holds is checked without a browser session.
func TestValidSelectorsCheckOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rt, err := browser.Launch(ctx, browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	parse := func(success string) *task.Task {
		tk, err := task.Parse("sel.yaml", []byte("version: 1\nname: sel\nstart_url: http://127.0.0.1:1/\ngoal:\n  text: Confirm.\n  success:\n"+success))
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	var known ValidSelectors
	both := parse("    - {name: out, text: {selector: '#out', equals: Confirmed}}\n    - {name: bad, visible: '[[[['}\n")
	if err := checkSelectors(ctx, rt, both, &known); err == nil || !strings.Contains(err.Error(), "[[[[") {
		t.Fatalf("a selector the browser refuses: %v", err)
	}
	if !known.holds(task.Selector{Value: "#out", Engine: task.EngineCSS}) || known.holds(task.Selector{Value: "[[[[", Engine: task.EngineCSS}) {
		t.Fatalf("the record after one check: %v", known.set)
	}
	// Every selector known: no session is opened (a nil runtime would fail).
	if err := checkSelectors(ctx, nil, parse("    - {name: out, text: {selector: '#out', equals: Confirmed}}\n"), &known); err != nil {
		t.Fatalf("a task whose selectors are all known: %v", err)
	}
	if err := checkSelectors(ctx, rt, both, &known); err == nil {
		t.Fatal("a refused selector was remembered as valid")
	}
}
