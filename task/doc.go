// Package task loads and validates task specs: the YAML files users write
// to say what Multiverse should achieve on a site (start URL, goal
// predicates, inputs with secrets by reference, budgets, search settings,
// commit boundary and commit action).
//
// Every error from Load or Parse is a *Error naming the file, the line and
// the field path (goal.success[1].text.matches) and wraps ErrInvalid, so a
// CLI can map it to its bad-input exit code. Parse fills defaults, so a
// loaded Task is complete: callers never re-derive a default.
//
// Secrets are references (an environment variable or a file). The loader
// never reads them; Resolve does, in the process that needs the value.
// Digest covers the task with secret references, never values, and with the
// start URL's origin folded to "{origin}", so the same task against the
// same site at another address keeps its digest.
package task
