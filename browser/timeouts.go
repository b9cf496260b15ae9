package browser

import "time"

// Limits of a session's exchanges with the page and the browser, beyond
// the task's action timeout (Env.ActionTimeout).
const (
	// watchdogSlack is what a watchdog limit adds to the action timeouts
	// of the calls it covers (one for a call, two for an observation,
	// three for a step): room for Playwright to report its own timeout,
	// with its own code, before the watchdog gives the page up as
	// page_unresponsive.
	watchdogSlack = 5 * time.Second
	// ariaSnapshotTimeout bounds reading an observation's accessibility
	// snapshot; a page that gives none is observed without it.
	ariaSnapshotTimeout = 5 * time.Second
	// screenshotTimeout bounds an observation's screenshot.
	screenshotTimeout = 10 * time.Second
	// hrefTimeout bounds reading the target of the invoice link.
	hrefTimeout = 3 * time.Second
	// launchTimeout bounds launching Chromium.
	launchTimeout = 60 * time.Second
)

// millis is a limit in Playwright's form: milliseconds as a float.
func millis(d time.Duration) *float64 {
	ms := float64(d.Milliseconds())
	return &ms
}
