package ledger_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
)

// BenchmarkIntentFinalize measures one purchase through the ledger: a
// durable intent, one attempt and the committed outcome (three fsynced
// transactions).
func BenchmarkIntentFinalize(b *testing.B) {
	ctx := context.Background()
	l := openLedger(b, ledgerPath(b))
	out := ledger.Outcome{
		State: ledger.StateCommitted, OrderID: "ORD-1",
		Confirmation: json.RawMessage(`{"order_id":"ORD-1","total":"190.00"}`),
		Artifacts:    map[string]string{"invoice_pdf": "sha256:01", "confirmation_screenshot": "sha256:02"},
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		in := purchase(b, "team", 10)
		in.Key = fmt.Sprintf("commit:bench:%d", i)
		i++
		if _, _, err := l.Intent(ctx, in); err != nil {
			b.Fatal(err)
		}
		if _, err := l.Attempt(ctx, in.Key); err != nil {
			b.Fatal(err)
		}
		if _, err := l.Finalize(ctx, in.Key, out); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCanonical(b *testing.B) {
	payload := []byte(`{"plan":"team","seats":10,"billing":{"cycle":"annual","vat_id":"DE123456789","address":{"city":"Berlin","zip":"10115"}},"amount":{"value":"190.00","currency":"EUR"},"nonce":"2025-03-14"}`)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ledger.Canonical(payload); err != nil {
			b.Fatal(err)
		}
	}
}
