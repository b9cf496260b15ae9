package sites

import (
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// decodeOrder parses an order JSON response.
func decodeOrder(t testing.TB, body string) Order {
	t.Helper()
	var o Order
	if err := json.Unmarshal([]byte(body), &o); err != nil {
		t.Fatalf("decode order: %v\n%s", err, body)
	}
	return o
}

func TestOrderFormFlow(t *testing.T) {
	v := newVendor(t, Knobs{})
	form := orderForm()
	form.Set("client_reference", "commit:nimbus:buy:abc")
	rec := do(t, v, call{method: "POST", target: "/orders", form: form})
	requireStatus(t, rec, http.StatusSeeOther)
	if loc := rec.Header().Get("Location"); loc != "/orders/ORD-100001" {
		t.Fatalf("Location = %q", loc)
	}
	page := get(t, v, "/orders/ORD-100001")
	requireStatus(t, page, 200)
	requireContains(t, page.Body.String(), "<h1>Order confirmed</h1>", `<span data-testid="order-id">ORD-100001</span>`,
		`data-field="total" data-amount="178.50" data-currency="USD">$178.50<`, `data-field="vat">$28.50<`,
		"commit:nimbus:buy:abc", `href="/orders/ORD-100001/invoice.pdf"`, "Download invoice (PDF)")

	// The same form again (a browser retry) replays the order.
	rec = do(t, v, call{method: "POST", target: "/orders", form: form})
	requireStatus(t, rec, http.StatusSeeOther)
	if rec.Header().Get("Location") != "/orders/ORD-100001" || rec.Header().Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: Location %q, Idempotent-Replayed %q", rec.Header().Get("Location"), rec.Header().Get("Idempotent-Replayed"))
	}
	if n := len(v.Orders()); n != 1 {
		t.Fatalf("orders = %d, want 1", n)
	}
}

func TestOrderIdempotency(t *testing.T) {
	tests := []struct {
		name       string
		first      call
		second     call
		wantStatus int
		wantOrders int
		wantBody   string
	}{
		{
			name:  "same header key same payload replays",
			first: call{method: "POST", target: "/api/orders", json: orderJSONBody, header: map[string]string{"Idempotency-Key": "k1"}},
			// seats as a string and upper-case plan: the same canonical payload.
			second:     call{method: "POST", target: "/api/orders", json: strings.Replace(strings.Replace(orderJSONBody, `"seats":10`, `"seats":"10"`, 1), `"team"`, `"Team"`, 1), header: map[string]string{"Idempotency-Key": "k1"}},
			wantStatus: 200, wantOrders: 1, wantBody: `"id": "ORD-100001"`,
		},
		{
			name:       "same key different payload is 422",
			first:      call{method: "POST", target: "/api/orders", json: orderJSONBody, header: map[string]string{"Idempotency-Key": "k1"}},
			second:     call{method: "POST", target: "/api/orders", json: strings.Replace(orderJSONBody, `"seats":10`, `"seats":11`, 1), header: map[string]string{"Idempotency-Key": "k1"}},
			wantStatus: 422, wantOrders: 1, wantBody: "Idempotency-Key reused with a different payload",
		},
		{
			name:       "client_reference field is the key",
			first:      call{method: "POST", target: "/api/orders", json: strings.Replace(orderJSONBody, `{`, `{"client_reference":"ref-1",`, 1)},
			second:     call{method: "POST", target: "/orders", form: withRef(orderForm(), "ref-1")},
			wantStatus: 303, wantOrders: 1,
		},
		{
			name:       "header key and form reference are one namespace",
			first:      call{method: "POST", target: "/api/orders", json: orderJSONBody, header: map[string]string{"Idempotency-Key": "ref-2"}},
			second:     call{method: "POST", target: "/orders", form: withRef(withField(orderForm(), "seats", "2"), "ref-2")},
			wantStatus: 422, wantOrders: 1, wantBody: "Idempotency-Key reused with a different payload",
		},
		{
			name:       "no key creates a new order every time",
			first:      call{method: "POST", target: "/api/orders", json: orderJSONBody},
			second:     call{method: "POST", target: "/api/orders", json: orderJSONBody},
			wantStatus: 201, wantOrders: 2, wantBody: `"id": "ORD-100002"`,
		},
		{
			name:       "different keys are different orders",
			first:      call{method: "POST", target: "/api/orders", json: orderJSONBody, header: map[string]string{"Idempotency-Key": "a"}},
			second:     call{method: "POST", target: "/api/orders", json: orderJSONBody, header: map[string]string{"Idempotency-Key": "b"}},
			wantStatus: 201, wantOrders: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := newVendor(t, Knobs{})
			first := do(t, v, tc.first)
			if first.Code != 201 && first.Code != 303 {
				t.Fatalf("first request: status %d\n%s", first.Code, first.Body)
			}
			second := do(t, v, tc.second)
			requireStatus(t, second, tc.wantStatus)
			requireContains(t, second.Body.String(), tc.wantBody)
			if n := len(v.Orders()); n != tc.wantOrders {
				t.Fatalf("orders = %d, want %d", n, tc.wantOrders)
			}
			if tc.wantStatus == 200 {
				if second.Header().Get("Idempotent-Replayed") != "true" {
					t.Fatal("replay lacks Idempotent-Replayed: true")
				}
				if second.Body.String() != first.Body.String() {
					t.Fatalf("replay body differs:\n%s\nvs\n%s", first.Body, second.Body)
				}
			}
		})
	}
}

