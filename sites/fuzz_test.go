package sites

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// checkParsedOrder asserts the invariants of a successfully parsed order
// request: fields in range, canonical form stable under re-decoding.
func checkParsedOrder(t *testing.T, req orderRequest) {
	t.Helper()
	if p, ok := findPlan(req.Plan); !ok || !p.SelfServe {
		t.Fatalf("accepted plan %q", req.Plan)
	}
	if !validBilling(req.Billing) || req.Seats < minSeats || req.Seats > maxSeats || req.TotalCents < 0 {
		t.Fatalf("accepted out-of-range request %+v", req)
	}
	if _, ok := findCountry(req.Country); !ok || !validEmail(req.Email) || !validVATID(req.VATID) {
		t.Fatalf("accepted invalid request %+v", req)
	}
	var c canonicalPayload
	if err := json.Unmarshal(req.canonical(), &c); err != nil {
		t.Fatalf("canonical form is not JSON: %v", err)
	}
	// Re-decoding the canonical form gives the same request and hash.
	f, err := orderFieldsFromJSON(req.canonical())
	if err != nil {
		t.Fatalf("canonical form does not decode: %v", err)
	}
	again, errs := parseOrderFields(f, true)
	if errs != nil || again != req || again.payloadSHA256() != req.payloadSHA256() {
		t.Fatalf("canonical round trip: %+v %v, want %+v", again, errs, req)
	}
}

func FuzzOrderJSON(f *testing.F) {
	f.Add([]byte(orderJSONBody))
	f.Add([]byte(`{"plan":"Business","billing":"annual","seats":"500","country":"nl","email":"x@y","vat_id":"nl 1234 5678 9b01","total_cents":"14400000","client_reference":"k"}`))
	f.Add([]byte(`{"plan":"team","seats":1e2,"total_cents":-1}`))
	f.Add([]byte(`{"seats":null,"total_cents":{}}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"plan":"team"} trailing`))
	f.Add([]byte(`{"email":"\u0000@x","seats":18446744073709551616}`))
	v := newVendor(f, Knobs{})
	f.Fuzz(func(t *testing.T, body []byte) {
		fields, err := orderFieldsFromJSON(body)
		if err != nil {
			if !errors.Is(err, errOrderBody) {
				t.Fatalf("error %v does not wrap errOrderBody", err)
			}
		} else if req, errs := parseOrderFields(fields, true); errs == nil {
			checkParsedOrder(t, req)
		}
		rec := do(t, v, call{method: http.MethodPost, target: "/api/orders", json: string(body)})
		switch rec.Code {
		case http.StatusCreated, http.StatusOK, http.StatusBadRequest, http.StatusConflict, http.StatusUnprocessableEntity:
		default:
			t.Fatalf("status %d for %q", rec.Code, body)
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("response is not JSON: %s", rec.Body)
		}
	})
}

func FuzzOrderForm(f *testing.F) {
	f.Add(orderForm().Encode())
	f.Add(withRef(orderForm(), "commit:nimbus:buy:0f").Encode())
	f.Add("plan=team&billing=annual&seats=%2B5&country=US&email=%40&total_cents=6000")
	f.Add("plan=team&plan=business&seats=1&seats=2")
	f.Add("seats=99999999999999999999&total_cents=-0")
	f.Add("%zz=1;&email=a@b")
	v := newVendor(f, Knobs{})
	f.Fuzz(func(t *testing.T, raw string) {
		vals, _ := url.ParseQuery(raw) // keeps the pairs it can parse, like a server
		if req, errs := parseOrderFields(orderFieldsFromForm(vals), true); errs == nil {
			checkParsedOrder(t, req)
		}
		rec := do(t, v, call{method: http.MethodPost, target: "/orders", body: raw, header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}})
		switch rec.Code {
		case http.StatusSeeOther:
			if !strings.HasPrefix(rec.Header().Get("Location"), "/orders/ORD-") {
				t.Fatalf("redirect to %q", rec.Header().Get("Location"))
			}
		case http.StatusBadRequest, http.StatusConflict, http.StatusUnprocessableEntity:
			if !strings.Contains(rec.Body.String(), `role="alert"`) {
				t.Fatal("error page without an alert")
			}
		default:
			t.Fatalf("status %d for %q", rec.Code, raw)
		}
	})
}

// FuzzCancelForm: whatever the cancel form and key, the answer is a 303 to
// the order or a 400 page with an alert, and at most one cancellation counts.
func FuzzCancelForm(f *testing.F) {
	f.Add("client_reference=", "")
	f.Add("client_reference=undo%3A1", "")
	f.Add("client_reference=a&client_reference=b", "hdr")
	f.Add("client_reference=%01", "")
	f.Add("%zz=1;", " \t")
	v := newVendor(f, Knobs{})
	do(f, v, call{method: http.MethodPost, target: "/orders", form: orderForm()})
	f.Fuzz(func(t *testing.T, raw, key string) {
		c := call{method: http.MethodPost, target: "/orders/ORD-100001/cancel", body: raw,
			header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}}
		if validKey(key) { // httptest refuses header values a client could not send
			c.header["Idempotency-Key"] = key
		}
		rec := do(t, v, c)
		switch rec.Code {
		case http.StatusSeeOther:
			if rec.Header().Get("Location") != "/orders/ORD-100001" {
				t.Fatalf("redirect to %q", rec.Header().Get("Location"))
			}
		case http.StatusBadRequest:
			if !strings.Contains(rec.Body.String(), `role="alert"`) {
				t.Fatal("error page without an alert")
			}
		default:
			t.Fatalf("status %d for %q, key %q", rec.Code, raw, key)
		}
		if n := v.Cancellations(); n > 1 {
			t.Fatalf("Cancellations() = %d", n)
		}
	})
}

func FuzzKnobsJSON(f *testing.F) {
	for _, k := range []Knobs{{}, DefaultKnobs(), {ABVariant: "random", PriceFactor: 1.1, FailStatus: map[string]int{"/": 503}, HangPaths: []string{"/x"}, Drift: "é"}} {
		b, err := json.Marshal(k)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"latency":123}`))
	f.Add([]byte(`{"latency":"-5m"}`))
	f.Add([]byte(`{"fail_status":{"":0}}`))
	f.Add([]byte(`{"nope":1}`))
	f.Add([]byte(`{"seats_offset":-499}`))
	f.Add([]byte(`{"seats_offset":500}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var k Knobs
		if err := k.UnmarshalJSON(data); err != nil || k.Validate() != nil {
			return
		}
		b, err := json.Marshal(k)
		if err != nil {
			t.Fatalf("marshal valid knobs: %v", err)
		}
		var back Knobs
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("re-decode %s: %v", b, err)
		}
		if !reflect.DeepEqual(normalizeKnobs(back), normalizeKnobs(k)) {
			t.Fatalf("round trip changed knobs:\n%+v\n%+v", back, k)
		}
	})
}

// normalizeKnobs maps empty collections to nil for comparison.
func normalizeKnobs(k Knobs) Knobs {
	if len(k.FailStatus) == 0 {
		k.FailStatus = nil
	}
	if len(k.HangPaths) == 0 {
		k.HangPaths = nil
	}
	return k
}
