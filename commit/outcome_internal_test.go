package commit

import (
	"regexp"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/browser"
)

// TestRefusal: only a guarded request the site answered with a 4xx, and
// no guarded request it accepted, is a refusal that may finalize a row.
func TestRefusal(t *testing.T) {
	guard := []browser.GuardPattern{{Method: "POST", URL: regexp.MustCompile(`/orders`)}}
	post := func(status int) branch.NetRecord {
		return branch.NetRecord{Method: "POST", URL: "http://x/orders", Status: status}
	}
	get := func(status int) branch.NetRecord {
		return branch.NetRecord{Method: "GET", URL: "http://x/orders/1", Status: status}
	}
	for _, tc := range []struct {
		name       string
		transcript []branch.NetRecord
		want       int // the refused status, 0 for no refusal
	}{
		{"nothing sent", nil, 0},
		{"accepted", []branch.NetRecord{post(303), get(200)}, 0},
		{"conflict", []branch.NetRecord{post(409)}, 409},
		{"invalid", []branch.NetRecord{post(422)}, 422},
		{"server error is not a refusal", []branch.NetRecord{post(502)}, 0},
		{"no answer is not a refusal", []branch.NetRecord{post(0)}, 0},
		{"a refused retry after an accepted one", []branch.NetRecord{post(201), post(409)}, 0},
		{"an unguarded 404", []branch.NetRecord{get(404)}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, ok := refusal(guard, tc.transcript)
			if got := map[bool]int{true: n.Status}[ok]; got != tc.want {
				t.Fatalf("refusal = %d (%v), want %d", n.Status, ok, tc.want)
			}
		})
	}
}
