package ledger_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
)

func TestWriteCSV(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	// An error text that needs every kind of RFC 4180 quoting.
	in := purchase(t, "team", 42)
	_, _, err := f.l.Intent(ctx, in)
	requireNoErr(t, err)
	tricky := "site said: \"no\", then\nretry, <b>later</b>"
	_, err = f.l.Finalize(ctx, in.Key, ledger.Outcome{
		State: ledger.StateFailed, Error: tricky,
		Artifacts: map[string]string{"submit_transcript": "sha256:b", "pre_submit_dom": "sha256:a"},
	})
	requireNoErr(t, err)
	es, err := f.l.List(ctx, ledger.Filter{})
	requireNoErr(t, err)

	var buf bytes.Buffer
	requireNoErr(t, ledger.WriteCSV(&buf, es))
	if !strings.HasSuffix(buf.String(), "\r\n") {
		t.Fatalf("CSV does not end records with CRLF")
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	requireNoErr(t, err)
	if len(recs) != len(es)+1 {
		t.Fatalf("CSV has %d records, want header + %d", len(recs), len(es))
	}
	requireEqual(t, strings.Join(recs[0], ","), "id,key,state,order_id,run_id,branch_id,plan_digest,site,flow,payload_sha256,attempts,created_at,updated_at,error,artifacts", "header")
	col := func(name string) int { return slices.Index(recs[0], name) }
	for i, e := range es {
		r := recs[i+1]
		requireEqual(t, r[col("id")], e.ID, "id")
		requireEqual(t, r[col("key")], e.Key, "key")
		requireEqual(t, r[col("state")], string(e.State), "state")
		requireEqual(t, r[col("order_id")], e.OrderID, "order_id")
		requireEqual(t, r[col("payload_sha256")], e.PayloadSHA256, "payload_sha256")
		requireEqual(t, r[col("attempts")], strconv.Itoa(e.Attempts), "attempts")
		requireEqual(t, r[col("error")], e.Error, "error")
	}
	// es is newest first: the tricky entry is the first record.
	requireEqual(t, recs[1][col("error")], tricky, "quoted error")
	requireEqual(t, recs[1][col("artifacts")], "pre_submit_dom=sha256:a;submit_transcript=sha256:b", "artifacts")
	requireEqual(t, recs[1][col("created_at")], es[0].CreatedAt.UTC().Format("2006-01-02T15:04:05.000000000Z"), "created_at")

	t.Run("empty", func(t *testing.T) {
		var buf bytes.Buffer
		requireNoErr(t, ledger.WriteCSV(&buf, nil))
		requireEqual(t, buf.String(), strings.Join(ledger.CSVHeader, ",")+"\r\n", "empty export")
	})
}

func TestWriteJSONRoundTrip(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	in := purchase(t, "team", 7)
	in.Payload = json.RawMessage(`{"note":"<b>&amp;</b> \u2028","seats":7,"amount":1e2}`)
	in.Key = "commit:saas-demo:checkout:html"
	_, _, err := f.l.Intent(ctx, in)
	requireNoErr(t, err)
	es, err := f.l.List(ctx, ledger.Filter{})
	requireNoErr(t, err)

	tests := []struct {
		name string
		es   []ledger.Entry
	}{
		{"ledger", es},
		{"empty", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			requireNoErr(t, ledger.WriteJSON(&buf, tc.es))
			var back []ledger.Entry
			requireNoErr(t, json.Unmarshal(buf.Bytes(), &back))
			if len(tc.es) == 0 {
				requireEqual(t, buf.String(), "[]\n", "empty export")
				requireEqual(t, len(back), 0, "entries")
				return
			}
			if !reflect.DeepEqual(back, tc.es) {
				t.Fatalf("JSON round trip differs:\n got %+v\nwant %+v", back, tc.es)
			}
			requireEqual(t, strings.Count(buf.String(), "\n"), len(tc.es)+2, "lines (one per entry)")
		})
	}
}
