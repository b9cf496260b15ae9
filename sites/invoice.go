package sites

import (
	"bytes"
	"fmt"
	"strings"
)

// invoiceNumber is "INV-" followed by the order number: ORD-100001 gives
// INV-100001.
func invoiceNumber(o Order) string {
	return "INV-" + strings.TrimPrefix(o.ID, orderIDPrefix)
}

// invoiceLines are the text lines of an order's invoice; the first is the
// heading.
func invoiceLines(o Order) []string {
	s := summarize(quoteOf(o))
	lines := []string{
		"Invoice " + invoiceNumber(o),
		"Nimbus Cloud Inc., billing@nimbus-cloud.example",
		"",
		"Order: " + o.ID,
		"Billed to: " + o.Email,
	}
	if o.VATID != "" {
		lines = append(lines, "VAT ID: "+o.VATID)
	}
	lines = append(lines,
		"Plan: "+s.Plan,
		"Billing: "+s.Billing,
		"Seats: "+s.Seats,
		"Country: "+s.Country,
		"Unit price: "+s.UnitPrice+" "+s.UnitNote,
		"Subtotal ("+s.Period+"): "+s.Subtotal,
		"VAT ("+s.VATRate+"): "+s.VAT,
	)
	if s.ReverseCharge {
		lines = append(lines, "Reverse charge: VAT to be accounted for by the recipient.")
	}
	lines = append(lines, "Total: "+s.Total+" "+s.Currency, "", "Thank you for choosing Nimbus Cloud.")
	return lines
}

// invoicePDF renders a one-page PDF 1.4 invoice for o. The output is a pure
// function of o: no dates, no random ids. Objects: 1 catalog, 2 pages,
// 3 page, 4 Helvetica, 5 Helvetica-Bold, 6 content stream, 7 info.
func invoicePDF(o Order) []byte {
	var content bytes.Buffer
	for i, line := range invoiceLines(o) {
		font, size, y := "/F1", 11, 720-i*18
		if i == 0 {
			font, size, y = "/F2", 18, 740
		}
		if line == "" {
			continue
		}
		fmt.Fprintf(&content, "BT %s %d Tf 72 %d Td (%s) Tj ET\n", font, size, y, pdfString(line))
	}
	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R /F2 5 0 R >> >> /Contents 6 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", content.Len(), content.String()),
		fmt.Sprintf("<< /Title (%s) /Author (Nimbus Cloud Inc.) /Producer (Nimbus Cloud billing) >>", pdfString("Invoice "+invoiceNumber(o))),
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objects))
	for i, obj := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, obj)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /Info 7 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}

// pdfString escapes s for a PDF literal string; characters outside printable
// ASCII become "?".
func pdfString(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '(' || r == ')' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r > 0x7e:
			b.WriteByte('?')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
