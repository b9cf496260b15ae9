package ledger

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// CSVHeader is the header row WriteCSV writes, in column order.
var CSVHeader = []string{
	"id", "key", "state", "order_id", "run_id", "branch_id", "plan_digest", "site", "flow",
	"payload_sha256", "attempts", "created_at", "updated_at", "error", "artifacts",
}

// WriteJSON writes es as a JSON array with one entry per line (an empty
// array for no entries), followed by a newline. Payload and Confirmation are
// embedded byte for byte, so decoding the output into []Entry gives back
// equal entries: it is the lossless export. Errors are those of w.
func WriteJSON(w io.Writer, es []Entry) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	buf.WriteByte('[')
	for i := range es {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
		if err := enc.Encode(&es[i]); err != nil {
			return fmt.Errorf("ledger: write JSON: entry %s: %w", es[i].ID, err)
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
	}
	if len(es) > 0 {
		buf.WriteByte('\n')
	}
	buf.WriteString("]\n")
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("ledger: write JSON: %w", err)
	}
	return nil
}

// WriteCSV writes es as CSV for spreadsheets: the CSVHeader row, then one
// record per entry, with RFC 4180 quoting and CRLF line ends. Times are UTC
// RFC 3339 with nanoseconds (fixed width, so they sort as text); artifacts
// are "name=digest" pairs joined by ";" in name order. The payload and
// confirmation are not included (payload_sha256 identifies the payload; use
// WriteJSON for everything). A CR LF inside a field reads back as LF.
// Values are written as recorded: a spreadsheet may interpret a field that
// starts with '=' as a formula. Errors are those of w.
func WriteCSV(w io.Writer, es []Entry) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if err := cw.Write(CSVHeader); err != nil {
		return fmt.Errorf("ledger: write CSV: %w", err)
	}
	for _, e := range es {
		rec := []string{
			e.ID, e.Key, string(e.State), e.OrderID, e.RunID, e.BranchID, e.PlanDigest, e.Site, e.Flow,
			e.PayloadSHA256, strconv.Itoa(e.Attempts), formatTime(e.CreatedAt), formatTime(e.UpdatedAt),
			e.Error, artifactsCSV(e.Artifacts),
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("ledger: write CSV: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("ledger: write CSV: %w", err)
	}
	return nil
}

func artifactsCSV(arts map[string]string) string {
	names := make([]string, 0, len(arts))
	for name := range arts {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	for i, name := range names {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(name)
		b.WriteByte('=')
		b.WriteString(arts[name])
	}
	return b.String()
}
