package orchestrator_test

import (
	"fmt"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

func ExampleReplayCommand() {
	fmt.Println(orchestrator.ReplayCommand(".multiverse/bundles/01RUN/01BRANCH.bundle"))
	fmt.Println(orchestrator.ReplayCommand("/tmp/ci data/it's.bundle"))
	// Output:
	// orchestrator replay .multiverse/bundles/01RUN/01BRANCH.bundle
	// orchestrator replay '/tmp/ci data/it'\''s.bundle'
}
