package porttrap

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestTrapRecordsAndRefuses: a request to a trapped address is answered
// 503 and recorded with its request line; a second trap on the same
// address shares it (another test binary), and a plain listener there
// (a user's own service) is refused while a trap holds it.
func TestTrapRecordsAndRefuses(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	tr, err := Listen(addr)
	if err != nil {
		t.Fatal(err)
	}
	other, err := Listen(addr)
	if err != nil {
		t.Fatalf("a second trap cannot share the address: %v", err)
	}
	if l, err := net.Listen("tcp", addr); err == nil {
		l.Close()
		t.Errorf("a plain listener took the trapped address")
	}
	resp, err := http.Get("http://" + addr + "/orders?x=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "porttrap") {
		t.Errorf("answer %d %q", resp.StatusCode, body)
	}
	hits := append(tr.Close(), other.Close()...)
	if len(hits) != 1 || !strings.HasPrefix(hits[0], "GET /orders?x=1 HTTP/1.1 from 127.0.0.1:") {
		t.Fatalf("hits = %q", hits)
	}
}

type fakeM struct {
	code int
	run  func()
}

func (m fakeM) Run() int { m.run(); return m.code }

// TestRunFailsOnAHit: Run turns a passing binary whose tests reached the
// trap into a failing one, and leaves one that did not as it was.
func TestRunFailsOnAHit(t *testing.T) {
	if l, err := net.Listen("tcp", Addr); err != nil {
		t.Skipf("%s is held by another process: %v", Addr, err)
	} else {
		l.Close()
	}
	if code := Run(fakeM{code: 0, run: func() {}}); code != 0 {
		t.Errorf("a binary that reached nothing: exit %d", code)
	}
	hit := func() {
		if resp, err := http.Get("http://" + Addr + "/"); err == nil {
			resp.Body.Close()
		}
	}
	if code := Run(fakeM{code: 0, run: hit}); code != 1 {
		t.Errorf("a binary that reached the trap: exit %d", code)
	}
}
