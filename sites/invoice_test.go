package sites

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// checkPDF verifies the structure of a classic single-xref PDF: header,
// every xref entry pointing at "N 0 obj", startxref pointing at "xref",
// the trailer size and %%EOF.
func checkPDF(t *testing.T, pdf []byte) {
	t.Helper()
	if !bytes.HasPrefix(pdf, []byte("%PDF-1.4\n")) {
		t.Fatalf("header = %q", pdf[:min(len(pdf), 16)])
	}
	if !bytes.HasSuffix(pdf, []byte("%%EOF\n")) {
		t.Fatal("missing end-of-file marker")
	}
	m := regexp.MustCompile(`startxref\n(\d+)\n%%EOF\n$`).FindSubmatch(pdf)
	if m == nil {
		t.Fatal("missing startxref")
	}
	xref, _ := strconv.Atoi(string(m[1]))
	if !bytes.HasPrefix(pdf[xref:], []byte("xref\n")) {
		t.Fatalf("startxref %d does not point at xref", xref)
	}
	lines := strings.Split(string(pdf[xref:]), "\n")
	var first, count int
	if _, err := fmtSscan(lines[1], &first, &count); err != nil || first != 0 {
		t.Fatalf("xref subsection %q", lines[1])
	}
	if lines[2] != "0000000000 65535 f " {
		t.Fatalf("free entry %q", lines[2])
	}
	for n := 1; n < count; n++ {
		entry := lines[2+n]
		if len(entry)+1 != 20 || !strings.HasSuffix(entry, " 00000 n ") {
			t.Fatalf("xref entry %d = %q, want 20 bytes", n, entry)
		}
		off, err := strconv.Atoi(entry[:10])
		if err != nil {
			t.Fatal(err)
		}
		if want := strconv.Itoa(n) + " 0 obj\n"; !bytes.HasPrefix(pdf[off:], []byte(want)) {
			t.Fatalf("xref offset %d of object %d points at %q", off, n, pdf[off:off+12])
		}
	}
	if !bytes.Contains(pdf, []byte("/Size "+strconv.Itoa(count)+" /Root 1 0 R")) {
		t.Fatal("trailer /Size does not match xref")
	}
	// The content stream /Length matches the bytes between stream and endstream.
	sm := regexp.MustCompile(`(?s)<< /Length (\d+) >>\nstream\n(.*?)endstream`).FindSubmatch(pdf)
	if sm == nil {
		t.Fatal("no content stream")
	}
	if n, _ := strconv.Atoi(string(sm[1])); n != len(sm[2]) {
		t.Fatalf("stream /Length %d, actual %d", n, len(sm[2]))
	}
}

func fmtSscan(s string, a, b *int) (int, error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0, strconv.ErrSyntax
	}
	var err error
	if *a, err = strconv.Atoi(f[0]); err != nil {
		return 0, err
	}
	if *b, err = strconv.Atoi(f[1]); err != nil {
		return 1, err
	}
	return 2, nil
}

func TestInvoicePDF(t *testing.T) {
	v := newVendor(t, Knobs{})
	form := withField(withField(orderForm(), "vat_id", "DE123456789"), "total_cents", "15000")
	form.Set("email", "buyer(ops)\\@example.com")
	requireStatus(t, do(t, v, call{method: "POST", target: "/orders", form: form}), 303)
	rec := get(t, v, "/orders/ORD-100001/invoice.pdf")
	requireStatus(t, rec, 200)
	if ct := rec.Header().Get("Content-Type"); ct != "application/pdf" {
		t.Fatalf("Content-Type = %q", ct)
	}
	pdf := rec.Body.Bytes()
	checkPDF(t, pdf)
	for _, want := range []string{
		"(Invoice INV-100001)", "(Order: ORD-100001)", "(Plan: Team)", "(Billing: Monthly)", "(Seats: 10)",
		"(Country: Germany)", "(Subtotal \\(1 month\\): $150.00)", "(VAT \\(0%\\): $0.00)", "(Total: $150.00 USD)",
		"Reverse charge", "/BaseFont /Helvetica ", `buyer\(ops\)\\@example.com`,
	} {
		if !bytes.Contains(pdf, []byte(want)) {
			t.Fatalf("invoice lacks %q:\n%s", want, pdf)
		}
	}
	// Byte-identical on every download and from a second vendor with the same order.
	if again := get(t, v, "/orders/ORD-100001/invoice.pdf").Body.Bytes(); !bytes.Equal(again, pdf) {
		t.Fatal("invoice differs between downloads")
	}
	v2 := newVendor(t, Knobs{})
	do(t, v2, call{method: "POST", target: "/orders", form: form})
	if other := get(t, v2, "/orders/ORD-100001/invoice.pdf").Body.Bytes(); !bytes.Equal(other, pdf) {
		t.Fatal("invoice differs between vendors")
	}
}

func TestPDFString(t *testing.T) {
	tests := map[string]string{
		"plain":       "plain",
		"a(b)c":       `a\(b\)c`,
		`back\slash`:  `back\\slash`,
		"naïve €":     "na?ve ?",
		"tab\there":   "tab?here",
		"":            "",
		"))((\\\\end": `\)\)\(\(\\\\end`,
	}
	for in, want := range tests {
		if got := pdfString(in); got != want {
			t.Errorf("pdfString(%q) = %q, want %q", in, got, want)
		}
	}
}
