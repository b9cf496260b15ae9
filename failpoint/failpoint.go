// Package failpoint lets tests stop a process at a named point, exactly as
// a kill -9 would, so that crash recovery can be tested deterministically.
//
// A failpoint fires when the environment variable MULTIVERSE_FAILPOINT
// names it (a comma-separated list is allowed). Firing sends SIGKILL to the
// process itself: no deferred function runs, no buffer is flushed, nothing
// is closed, just as if an operator had killed it. Production binaries
// carry the checks; without the variable they cost one map lookup.
package failpoint

import (
	"os"
	"strings"
	"sync"
	"syscall"
)

// EnvVar names the failpoints to fire.
const EnvVar = "MULTIVERSE_FAILPOINT"

// Failpoints of the commit protocol.
const (
	BeforeIntent              = "before-intent"
	AfterIntent               = "after-intent"
	AfterAttempt              = "after-attempt"
	AfterSubmitBeforeFinalize = "after-submit-before-finalize"
	AfterFinalize             = "after-finalize"
)

// All lists the known failpoints.
var All = []string{BeforeIntent, AfterIntent, AfterAttempt, AfterSubmitBeforeFinalize, AfterFinalize}

var (
	once   sync.Once
	active map[string]bool
)

func load() {
	active = map[string]bool{}
	for _, p := range strings.Split(os.Getenv(EnvVar), ",") {
		if p = strings.TrimSpace(p); p != "" {
			active[p] = true
		}
	}
}

// Active reports whether the named failpoint is armed.
func Active(name string) bool {
	once.Do(load)
	return active[name]
}

// Hit kills the process with SIGKILL if the named failpoint is armed.
func Hit(name string) {
	if Active(name) {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // SIGKILL cannot be caught; wait for it to land
	}
}
