package orchestrator

import (
	"context"
	"errors"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// checkSelectors has the browser parse every selector of the task with the
// engine that will evaluate it, before exploration starts: a selector the
// browser rejects is a task error (file, line, field; exit 2), not a probe
// that silently never matches or a confirmation that cannot be read.
func checkSelectors(ctx context.Context, rt *browser.Runtime, t *task.Task) error {
	sels := t.Selectors()
	if len(sels) == 0 {
		return nil
	}
	checks := make([]browser.SelectorCheck, len(sels))
	for i, s := range sels {
		checks[i] = browser.SelectorCheck{Value: s.Value, Locator: s.Engine == task.EngineLocator}
	}
	sess, err := rt.NewSession(ctx, browser.SessionOptions{})
	if err != nil {
		return err
	}
	defer sess.Close()
	msgs, err := sess.InvalidSelectors(ctx, checks)
	if err != nil {
		return err
	}
	var errs []error
	for i, m := range msgs {
		if m != "" {
			errs = append(errs, t.SelectorError(sels[i], m))
		}
	}
	return errors.Join(errs...)
}
