package act

import (
	"context"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Page is what Do needs of a page: the page-level operations and the
// resolution of a target to an element. A method that fails returns an
// *Error when it knows the stable code, else its runtime's own error,
// which Do returns unchanged.
type Page interface {
	// Navigate loads url in the page.
	Navigate(ctx context.Context, url string) error
	// Scroll scrolls the page by dy CSS pixels (positive is down).
	Scroll(ctx context.Context, dy float64) error
	// Eval runs script in the page.
	Eval(ctx context.Context, script string) error
	// Press presses key on whatever has the focus.
	Press(ctx context.Context, key string) error
	// Wait lets d pass on the page's clock.
	Wait(ctx context.Context, d time.Duration) error
	// Resolve finds the one element t names and the name of the strategy
	// that found it (testid, aria_label, role, id, field, text, css),
	// prefixed "healed:" when an earlier strategy of t no longer
	// resolved. It fails with selector_not_found, element_hidden, or
	// whatever the page says when no page is open.
	Resolve(ctx context.Context, t *branch.Target) (Element, string, error)
}

// Element is an element a Page resolved: the operations of the actions
// that have a target.
type Element interface {
	// Click clicks the element.
	Click(ctx context.Context) error
	// Fill replaces the text of a text field with text.
	Fill(ctx context.Context, text string) error
	// Select selects the option of a select element whose value is
	// value, else the one whose label is.
	Select(ctx context.Context, value string) error
	// SetChecked checks or unchecks a checkbox or radio button.
	SetChecked(ctx context.Context, checked bool) error
	// Focus focuses the element.
	Focus(ctx context.Context) error
	// Hover moves the pointer over the element.
	Hover(ctx context.Context) error
	// Press presses key with the element focused.
	Press(ctx context.Context, key string) error
	// Set makes the control hold value the way a person would (see
	// branch.KindSet) and says how it did (the via, e.g. "keys
	// PageUp×2"); the via is returned on failure too.
	Set(ctx context.Context, value string) (via string, err error)
	// WaitVisible waits until the element is visible.
	WaitVisible(ctx context.Context) error
}

// InputRecorder is an optional interface of a Page that must know where
// task input values go: the browser masks the fields secrets go into in
// its screenshots and scrubs the values from what it records. Do calls
// RecordInput for an action that names a task input, once its target
// resolved and before the element action (which may then fail), with the
// input's name, the target and the value the action acts with.
type InputRecorder interface {
	RecordInput(name string, t *branch.Target, value string)
}

// Tabs is an optional interface of a Page with several tabs (a popup a
// click opened): Do calls SelectTab before an action that names its tab
// (branch.Action.Tab), with the tab's index in the order the tabs opened;
// it fails with no_such_tab when there is none. A Page without it has
// one tab, 0.
type Tabs interface {
	SelectTab(ctx context.Context, i int) error
}
