package browser

import (
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// TestNetDigestIsAMultiset: the network digest does not depend on the
// order a page's concurrent requests went out in, and still on what was
// requested and answered; the older form keeps the order.
func TestNetDigestIsAMultiset(t *testing.T) {
	s := &Session{opts: SessionOptions{Origin: "http://127.0.0.1:8555"}}
	rec := func(u string, status int, body string) netRec {
		return netRec{NetRecord: branch.NetRecord{Method: "GET", URL: u, Status: status, BodyHash: body}}
	}
	a, b := rec("http://127.0.0.1:8555/app.js", 200, "h1"), rec("http://127.0.0.1:8555/api/user", 200, "h2")
	if s.netDigest([]netRec{a, b}, nil) != s.netDigest([]netRec{b, a}, nil) {
		t.Error("two concurrent requests digest apart by their order")
	}
	if s.netDigestInOrder([]netRec{a, b}) == s.netDigestInOrder([]netRec{b, a}) {
		t.Error("the older form lost the order")
	}
	for _, other := range [][]netRec{{a}, {a, b, b}, {a, rec("http://127.0.0.1:8555/api/user", 500, "h2")}, {a, rec("http://127.0.0.1:8555/api/user", 200, "h3")}} {
		if s.netDigest(other, nil) == s.netDigest([]netRec{a, b}, nil) {
			t.Errorf("%d records with another request or answer digest alike", len(other))
		}
	}
	// The site's address folds to {origin}: another port digests alike.
	s2 := &Session{opts: SessionOptions{Origin: "http://127.0.0.1:9000"}}
	a2, b2 := rec("http://127.0.0.1:9000/app.js", 200, "h1"), rec("http://127.0.0.1:9000/api/user", 200, "h2")
	if s.netDigest([]netRec{a, b}, nil) != s2.netDigest([]netRec{b2, a2}, nil) {
		t.Error("the same traffic on another port digests apart")
	}
}
