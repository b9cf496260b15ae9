//go:build !linux

package natstest

import "syscall"

// sysProcAttr is nil where the kernel offers no parent-death signal: a
// server may then outlive a test binary that dies without running cleanups.
func sysProcAttr() *syscall.SysProcAttr { return nil }
