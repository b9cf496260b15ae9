//go:build !linux

package porttrap

import "syscall"

// reusePort does nothing here: the first test binary holds the port.
func reusePort(_, _ string, _ syscall.RawConn) error { return nil }
