package natstest

import (
	"fmt"
	"net"
)

// freePorts returns n distinct TCP ports of 127.0.0.1 that were free a
// moment ago: it listens on 127.0.0.1:0 n times, keeping every listener open
// until all are taken so the ports differ, then closes them.
//
// The race: between the close and the server's own bind another process may
// take a port. The server then exits with "address already in use" and
// Start and StartCluster try again with new ports (a fixed WithPort is not
// retried).
func freePorts(n int) ([]int, error) {
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("natstest: picking a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
