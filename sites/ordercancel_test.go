package sites

import (
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// placeOne places orderForm on v and returns the order's id.
func placeOne(t *testing.T, v *Vendor, cookies ...*http.Cookie) string {
	t.Helper()
	rec := do(t, v, call{method: "POST", target: "/orders", form: orderForm(), cookies: cookies})
	requireStatus(t, rec, http.StatusSeeOther)
	return strings.TrimPrefix(rec.Header().Get("Location"), "/orders/")
}

// cancelCall is a cancel form post with an optional header key and
// client_reference field.
func cancelCall(id, headerKey, ref string) call {
	c := call{method: "POST", target: "/orders/" + id + "/cancel", form: url.Values{"client_reference": {ref}}}
	if headerKey != "" {
		c.header = map[string]string{"Idempotency-Key": headerKey}
	}
	return c
}

// requireRedirect fails unless rec is a 303 to the order page of id with the
// given Idempotent-Replayed header ("" or "true").
func requireRedirect(t *testing.T, rec *httptest.ResponseRecorder, id, replayed string) {
	t.Helper()
	requireStatus(t, rec, http.StatusSeeOther)
	if loc := rec.Header().Get("Location"); loc != "/orders/"+id {
		t.Fatalf("Location = %q, want /orders/%s", loc, id)
	}
	if got := rec.Header().Get("Idempotent-Replayed"); got != replayed {
		t.Fatalf("Idempotent-Replayed = %q, want %q", got, replayed)
	}
}

func TestCancelOrder(t *testing.T) {
	tests := []struct {
		name           string
		headerKey, ref string
		wantRef        string
	}{
		{name: "header key wins over the field", headerKey: "undo:hdr", ref: "undo:field", wantRef: "undo:hdr"},
		{name: "form field", ref: "undo:field", wantRef: "undo:field"},
		{name: "no key", wantRef: ""},
		{name: "key trimmed", ref: "  undo:trim ", wantRef: "undo:trim"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := newVendor(t, Knobs{})
			id := placeOne(t, v)
			other := placeOne(t, v)

			rec := do(t, v, cancelCall(id, tc.headerKey, tc.ref))
			requireRedirect(t, rec, id, "")
			o, _ := v.store.get(id)
			if !o.Cancelled || o.CancelReference != tc.wantRef || v.Cancellations() != 1 {
				t.Fatalf("after cancel: cancelled %v, reference %q, cancellations %d; want true, %q, 1",
					o.Cancelled, o.CancelReference, v.Cancellations(), tc.wantRef)
			}
			if o2, _ := v.store.get(other); o2.Cancelled {
				t.Fatal("cancelling one order cancelled another")
			}

			// Again, with the same key, another key or none: nothing changes.
			for _, again := range []call{cancelCall(id, tc.headerKey, tc.ref), cancelCall(id, "undo:other", ""), cancelCall(id, "", "")} {
				rec := do(t, v, again)
				requireRedirect(t, rec, id, "true")
				if got, _ := v.store.get(id); got != o || v.Cancellations() != 1 {
					t.Fatalf("a second cancel changed the order or the count: %+v, %d", got, v.Cancellations())
				}
			}

			api := get(t, v, "/api/orders/"+id)
			requireStatus(t, api, http.StatusOK)
			if got := decodeOrder(t, api.Body.String()); got != o {
				t.Fatalf("API order = %+v, want %+v", got, o)
			}
			requireContains(t, api.Body.String(), `"cancelled": true`)
			list := get(t, v, "/api/orders").Body.String()
			if n := strings.Count(list, `"cancelled": true`); n != 1 {
				t.Fatalf("order list shows %d cancelled orders, want 1:\n%s", n, list)
			}
			requireLacks(t, get(t, v, "/api/orders/"+other).Body.String(), "cancelled", "cancel_reference")
		})
	}
}

func TestCancelOrderRefused(t *testing.T) {
	v := newVendor(t, Knobs{})
	id := placeOne(t, v)
	tests := []struct {
		name   string
		call   call
		status int
		want   []string
	}{
		{name: "unknown order", call: cancelCall("ORD-999999", "k", ""), status: http.StatusNotFound, want: []string{"<h1>Page not found</h1>"}},
		{name: "malformed id", call: cancelCall("nope", "", ""), status: http.StatusNotFound, want: []string{"Page not found"}},
		{name: "get", call: call{target: "/orders/" + id + "/cancel"}, status: http.StatusMethodNotAllowed},
		{name: "control char key", call: cancelCall(id, "a\x01b", ""), status: http.StatusBadRequest,
			want: []string{`role="alert"`, "We couldn&#39;t cancel your order", msgInvalidKey, `href="/orders/` + id + `" data-testid="problem-link">Back to your order`}},
		{name: "long field key", call: cancelCall(id, "", strings.Repeat("k", 256)), status: http.StatusBadRequest, want: []string{msgInvalidKey}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := do(t, v, tc.call)
			requireStatus(t, rec, tc.status)
			requireContains(t, rec.Body.String(), tc.want...)
			if tc.status == http.StatusMethodNotAllowed && rec.Header().Get("Allow") != "POST" {
				t.Fatalf("Allow = %q, want POST", rec.Header().Get("Allow"))
			}
		})
	}
	if o, _ := v.store.get(id); o.Cancelled || v.Cancellations() != 0 {
		t.Fatalf("a refused cancel changed the order: %+v, %d cancellations", o, v.Cancellations())
	}
}

