package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
)

// ledgerRows are entries in each state, with the longest values a
// ledger holds: a 64-hex key under a long site and flow, a long order id.
func ledgerRows() []ledger.Entry {
	at := time.Date(2026, 11, 25, 19, 43, 15, 0, time.UTC)
	key := "commit:nimbus-demo:team-plan:76fbb75409bdb64624ec735bc6232237efaef2ad074a84c9a0a298b760e559b5"
	return []ledger.Entry{
		{ID: "01M8A3QN3RRCX4NZ7FTQ13M3ST", Key: key, RunID: "01M8A3QGCH0YXTSDW42VT695P0", BranchID: "01M8A3QM3QZBB5VYDVHMCZCQ37",
			PlanDigest: "87b9ef5179bcee3576729d71fdabf90597597c36f360ff6543edbb44a407e57d", Site: "nimbus-demo", Flow: "team-plan",
			Payload: json.RawMessage(`{"plan":"Team","seats":"10","total":"178.50"}`), PayloadSHA256: "76fbb75409bdb64624ec735bc6232237efaef2ad074a84c9a0a298b760e559b5",
			State: ledger.StateCommitted, Attempts: 1, OrderID: "ORD-100001", Confirmation: json.RawMessage(`{"order_id":"ORD-100001","steps":[{},{}]}`),
			Artifacts: map[string]string{"invoice": "ca422a8b000e616f2ebe0a66e543a6c8537ac850ad7187fc6f154b6b84ca29df"}, CreatedAt: at, UpdatedAt: at},
		{ID: "01M8A3ZZZZZZZZZZZZZZZZZZZZ", Key: "commit:a-very-long-site-name.example.com:enterprise-checkout-flow:" + strings.Repeat("ab", 32),
			RunID: "01M8A3QS3JNQ1B5FX148YJ52CQ", State: ledger.StateAborted, Attempts: 12, OrderID: "ORDER-2026-11-25-000000000001",
			Error: "the site refused the order:\nits price changed", CreatedAt: at, UpdatedAt: at.Add(time.Hour)},
		{ID: "01M8A40000000000000000000A", Key: "k", RunID: "r", State: ledger.StateIntent, CreatedAt: at, UpdatedAt: at},
	}
}

// TestLedgerListWidth: ledger list keeps every line within 120 runes,
// cutting ids to prefixes that still name them, long order ids and keys.
func TestLedgerListWidth(t *testing.T) {
	var out bytes.Buffer
	printLedgerList(&out, ledgerRows())
	golden(t, "ledger/list.golden", out.String())
	for i, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n > listWidth {
			t.Errorf("line %d is %d runes wide, more than %d: %s", i+1, n, listWidth, line)
		}
	}
	for _, e := range ledgerRows() {
		if !strings.Contains(out.String(), clipTo(e.ID, listIDWidth)+"  ") {
			t.Errorf("entry id %s is not shown as its prefix", e.ID)
		}
	}
}

// TestLedgerShow: ledger show prints an entry one field per line, its
// intent and confirmation as key=value, its evidence and transitions as
// lists.
func TestLedgerShow(t *testing.T) {
	at := time.Date(2026, 11, 25, 19, 43, 15, 0, time.UTC)
	hist := []ledger.Transition{
		{Seq: 1, Op: "intent", To: ledger.StateIntent, At: at, Hash: "576023c456cced61aaaa"},
		{Seq: 2, Op: "attempt", From: ledger.StateIntent, To: ledger.StateIntent, At: at, Hash: "aef5dfc33bb7cc39bbbb"},
		{Seq: 3, Op: "finalize", From: ledger.StateIntent, To: ledger.StateCommitted, At: at, Hash: "62205f364533ba38cccc"},
	}
	var out bytes.Buffer
	for _, e := range ledgerRows()[:2] {
		printEntry(&out, e, hist)
		out.WriteString("\n")
	}
	golden(t, "ledger/show.golden", out.String())
}