// withRef sets the client_reference field of f and returns f.
func withRef(f url.Values, ref string) url.Values {
	f.Set("client_reference", ref)
	return f
}

// withField sets field k of f and returns f.
func withField(f url.Values, k, val string) url.Values {
	f.Set(k, val)
	return f
}

func TestOrderConcurrentSameKey(t *testing.T) {
	v := newVendor(t, Knobs{})
	const n = 20
	codes := make([]int, n)
	bodies := make([]string, n)
	atOnce(n, func(i int) {
		rec := do(t, v, call{method: "POST", target: "/api/orders", json: orderJSONBody, header: map[string]string{"Idempotency-Key": "race"}})
		codes[i], bodies[i] = rec.Code, rec.Body.String()
	})
	created := 0
	for i, c := range codes {
		switch c {
		case 201:
			created++
		case 200:
			if o := decodeOrder(t, bodies[i]); o.ID != "ORD-100001" {
				t.Fatalf("replay returned %s", o.ID)
			}
		case 409:
			requireContains(t, bodies[i], codeKeyInProgress)
		default:
			t.Fatalf("request %d: status %d: %s", i, c, bodies[i])
		}
	}
	if created != 1 || len(v.Orders()) != 1 {
		t.Fatalf("created %d responses, %d orders; want exactly one", created, len(v.Orders()))
	}
}

// The 409 path is real: while the first request holds the key, a second one
// with the same key is refused, and afterwards it replays.
func TestOrderKeyInProgress(t *testing.T) {
	v := newVendor(t, Knobs{})
	claimed, release := make(chan struct{}), make(chan struct{})
	v.onClaim = func(key string) {
		if key == "slow" {
			close(claimed)
			<-release
		}
	}
	req := call{method: "POST", target: "/api/orders", json: orderJSONBody, header: map[string]string{"Idempotency-Key": "slow"}}
	done := make(chan int)
	go func() { done <- do(t, v, req).Code }()
	<-claimed
	v.onClaim = nil // safe: the only reader is blocked above and does not read it again

	rec := do(t, v, req)
	requireStatus(t, rec, http.StatusConflict)
	requireContains(t, rec.Body.String(), codeKeyInProgress)
	form := do(t, v, call{method: "POST", target: "/orders", form: orderForm(), header: map[string]string{"Idempotency-Key": "slow"}})
	requireStatus(t, form, http.StatusConflict)
	requireContains(t, form.Body.String(), `role="alert"`)

	close(release)
	if code := <-done; code != http.StatusCreated {
		t.Fatalf("first request: %d", code)
	}
	requireStatus(t, do(t, v, req), http.StatusOK)
}

