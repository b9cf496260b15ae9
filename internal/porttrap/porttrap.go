// Package porttrap keeps a test binary off the fixed port where a user's
// own service may listen: the examples' default site address,
// 127.0.0.1:8555, where `orchestrator site` serves the demo. A test that
// runs an example task unchanged, or any other that dials there, would
// act on whatever the user runs at that port (a test once placed a real
// order on a user's demo site).
//
// Run holds the port while the package's tests run, when it is free
// (shared with the other test binaries that hold it, by SO_REUSEPORT on
// Linux), answers every connection 503 at once, and fails the binary
// naming each request it received. When a service of the user's holds the
// port, Run cannot hold it and the tests run unguarded, silently (a test
// binary re-run as a helper process must not add to its output); they
// start their own sites on free ports, so nothing should reach it.
package porttrap

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"
)

// Addr is the port the trap holds: the examples' start_url and the
// default address of `orchestrator site`.
const Addr = "127.0.0.1:8555"

// Trap holds an address and records what reached it.
type Trap struct {
	ln   net.Listener
	mu   sync.Mutex
	hits []string
	wg   sync.WaitGroup
}

// Listen holds addr; it fails when another process (without
// SO_REUSEPORT: a user's own service) holds it.
func Listen(addr string) (*Trap, error) {
	lc := net.ListenConfig{Control: reusePort}
	ln, err := lc.Listen(context.Background(), "tcp", addr)
	if err != nil {
		return nil, err
	}
	t := &Trap{ln: ln}
	t.wg.Add(1)
	go t.serve()
	return t, nil
}

func (t *Trap) serve() {
	defer t.wg.Done()
	for {
		c, err := t.ln.Accept()
		if err != nil {
			return
		}
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			t.answer(c)
		}()
	}
}

// answer records the connection's first line and refuses it.
func (t *Trap) answer(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	line, _ := bufio.NewReader(io.LimitReader(c, 512)).ReadString('\n')
	line = strings.TrimSpace(line)
	if line == "" {
		line = "(a connection that sent no request line)"
	}
	t.mu.Lock()
	t.hits = append(t.hits, fmt.Sprintf("%s from %s", line, c.RemoteAddr()))
	t.mu.Unlock()
	io.WriteString(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"+
		"porttrap: a test reached "+Addr+", where a user's own site may listen\n")
}

// Close releases the address and returns what reached it, one line per
// connection.
func (t *Trap) Close() []string {
	t.ln.Close()
	t.wg.Wait()
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.hits...)
}

// Runner is what testing.M is to Run.
type Runner interface{ Run() int }

// Run runs m's tests with a trap on Addr and returns their exit code, or
// 1 when a test reached the trap (each request named on stderr).
func Run(m Runner) int {
	t, err := Listen(Addr)
	if err != nil {
		return m.Run()
	}
	code := m.Run()
	if hits := t.Close(); len(hits) > 0 {
		fmt.Fprintf(os.Stderr, "porttrap: FAIL: tests reached %s, the examples' default site address, where a user's own site may listen; start a site on a free port and point the task at it (--start-url, Task.WithStartURL):\n", Addr)
		for _, h := range hits {
			fmt.Fprintf(os.Stderr, "  %s\n", h)
		}
		return 1
	}
	return code
}
