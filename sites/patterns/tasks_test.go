package patterns_test

import (
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/sites/patterns"
)

// TestTasks: every task file of the site parses with the site's address
// in place of the placeholder, and an unknown one is an error naming it.
func TestTasks(t *testing.T) {
	names, err := fs.Glob(os.DirFS("testdata"), "*.yaml")
	if err != nil || len(names) == 0 {
		t.Fatalf("task files: %v %v", names, err)
	}
	for _, name := range names {
		tk, err := patterns.Task(name, "http://127.0.0.1:5")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !strings.HasPrefix(tk.StartURL, "http://127.0.0.1:5/") {
			t.Errorf("%s: start_url %s", name, tk.StartURL)
		}
	}
	if _, err := patterns.Task("nope.yaml", "http://127.0.0.1:5"); err == nil || !strings.Contains(err.Error(), "nope.yaml") {
		t.Errorf("an unknown task: %v", err)
	}
}