func TestOrderPriceChanged(t *testing.T) {
	v := newVendor(t, Knobs{})
	// The review page is priced at list price …
	review := get(t, v, "/checkout/review?plan=team&billing=monthly&seats=10&country=DE&email=buyer%40example.com")
	requireContains(t, review.Body.String(), `name="total_cents" value="17850"`)
	// … then the price rises before the commit.
	if err := v.SetKnobs(Knobs{PriceFactor: 1.1}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []call{
		{method: "POST", target: "/api/orders", json: orderJSONBody, header: map[string]string{"Idempotency-Key": "p"}},
		{method: "POST", target: "/orders", form: withRef(orderForm(), "p")},
	} {
		rec := do(t, v, c)
		requireStatus(t, rec, http.StatusConflict)
		requireContains(t, rec.Body.String(), "The price has changed; review your order again")
	}
	rec := do(t, v, call{method: "POST", target: "/api/orders", json: orderJSONBody})
	requireContains(t, rec.Body.String(), `"current_total_cents": 19635`)
	if n := len(v.Orders()); n != 0 {
		t.Fatalf("orders = %d after price change, want 0", n)
	}
	// A fresh review shows the new price and that total is accepted.
	requireContains(t, get(t, v, "/checkout/review?plan=team&billing=monthly&seats=10&country=DE&email=buyer%40example.com").Body.String(),
		`name="total_cents" value="19635"`, "$196.35")
	ok := do(t, v, call{method: "POST", target: "/api/orders", json: strings.Replace(orderJSONBody, "17850", "19635", 1), header: map[string]string{"Idempotency-Key": "p"}})
	requireStatus(t, ok, http.StatusCreated)
	if o := decodeOrder(t, ok.Body.String()); o.UnitPriceCents != 1650 || o.TotalCents != 19635 {
		t.Fatalf("order priced %+v", o)
	}
}

func TestOrderInvalid(t *testing.T) {
	v := newVendor(t, Knobs{})
	tests := []struct {
		name   string
		call   call
		status int
		want   string
	}{
		{"bad json", call{method: "POST", target: "/api/orders", json: `{"plan":`}, 400, codeInvalidRequest},
		{"json array", call{method: "POST", target: "/api/orders", json: `[1]`}, 400, codeInvalidRequest},
		{"trailing json", call{method: "POST", target: "/api/orders", json: orderJSONBody + `{}`}, 400, codeInvalidRequest},
		{"fractional seats", call{method: "POST", target: "/api/orders", json: strings.Replace(orderJSONBody, `"seats":10`, `"seats":1.5`, 1)}, 422, msgSeats},
		{"zero seats", call{method: "POST", target: "/api/orders", json: strings.Replace(orderJSONBody, `"seats":10`, `"seats":0`, 1)}, 422, msgSeats},
		{"missing total", call{method: "POST", target: "/api/orders", json: strings.Replace(orderJSONBody, `,"total_cents":17850`, ``, 1)}, 422, "total_cents"},
		{"enterprise", call{method: "POST", target: "/api/orders", json: strings.Replace(orderJSONBody, `"team"`, `"enterprise"`, 1)}, 422, msgPlan},
		{"bad country", call{method: "POST", target: "/api/orders", json: strings.Replace(orderJSONBody, `"DE"`, `"XX"`, 1)}, 422, msgCountry},
		{"bad email form", call{method: "POST", target: "/orders", form: withField(orderForm(), "email", "nobody")}, 422, msgEmail},
		{"bad billing form", call{method: "POST", target: "/orders", form: withField(orderForm(), "billing", "weekly")}, 422, msgBilling},
		{"control char key", call{method: "POST", target: "/api/orders", json: orderJSONBody, header: map[string]string{"Idempotency-Key": "a\x01b"}}, 400, codeInvalidKey},
		{"long key", call{method: "POST", target: "/api/orders", json: orderJSONBody, header: map[string]string{"Idempotency-Key": strings.Repeat("k", 256)}}, 400, codeInvalidKey},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := do(t, v, tc.call)
			requireStatus(t, rec, tc.status)
			requireContains(t, rec.Body.String(), tc.want)
		})
	}
	if n := len(v.Orders()); n != 0 {
		t.Fatalf("invalid requests created %d orders", n)
	}
}

func TestOrdersAPI(t *testing.T) {
	v := newVendor(t, Knobs{})
	do(t, v, call{method: "POST", target: "/api/orders", json: orderJSONBody, header: map[string]string{"Idempotency-Key": "hdr"}})
	do(t, v, call{method: "POST", target: "/orders", form: withRef(withField(withField(orderForm(), "seats", "1"), "total_cents", "1785"), "field")})
	do(t, v, call{method: "POST", target: "/api/orders", json: orderJSONBody})

	var list struct{ Orders []Order }
	body := get(t, v, "/api/orders").Body.String()
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Orders) != 3 || list.Orders[0].ID != "ORD-100001" || list.Orders[2].ID != "ORD-100003" || list.Orders[2].Created != 3 {
		t.Fatalf("list = %+v", list.Orders)
	}
	for _, key := range []string{"hdr", "field"} {
		var got struct{ Orders []Order }
		if err := json.Unmarshal(get(t, v, "/api/orders?client_reference="+key).Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Orders) != 1 || got.Orders[0].ClientReference != key {
			t.Fatalf("filter %q = %+v", key, got.Orders)
		}
	}
	requireContains(t, get(t, v, "/api/orders?client_reference=none").Body.String(), `"orders": []`)
	one := get(t, v, "/api/orders/ORD-100002")
	requireStatus(t, one, 200)
	o := decodeOrder(t, one.Body.String())
	want := Order{ID: "ORD-100002", ClientReference: "field", Plan: "team", Billing: "monthly", Seats: 1, Country: "DE",
		Email: "buyer@example.com", Currency: "USD", UnitPriceCents: 1500, SubtotalCents: 1500, VATCents: 285, TotalCents: 1785,
		PayloadSHA256: o.PayloadSHA256, Created: 2}
	if o != want {
		t.Fatalf("order = %+v\nwant    %+v", o, want)
	}
	if len(o.PayloadSHA256) != 64 {
		t.Fatalf("payload hash %q", o.PayloadSHA256)
	}
}

