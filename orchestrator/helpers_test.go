package orchestrator_test

import (
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

func stepAt(step int, t time.Time) branch.StepResult {
	return branch.StepResult{Step: step, Status: branch.StatusOK, Start: t, End: t}
}
