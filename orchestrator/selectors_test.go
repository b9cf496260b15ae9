package orchestrator_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/examples"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/sites"
	"github.com/multiverse-orchestrator/multiverse/task"
)

const checkoutTask = "team-checkout.yaml"

// checkoutTaskFrom parses the short example task (it starts at the
// checkout), edited by edit, against the site at url.
func checkoutTaskFrom(t *testing.T, url string, edit func(string) string) *task.Task {
	t.Helper()
	data, err := examples.FS.ReadFile(checkoutTask)
	if err != nil {
		t.Fatal(err)
	}
	src := string(data)
	if edit != nil {
		src = edit(src)
	}
	tk, err := task.Parse(checkoutTask, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if tk, err = tk.WithStartURL(url + "/checkout?plan=team&billing=monthly"); err != nil {
		t.Fatal(err)
	}
	return tk
}

// TestInvalidSelectorFailsBeforeExploring: a selector the browser cannot
// parse (here the confirmation token, which decides whether an order was
// confirmed) fails the run before anything is explored or sent, naming
// the file, line and field, with exit code 2.
func TestInvalidSelectorFailsBeforeExploring(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	s := startSite(t, sites.Knobs{})
	tk := checkoutTaskFrom(t, s.URL(), func(src string) string {
		return strings.Replace(src, "token: '[data-testid=order-id]'", "token: '[[[['", 1)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: t.TempDir(), Workers: 1, NoScreenshots: true})
	if orchestrator.ExitCode(err) != orchestrator.ExitBadInput {
		t.Fatalf("exit code %d (%v), want %d", orchestrator.ExitCode(err), err, orchestrator.ExitBadInput)
	}
	src, _ := examples.FS.ReadFile(checkoutTask)
	line := 1 + strings.Count(string(src[:strings.Index(string(src), "token: '[data-testid=order-id]'")]), "\n")
	if want := fmt.Sprintf("%s:%d: commit.confirm.token: \"[[[[\" is not a valid CSS selector", checkoutTask, line); !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not contain %q", err, want)
	}
	if n := len(s.Vendor.Orders()); n != 0 {
		t.Fatalf("the site holds %d orders", n)
	}
}