// The order was stored at the price of its own request, so a later price
// change must not alter its confirmation page or invoice.
func TestOrderPageKeepsOrderPrice(t *testing.T) {
	v := newVendor(t, Knobs{})
	do(t, v, call{method: "POST", target: "/orders", form: orderForm()})
	before := get(t, v, "/orders/ORD-100001").Body.String()
	pdf := get(t, v, "/orders/ORD-100001/invoice.pdf").Body.String()
	if err := v.SetKnobs(Knobs{PriceFactor: 2}); err != nil {
		t.Fatal(err)
	}
	if get(t, v, "/orders/ORD-100001").Body.String() != before || get(t, v, "/orders/ORD-100001/invoice.pdf").Body.String() != pdf {
		t.Fatal("confirmation or invoice changed with the price knob")
	}
}

func TestCanonicalPayload(t *testing.T) {
	req, errs := parseOrderFields(orderFields{Plan: " Team ", Billing: "MONTHLY", Seats: " 10", Country: "de",
		Email: " a<b>@example.com ", VATID: "de 123.456-789", TotalCents: "17850"}, true)
	if errs != nil {
		t.Fatal(errs)
	}
	const want = `{"billing":"monthly","country":"DE","email":"a<b>@example.com","plan":"team","seats":10,"total_cents":17850,"vat_id":"DE123456789"}`
	if got := string(req.canonical()); got != want {
		t.Fatalf("canonical = %s\nwant        %s", got, want)
	}
	// sha256 of want, pinned so the canonical form cannot drift silently.
	if got := req.payloadSHA256(); got != "3137159cb7e1b38d2ad6b481f6a574ad05e88cf16c475b000b9615fe5127094e" {
		t.Fatalf("payload hash = %s", got)
	}
}

// The review page's "Edit order" link and the price-changed page's
// "Review your order again" link lead back into the flow with values kept.
func TestFlowLinksKeepValues(t *testing.T) {
	v := newVendor(t, Knobs{})
	review := get(t, v, "/checkout/review?plan=business&billing=annual&seats=7&country=FR&email=a%40b.fr&vat_id=FR12345678901").Body.String()
	edit := regexp.MustCompile(`href="([^"]+)" data-testid="edit-order"`).FindStringSubmatch(review)
	if edit == nil {
		t.Fatal("no edit link")
	}
	checkout := get(t, v, html.UnescapeString(edit[1]))
	requireStatus(t, checkout, 200)
	requireContains(t, checkout.Body.String(), "Business plan, billed annually", `name="seats" min="1" max="500" value="7"`,
		`<option value="FR" selected>`, `value="a@b.fr"`, `value="FR12345678901"`, `<option value="annual" selected>`)

	if err := v.SetKnobs(Knobs{PriceFactor: 1.5}); err != nil {
		t.Fatal(err)
	}
	form := url.Values{"plan": {"business"}, "billing": {"annual"}, "seats": {"7"}, "country": {"FR"}, "email": {"a@b.fr"}, "vat_id": {"FR12345678901"}, "total_cents": {"201600"}}
	problem := do(t, v, call{method: "POST", target: "/orders", form: form})
	requireStatus(t, problem, http.StatusConflict)
	again := regexp.MustCompile(`href="([^"]+)" data-testid="problem-link">Review your order again`).FindStringSubmatch(problem.Body.String())
	if again == nil {
		t.Fatalf("no review link:\n%s", problem.Body)
	}
	rv := get(t, v, html.UnescapeString(again[1]))
	requireStatus(t, rv, 200)
	requireContains(t, rv.Body.String(), `name="total_cents" value="302400"`, "Reverse charge")
}

