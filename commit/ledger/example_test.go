package ledger_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
)

// The committer's use of the ledger: record the intent before the side
// effect, count the attempt, record the outcome; a second run asking for the
// same purchase finds it already committed.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "ledger-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	l, err := ledger.Open(ctx, filepath.Join(dir, "ledger.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()

	unlock, err := l.Lock(ctx) // one committer at a time
	if err != nil {
		fmt.Println(err)
		return
	}
	defer unlock()

	payload := json.RawMessage(`{"plan":"team","seats":10,"billing":"annual"}`)
	key, _ := ledger.IdempotencyKey("saas-demo", "checkout", payload)
	in := ledger.Intent{Key: key, RunID: "run-1", BranchID: "branch-7", Site: "saas-demo", Flow: "checkout", Payload: payload}

	e, created, err := l.Intent(ctx, in)
	fmt.Println(e.State, created, err)
	e, _ = l.Attempt(ctx, key)
	// ... place the order carrying key, extract the confirmation ...
	e, err = l.Finalize(ctx, key, ledger.Outcome{State: ledger.StateCommitted, OrderID: "ORD-1001"})
	fmt.Println(e.State, e.OrderID, e.Attempts, err)

	in.RunID = "run-2"
	e, created, err = l.Intent(ctx, in)
	fmt.Println(e.State, created, err)
	fmt.Println(l.Verify(ctx, nil))
	// Output:
	// intent true <nil>
	// committed ORD-1001 1 <nil>
	// committed false <nil>
	// <nil>
}
