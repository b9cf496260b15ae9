package task

import (
	"errors"
	"fmt"
)

// ErrInvalid is wrapped by every error about the content of a task file.
var ErrInvalid = errors.New("task: invalid task")

// ErrSecretMissing is returned by Resolve when a secret's environment
// variable or file is absent.
var ErrSecretMissing = errors.New("task: secret not available")

// Error locates a problem in a task file.
type Error struct {
	File  string // path as given, "" when parsed from memory
	Line  int    // 1-based, 0 when unknown
	Field string // dotted path: goal.success[1].text.matches
	Msg   string
}

func (e *Error) Error() string {
	loc := e.File
	if loc == "" {
		loc = "task"
	}
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, e.Line)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: %s", loc, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *Error) Unwrap() error { return ErrInvalid }
