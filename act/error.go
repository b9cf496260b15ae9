package act

import "github.com/multiverse-orchestrator/multiverse/branch"

// Error is a failed action with a stable code: one of the branch.Code*
// constants (input_missing, redacted_value, unsupported_action_type,
// selector_not_found, …) and a message for people. Do returns it for the
// failures it decides itself; a Page or Element may return it too, for a
// failure whose code it knows.
type Error struct {
	Code branch.Code
	Msg  string
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Msg }
