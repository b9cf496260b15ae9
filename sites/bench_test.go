package sites

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// Pages are rendered on every request of every branch; keep them cheap.
func BenchmarkPages(b *testing.B) {
	v := newVendor(b, Knobs{})
	for _, target := range []string{"/", "/pricing", "/checkout/review?plan=team&billing=monthly&seats=10&country=DE&email=a%40b"} {
		b.Run(target, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, target, nil)
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				v.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatal(rec.Code)
				}
			}
		})
	}
}

func BenchmarkPlaceOrder(b *testing.B) {
	v := newVendor(b, Knobs{})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		req := httptest.NewRequest(http.MethodPost, "/api/orders", strings.NewReader(orderJSONBody))
		req.Header.Set("Idempotency-Key", "bench-"+strconv.Itoa(i))
		rec := httptest.NewRecorder()
		v.ServeHTTP(rec, req)
		if rec.Code != http.StatusCreated {
			b.Fatal(rec.Code, rec.Body)
		}
	}
}

func BenchmarkInvoicePDF(b *testing.B) {
	o := Order{ID: "ORD-100001", Plan: "team", Billing: "annual", Seats: 10, Country: "DE", Email: "a@b.example",
		Currency: "USD", UnitPriceCents: 1200, SubtotalCents: 144000, VATCents: 27360, TotalCents: 171360}
	b.ReportAllocs()
	for b.Loop() {
		_ = invoicePDF(o)
	}
}
