package sites

import "testing"

func TestQuoteVAT(t *testing.T) {
	tests := []struct {
		name                               string
		plan, billing, country, vatID      string
		seats                              int
		factor                             float64
		unit, subtotal, vatPct, vat, total int64
		reverse                            bool
	}{
		{"US no VAT", "team", "monthly", "US", "", 10, 1, 1500, 15000, 0, 0, 15000, false},
		{"DE 19%", "team", "monthly", "DE", "", 10, 1, 1500, 15000, 19, 2850, 17850, false},
		{"FR 20%", "business", "monthly", "FR", "", 3, 1, 2900, 8700, 20, 1740, 10440, false},
		{"NL 21%", "team", "monthly", "NL", "", 1, 1, 1500, 1500, 21, 315, 1815, false},
		{"GB 20%", "team", "monthly", "GB", "", 7, 1, 1500, 10500, 20, 2100, 12600, false},
		{"annual is 12 months", "team", "annual", "US", "", 10, 1, 1200, 144000, 0, 0, 144000, false},
		{"annual business DE", "business", "annual", "DE", "", 2, 1, 2400, 57600, 19, 10944, 68544, false},
		{"DE reverse charge", "team", "monthly", "DE", "DE123456789", 10, 1, 1500, 15000, 0, 0, 15000, true},
		{"NL reverse charge letters", "team", "monthly", "NL", "NL123456789B01", 10, 1, 1500, 15000, 0, 0, 15000, true},
		{"VAT id in another EU prefix still reverse", "team", "monthly", "FR", "DE12345678", 1, 1, 1500, 1500, 0, 0, 1500, true},
		{"GB is not EU", "team", "monthly", "GB", "GB123456789", 1, 1, 1500, 1500, 20, 300, 1800, false},
		{"US ignores VAT id", "team", "monthly", "US", "DE123456789", 1, 1, 1500, 1500, 0, 0, 1500, false},
		{"too short VAT id", "team", "monthly", "DE", "DE1234567", 1, 1, 1500, 1500, 19, 285, 1785, false},
		{"too long VAT id", "team", "monthly", "DE", "DE1234567890123", 1, 1, 1500, 1500, 19, 285, 1785, false},
		{"digit prefix", "team", "monthly", "DE", "1E123456789", 1, 1, 1500, 1500, 19, 285, 1785, false},
		{"VAT rounds half up", "team", "monthly", "NL", "", 1, 1.1, 1650, 1650, 21, 347, 1997, false}, // 346.5 -> 347
		{"price factor 1.1", "team", "monthly", "DE", "", 10, 1.1, 1650, 16500, 19, 3135, 19635, false},
		{"max seats", "business", "annual", "NL", "", 500, 1, 2400, 14400000, 21, 3024000, 17424000, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := newQuote(orderRequest{Plan: tc.plan, Billing: tc.billing, Seats: tc.seats, Country: tc.country, VATID: tc.vatID}, tc.factor)
			got := [5]int64{q.UnitCents, q.SubtotalCents, q.VATPercent, q.VATCents, q.TotalCents}
			want := [5]int64{tc.unit, tc.subtotal, tc.vatPct, tc.vat, tc.total}
			if got != want || q.ReverseCharge != tc.reverse {
				t.Fatalf("unit, subtotal, vat%%, vat, total = %v reverse %v; want %v reverse %v", got, q.ReverseCharge, want, tc.reverse)
			}
		})
	}
}

func TestReviewReverseCharge(t *testing.T) {
	v := newVendor(t, Knobs{})
	body := get(t, v, "/checkout/review?plan=team&billing=annual&seats=10&country=NL&email=a%40b&vat_id=nl+1234.5678-9B01").Body.String()
	requireContains(t, body, `data-field="vat_id">NL123456789B01<`, `data-field="vat_rate">0%<`, `data-field="vat">$0.00<`,
		"Reverse charge", `data-field="subtotal">$1,440.00<`, `data-amount="1440.00"`, "Subtotal (12 months)",
		`data-field="unit_price">$12.00<`, `name="vat_id" value="NL123456789B01"`)
}

func TestScaleCents(t *testing.T) {
	tests := []struct {
		cents  int64
		factor float64
		want   int64
	}{
		{1500, 0, 1500},
		{1500, 1, 1500},
		{1500, 1.1, 1650},
		{1500, 1.0003, 1500},  // 1500.45
		{1500, 1.00033, 1500}, // 1500.495
		{1500, 1.00034, 1501}, // 1500.51
		{1, 0.5, 1},           // 0.5 rounds up
		{3, 0.5, 2},           // 1.5 rounds up
		{1500, 1.005, 1508},   // 1507.5 rounds up, decimal not binary
		{2900, 1000, 2900000},
		{1200, 0.01, 12},
	}
	for _, tc := range tests {
		if got := scaleCents(tc.cents, tc.factor); got != tc.want {
			t.Errorf("scaleCents(%d, %v) = %d, want %d", tc.cents, tc.factor, got, tc.want)
		}
	}
}

func TestFormatMoney(t *testing.T) {
	tests := []struct {
		cents             int64
		usd, amount, card string
	}{
		{0, "$0.00", "0.00", "$0"},
		{5, "$0.05", "0.05", "$0.05"},
		{1500, "$15.00", "15.00", "$15"},
		{1650, "$16.50", "16.50", "$16.50"},
		{17850, "$178.50", "178.50", "$178.50"},
		{144000, "$1,440.00", "1440.00", "$1,440"},
		{17424000, "$174,240.00", "174240.00", "$174,240"},
		{100000000, "$1,000,000.00", "1000000.00", "$1,000,000"},
	}
	for _, tc := range tests {
		if got := formatUSD(tc.cents); got != tc.usd {
			t.Errorf("formatUSD(%d) = %q, want %q", tc.cents, got, tc.usd)
		}
		if got := formatAmount(tc.cents); got != tc.amount {
			t.Errorf("formatAmount(%d) = %q, want %q", tc.cents, got, tc.amount)
		}
		if got := formatCardPrice(tc.cents); got != tc.card {
			t.Errorf("formatCardPrice(%d) = %q, want %q", tc.cents, got, tc.card)
		}
	}
}
