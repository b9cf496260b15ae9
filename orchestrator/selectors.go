package orchestrator

import (
	"context"
	"errors"
	"sync"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// checkSelectors has the browser parse every selector of the task with the
// engine that will evaluate it, before exploration starts: a selector the
// browser rejects is a task error (file, line, field; exit 2), not a probe
// that silently never matches or a confirmation that cannot be read.
func checkSelectors(ctx context.Context, rt *browser.Runtime, t *task.Task, known *ValidSelectors) error {
	var sels []task.Selector
	for _, s := range t.Selectors() {
		if !known.holds(s) {
			sels = append(sels, s)
		}
	}
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
		} else {
			known.add(sels[i])
		}
	}
	return errors.Join(errs...)
}

// ValidSelectors remembers the selectors a browser found valid, so that
// a warm engine's runs check each once (a check opens a session of its
// own). Safe for concurrent use; the nil value remembers nothing.
type ValidSelectors struct {
	mu  sync.Mutex
	set map[string]bool
}

func selectorKey(s task.Selector) string { return s.Engine + "\x00" + s.Value }

func (v *ValidSelectors) holds(s task.Selector) bool {
	if v == nil {
		return false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.set[selectorKey(s)]
}

func (v *ValidSelectors) add(s task.Selector) {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.set == nil {
		v.set = map[string]bool{}
	}
	v.set[selectorKey(s)] = true
}
