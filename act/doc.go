// Package act interprets the action vocabulary of a plan (branch.Action)
// once, over a small page interface, the way chromedp runs its actions
// against a target: Do decides what an action means, a Page and its
// Elements do it. The browser runtime (Playwright) and the simulated web
// both implement Page, so the two cannot drift apart on what an action
// does.
//
// Invariants:
//   - Do resolves the action's task input before it touches the page,
//     and refuses the redacted placeholder (branch.RedactedPlaceholder)
//     wherever it came from: a plan never types what was scrubbed.
//   - The order of the checks is fixed: the input (input_missing), the
//     redacted value (redacted_value), the page-level actions (navigate,
//     scroll, eval, key_press without a target, wait_for a duration), an
//     unknown kind (unsupported_action_type), a missing target
//     (unsupported_action_type, "KIND needs a target"), the target's
//     resolution, then the element action. What "no page is open" means
//     is the Page's business: its methods say so in their errors.
//   - The errors Do makes itself are *Error with a stable branch.Code*
//     code; the errors a Page or Element returns pass through unchanged,
//     so a runtime classifies its own failures.
//   - A set action's via never holds a task input's value: Do replaces
//     the value with "{input NAME}".
//
// The package is pure: it imports branch only and links no browser
// driver, so its tests run with a fake page.
package act