// The order page shows the status and, while active, the cancel form; a
// browser submitting that form as served cancels the order.
func TestOrderPageCancel(t *testing.T) {
	v := newVendor(t, Knobs{})
	id := placeOne(t, v)
	active := mainOf(get(t, v, "/orders/"+id).Body.String())
	requireContains(t, active, `data-testid="order-status">active<`,
		`<form method="post" action="/orders/`+id+`/cancel" data-testid="cancel-form">`,
		`<input type="hidden" name="client_reference" value="">`,
		`<button type="submit" class="button" data-testid="cancel-order">Cancel order</button>`,
		`data-testid="order-seats">10<`)
	requireLacks(t, active, "order-cancelled", "This order was cancelled.")

	// Submit the form as a browser would: its action and its fields.
	action := regexp.MustCompile(`<form method="post" action="([^"]+)" data-testid="cancel-form">`).FindStringSubmatch(active)
	fields := url.Values{}
	for _, m := range regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`).FindAllStringSubmatch(active, -1) {
		fields.Add(m[1], html.UnescapeString(m[2]))
	}
	rec := do(t, v, call{method: "POST", target: html.UnescapeString(action[1]), form: fields})
	requireRedirect(t, rec, id, "")

	cancelled := mainOf(get(t, v, "/orders/"+id).Body.String())
	requireContains(t, cancelled, `data-testid="order-status">cancelled<`,
		`<p class="notice" data-testid="order-cancelled">This order was cancelled.</p>`,
		`data-testid="order-seats">10<`, `data-testid="download-invoice"`)
	requireLacks(t, cancelled, "cancel-order", "cancel-form", "/cancel", "Cancel order")
}

func TestCancelOrderConcurrent(t *testing.T) {
	v := newVendor(t, Knobs{})
	id := placeOne(t, v)
	const n = 20
	replayed := make([]string, n)
	codes := make([]int, n)
	atOnce(n, func(i int) {
		rec := do(t, v, cancelCall(id, "", "undo-"+string(rune('a'+i))))
		codes[i], replayed[i] = rec.Code, rec.Header().Get("Idempotent-Replayed")
	})
	changed := 0
	for i := range n {
		if codes[i] != http.StatusSeeOther {
			t.Fatalf("request %d: status %d", i, codes[i])
		}
		if replayed[i] == "" {
			changed++
		}
	}
	o, _ := v.store.get(id)
	if changed != 1 || v.Cancellations() != 1 || !o.Cancelled {
		t.Fatalf("%d cancels changed the order, Cancellations() = %d; want exactly one", changed, v.Cancellations())
	}
	if !strings.HasPrefix(o.CancelReference, "undo-") {
		t.Fatalf("cancel reference %q", o.CancelReference)
	}
}

// With RequireLogin the cancel endpoint is behind the login like the order.
func TestCancelOrderRequiresLogin(t *testing.T) {
	v := newVendor(t, Knobs{RequireLogin: true})
	token, err := v.Login(DemoEmail, DemoPassword)
	if err != nil {
		t.Fatal(err)
	}
	session := &http.Cookie{Name: SessionCookie, Value: token}
	id := placeOne(t, v, session)

	rec := do(t, v, cancelCall(id, "undo", ""))
	requireStatus(t, rec, http.StatusSeeOther)
	if loc := rec.Header().Get("Location"); !strings.HasPrefix(loc, "/login?next=") {
		t.Fatalf("Location = %q, want the login page", loc)
	}
	if v.Cancellations() != 0 {
		t.Fatal("a cancel without a session counted")
	}

	c := cancelCall(id, "undo", "")
	c.cookies = []*http.Cookie{session}
	rec = do(t, v, c)
	requireRedirect(t, rec, id, "")
	if v.Cancellations() != 1 {
		t.Fatalf("Cancellations() = %d, want 1", v.Cancellations())
	}
}

// TestIDDrift renames the order page's new test ids like every other.
func TestOrderPageTestIDDrift(t *testing.T) {
	v := newVendor(t, Knobs{TestIDDrift: true})
	id := placeOne(t, v)
	active := get(t, v, "/orders/"+id).Body.String()
	requireContains(t, active, `data-testid="order-status-v2"`, `data-testid="cancel-order-v2"`, `data-testid="order-seats-v2"`)
	requireLacks(t, active, `data-testid="cancel-order"`, `data-testid="order-status"`, `data-testid="order-seats"`)
	rec := do(t, v, cancelCall(id, "", "undo"))
	requireRedirect(t, rec, id, "")
	requireContains(t, get(t, v, "/orders/"+id).Body.String(), `data-testid="order-cancelled-v2"`)
}

// A cancellation is persisted: a restart keeps it, replays a second cancel
// and counts it once; active orders are written without the new fields, and
// files written before they existed load as active orders.
func TestOrdersFileCancel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "orders.json")
	old, err := os.ReadFile(filepath.Join("testdata", "orders-gap.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	v1, err := NewVendor(VendorOptions{OrdersFile: path})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range v1.Orders() {
		if o.Cancelled || o.CancelReference != "" {
			t.Fatalf("order of an old file loaded as cancelled: %+v", o)
		}
	}
	if v1.Cancellations() != 0 {
		t.Fatalf("Cancellations() = %d on an old file", v1.Cancellations())
	}
	rec := do(t, v1, cancelCall("ORD-100007", "undo:7", ""))
	requireRedirect(t, rec, "ORD-100007", "")

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	requireContains(t, string(data), `"cancelled": true,`, `"cancel_reference": "undo:7"`)
	if n := strings.Count(string(data), `"cancelled"`); n != 1 {
		t.Fatalf("orders file has %d cancelled keys, want 1 (active orders omit it):\n%s", n, data)
	}

	v2, err := NewVendor(VendorOptions{OrdersFile: path})
	if err != nil {
		t.Fatal(err)
	}
	got, want := v2.Orders(), v1.Orders()
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] || !got[1].Cancelled || got[1].CancelReference != "undo:7" {
		t.Fatalf("reloaded orders = %+v, want %+v", got, want)
	}
	if v2.Cancellations() != 1 {
		t.Fatalf("Cancellations() after restart = %d, want 1", v2.Cancellations())
	}
	rec = do(t, v2, cancelCall("ORD-100007", "undo:again", ""))
	requireRedirect(t, rec, "ORD-100007", "true")
	if v2.Cancellations() != 1 {
		t.Fatalf("a replayed cancel after restart counted: %d", v2.Cancellations())
	}
	requireContains(t, get(t, v2, "/orders/ORD-100007").Body.String(), `data-testid="order-status">cancelled<`)
}

// A cancellation whose write fails leaves the order active and can be
// retried.
func TestOrdersFileCancelWriteFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "orders.json")
	v, err := NewVendor(VendorOptions{OrdersFile: path})
	if err != nil {
		t.Fatal(err)
	}
	id := placeOne(t, v)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	// A non-empty directory where the file should go makes the rename fail.
	if err := os.MkdirAll(filepath.Join(path, "blocker"), 0o755); err != nil {
		t.Fatal(err)
	}
	rec := do(t, v, cancelCall(id, "w", ""))
	requireStatus(t, rec, http.StatusInternalServerError)
	requireContains(t, rec.Body.String(), `role="alert"`, msgCancelNotSaved)
	if o, _ := v.store.get(id); o.Cancelled || o.CancelReference != "" || v.Cancellations() != 0 {
		t.Fatalf("a failed write kept the cancellation: %+v", o)
	}
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	rec = do(t, v, cancelCall(id, "w", ""))
	requireRedirect(t, rec, id, "")
	if v.Cancellations() != 1 {
		t.Fatalf("Cancellations() = %d after the retry, want 1", v.Cancellations())
	}
}

// The cancelled order page is as deterministic as the others.
func TestDeterministicCancelledOrderPage(t *testing.T) {
	render := func() []byte {
		v := newVendor(t, Knobs{})
		requireStatus(t, do(t, v, call{method: "POST", target: "/orders", form: withRef(orderForm(), "commit:nimbus:buy:1")}), http.StatusSeeOther)
		requireStatus(t, do(t, v, cancelCall("ORD-100001", "undo:nimbus:buy:1", "")), http.StatusSeeOther)
		return get(t, v, "/orders/ORD-100001").Body.Bytes()
	}
	a, b := render(), render()
	if string(a) != string(b) {
		t.Fatal("cancelled order page differs between vendors")
	}
	golden(t, "order-cancelled.html", a)
}
