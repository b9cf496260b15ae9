package sites

import (
	"bytes"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden files")

// determinismCalls cover every page kind, with chaos knobs whose randomness
// lives in the browser (so the HTML must still be identical).
var determinismCalls = []struct {
	name  string
	knobs Knobs
	call  call
}{
	{"home", Knobs{}, call{target: "/"}},
	{"home-b-chaos", Knobs{ABVariant: "B", LateBanner: true, Modal: true, PageRandom: true, TimerRace: true, Drift: "drift-1"}, call{target: "/"}},
	{"pricing", Knobs{}, call{target: "/pricing"}},
	{"pricing-lazy", Knobs{LazyContent: true}, call{target: "/pricing?billing=monthly"}},
	{"pricing-factor", Knobs{PriceFactor: 1.1}, call{target: "/pricing?billing=monthly"}},
	{"search", Knobs{}, call{target: "/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E+pricing"}},
	{"docs-billing", Knobs{}, call{target: "/docs/billing"}},
	{"checkout", Knobs{}, call{target: "/checkout?plan=business&billing=annual"}},
	{"checkout-errors", Knobs{}, call{target: "/checkout/review?plan=team&billing=monthly&seats=0&country=DE&email=x"}},
	{"review", Knobs{}, call{target: "/checkout/review?plan=team&billing=monthly&seats=10&country=DE&email=buyer%40example.com"}},
	{"review-reverse-charge", Knobs{}, call{target: "/checkout/review?plan=business&billing=annual&seats=25&country=FR&email=a%40b.fr&vat_id=FR12345678901"}},
	{"contact", Knobs{}, call{target: "/contact-sales?plan=enterprise"}},
	{"notfound", Knobs{}, call{target: "/nope"}},
	{"fail", Knobs{FailStatus: map[string]int{"/pricing": 503}}, call{target: "/pricing"}},
	{"api-plans", Knobs{}, call{target: "/api/plans?billing=annual"}},
	{"admin-knobs", Knobs{FailStatus: map[string]int{"/b": 500, "/a": 502}, HangPaths: []string{"/h"}}, call{target: "/__admin/knobs"}},
}

// renderFresh runs one call on a fresh vendor.
func renderFresh(t *testing.T, k Knobs, c call) []byte {
	t.Helper()
	v := newVendor(t, k)
	return do(t, v, c).Body.Bytes()
}

func TestDeterministicPages(t *testing.T) {
	for _, tc := range determinismCalls {
		t.Run(tc.name, func(t *testing.T) {
			a := renderFresh(t, tc.knobs, tc.call)
			b := renderFresh(t, tc.knobs, tc.call) // a second vendor instance
			v := newVendor(t, tc.knobs)
			c1 := do(t, v, tc.call).Body.Bytes()
			c2 := do(t, v, tc.call).Body.Bytes() // the same request twice
			if !bytes.Equal(a, b) || !bytes.Equal(a, c1) || !bytes.Equal(c1, c2) {
				t.Fatal("same request rendered different bytes")
			}
			golden(t, tc.name+goldenExt(tc.call.target), a)
		})
	}
}

func TestDeterministicOrderPages(t *testing.T) {
	place := func() *Vendor {
		v := newVendor(t, Knobs{})
		requireStatus(t, do(t, v, call{method: "POST", target: "/orders", form: withRef(orderForm(), "commit:nimbus:buy:1")}), http.StatusSeeOther)
		return v
	}
	v1, v2 := place(), place()
	for _, target := range []string{"/orders/ORD-100001", "/orders/ORD-100001/invoice.pdf", "/api/orders"} {
		a, b := get(t, v1, target).Body.Bytes(), get(t, v2, target).Body.Bytes()
		if !bytes.Equal(a, b) || !bytes.Equal(a, get(t, v1, target).Body.Bytes()) {
			t.Fatalf("%s differs between vendors or requests", target)
		}
	}
	golden(t, "order.html", get(t, v1, "/orders/ORD-100001").Body.Bytes())
	golden(t, "invoice.pdf", get(t, v1, "/orders/ORD-100001/invoice.pdf").Body.Bytes())
	golden(t, "orders.json", get(t, v1, "/api/orders").Body.Bytes())
}

func goldenExt(target string) string {
	if len(target) >= 5 && (target[:5] == "/api/" || target[:5] == "/__ad") {
		return ".json"
	}
	return ".html"
}

// golden compares got with testdata/golden/name, or rewrites it with -update.
// The files pin the exact bytes across processes and Go runs.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./sites -run Deterministic -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		lo := max(0, i-80)
		t.Fatalf("%s differs at byte %d:\ngot  …%q\nwant …%q\n(run with -update if the change is intended)",
			path, i, got[lo:min(len(got), i+80)], want[lo:min(len(want), i+80)])
	}
}
