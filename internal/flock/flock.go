// Package flock takes and releases advisory whole-file locks (flock(2)):
// the ledger's single-writer lock and the data dir's one-run lock. The
// kernel releases a lock when its holder dies, so a crash never leaves
// one behind.
package flock

import "errors"

// ErrUnsupported is returned where the platform has no flock: callers
// decide whether to go on without exclusion or refuse.
var ErrUnsupported = errors.New("flock is not supported on this platform")
