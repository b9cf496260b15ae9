//go:build linux

package porttrap

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// reusePort lets every test binary of a `go test ./...` hold the trap's
// port at once; a service that did not ask for it keeps them out.
func reusePort(_, _ string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
	})
	if err != nil {
		return err
	}
	return serr
}