// Knobs.SeatsOffset: the order is recorded and priced with the offset seats,
// its hash is that of the request as submitted, and a retry with the same key
// replays it (also after the knob is turned off).
func TestSeatsOffset(t *testing.T) {
	tests := []struct {
		name                         string
		offset, seats                int
		api                          bool
		wantSeats                    int
		wantSubtotal, wantVAT, total int64
	}{
		{name: "off", offset: 0, seats: 10, wantSeats: 10, wantSubtotal: 15000, wantVAT: 2850, total: 17850},
		{name: "plus two form", offset: 2, seats: 10, wantSeats: 12, wantSubtotal: 18000, wantVAT: 3420, total: 21420},
		{name: "plus two api", offset: 2, seats: 10, api: true, wantSeats: 12, wantSubtotal: 18000, wantVAT: 3420, total: 21420},
		{name: "minus three api", offset: -3, seats: 10, api: true, wantSeats: 7, wantSubtotal: 10500, wantVAT: 1995, total: 12495},
		{name: "clamped to one", offset: -20, seats: 10, wantSeats: 1, wantSubtotal: 1500, wantVAT: 285, total: 1785},
		{name: "largest", offset: MaxSeatsOffset, seats: maxSeats, api: true, wantSeats: 999, wantSubtotal: 1498500, wantVAT: 284715, total: 1783215},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := newVendor(t, Knobs{SeatsOffset: tc.offset})
			form := withField(orderForm(), "seats", strconv.Itoa(tc.seats))
			req, errs := parseOrderFields(orderFieldsFromForm(form), false)
			if errs != nil {
				t.Fatal(errs)
			}
			submitted := newQuote(req, 1).TotalCents // what the review page showed
			form.Set("total_cents", strconv.FormatInt(submitted, 10))
			req.TotalCents = submitted

			place := func() *httptest.ResponseRecorder {
				if tc.api {
					body, err := json.Marshal(map[string]string{
						"plan": form.Get("plan"), "billing": form.Get("billing"), "seats": form.Get("seats"),
						"country": form.Get("country"), "email": form.Get("email"), "total_cents": form.Get("total_cents"),
					})
					if err != nil {
						t.Fatal(err)
					}
					return do(t, v, call{method: "POST", target: "/api/orders", json: string(body), header: map[string]string{"Idempotency-Key": "offset"}})
				}
				return do(t, v, call{method: "POST", target: "/orders", form: withRef(form, "offset")})
			}
			first := place()
			if first.Code != http.StatusCreated && first.Code != http.StatusSeeOther {
				t.Fatalf("order: status %d\n%s", first.Code, first.Body)
			}
			orders := v.Orders()
			if len(orders) != 1 {
				t.Fatalf("orders = %d, want 1", len(orders))
			}
			o := orders[0]
			if o.Seats != tc.wantSeats || o.UnitPriceCents != 1500 || o.SubtotalCents != tc.wantSubtotal || o.VATCents != tc.wantVAT || o.TotalCents != tc.total {
				t.Fatalf("recorded seats %d, unit %d, subtotal %d, VAT %d, total %d; want %d, 1500, %d, %d, %d",
					o.Seats, o.UnitPriceCents, o.SubtotalCents, o.VATCents, o.TotalCents, tc.wantSeats, tc.wantSubtotal, tc.wantVAT, tc.total)
			}
			if o.PayloadSHA256 != req.payloadSHA256() {
				t.Fatalf("payload hash %s, want the submitted request's %s", o.PayloadSHA256, req.payloadSHA256())
			}
			requireContains(t, get(t, v, "/orders/"+o.ID).Body.String(),
				`data-testid="order-seats">`+strconv.Itoa(tc.wantSeats)+`<`,
				`data-field="subtotal">`+formatUSD(tc.wantSubtotal)+`<`,
				`data-field="total" data-amount="`+formatAmount(tc.total)+`" data-currency="USD">`+formatUSD(tc.total)+`<`)

			for _, k := range []Knobs{{SeatsOffset: tc.offset}, {}} {
				if err := v.SetKnobs(k); err != nil {
					t.Fatal(err)
				}
				again := place()
				if again.Code != http.StatusOK && again.Code != http.StatusSeeOther || again.Header().Get("Idempotent-Replayed") != "true" {
					t.Fatalf("retry with knobs %+v: status %d, Idempotent-Replayed %q\n%s", k, again.Code, again.Header().Get("Idempotent-Replayed"), again.Body)
				}
				if got := v.Orders(); len(got) != 1 || got[0] != o {
					t.Fatalf("retry with knobs %+v changed the orders: %+v", k, got)
				}
			}
		})
	}
}
