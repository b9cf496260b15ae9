package orchestrator_test

import (
	"time"

	"github.com/multiverse-orchestrator/multiverse/browser"
)

func stepAt(step int, t time.Time) browser.StepResult {
	return browser.StepResult{Step: step, Status: browser.StatusOK, Start: t, End: t}
}
