package ledger_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
)

func transcript(t *testing.T, recs ...branch.NetRecord) []byte {
	t.Helper()
	b, err := json.Marshal(recs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCheckSubmissions: a row stands for one accepted submission; two
// accepting answers to the commit request, in one transcript or across
// rounds, are flagged; a page's refusal and background requests do not
// count.
func TestCheckSubmissions(t *testing.T) {
	post := func(status int) branch.NetRecord {
		return branch.NetRecord{Method: "POST", URL: "http://shop/orders", Type: "document", Status: status}
	}
	poll := branch.NetRecord{Method: "POST", URL: "http://shop/admin-ajax", Type: "xhr", Status: 200}
	follow := branch.NetRecord{Method: "GET", URL: "http://shop/orders/ORD-1", Type: "document", Status: 200}
	named := json.RawMessage(`{"order_id":"ORD-1","request":{"method":"POST","url":"http://shop/orders"}}`)
	pageRefusal := json.RawMessage(`{"refused":{"method":"POST","url":"http://shop/orders","status":200,"notice":"Already exists."}}`)
	for _, tc := range []struct {
		name   string
		rounds []ledger.Round
		bad    string
	}{
		{"one submission", []ledger.Round{{Confirmation: named, Transcript: transcript(t, post(303), follow, poll, poll)}}, ""},
		{"two in one transcript", []ledger.Round{{Confirmation: named, Transcript: transcript(t, post(303), post(303), follow)}}, "2 accepted submissions"},
		{"two rounds", []ledger.Round{
			{Confirmation: json.RawMessage(`{"not_sent":true}`), Transcript: transcript(t, post(201))},
			{Confirmation: named, Transcript: transcript(t, post(303), follow)},
		}, "2 accepted submissions"},
		{"an older row without the request named", []ledger.Round{{Confirmation: json.RawMessage(`{"order_id":"ORD-1"}`), Transcript: transcript(t, post(303), post(302), poll)}}, "2 accepted submissions"},
		{"page refusal then commit", []ledger.Round{
			{Confirmation: pageRefusal, Transcript: transcript(t, post(200))},
			{Confirmation: named, Transcript: transcript(t, post(303))},
		}, ""},
		{"4xx refusal and a commit", []ledger.Round{{Confirmation: named, Transcript: transcript(t, post(422), post(303))}}, ""},
		{"no transcript", []ledger.Round{{Confirmation: named}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ledger.CheckSubmissions(tc.rounds)
			switch {
			case tc.bad == "" && err != nil:
				t.Fatalf("CheckSubmissions = %v, want nil", err)
			case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)):
				t.Fatalf("CheckSubmissions = %v, want %q", err, tc.bad)
			}
		})
	}
}
