package natstest

import "syscall"

// sysProcAttr asks the kernel to SIGKILL the server when the test binary
// dies (a panic, a -timeout), so no server outlives its test. The signal is
// tied to the thread that started the server; Go only ends threads that a
// goroutine locked and abandoned, which test code should not do.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
