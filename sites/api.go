package sites

import (
	"encoding/json"
	"net/http"
)

// writeJSON writes v as indented JSON with a trailing newline.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, `{"error":{"code":"internal","message":"encode failed"}}`, http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeJSONError writes {"error":{"code":…,"message":…, extra…}}.
func writeJSONError(w http.ResponseWriter, status int, code, message string, extra map[string]any) {
	e := map[string]any{"code": code, "message": message}
	for k, v := range extra {
		e[k] = v
	}
	writeJSON(w, status, map[string]any{"error": e})
}

// ordersList is the body of GET /api/orders.
type ordersList struct {
	Orders []Order `json:"orders"`
}

// apiListOrders is GET /api/orders[?client_reference=KEY]: all orders in
// creation order, or those created with KEY (as client_reference field or
// Idempotency-Key header).
func (v *Vendor) apiListOrders(w http.ResponseWriter, r *http.Request) {
	var orders []Order
	if key := r.URL.Query().Get("client_reference"); key != "" {
		orders = v.store.withReference(key)
	} else {
		orders = v.store.list()
	}
	if orders == nil {
		orders = []Order{}
	}
	writeJSON(w, http.StatusOK, ordersList{Orders: orders})
}

// apiGetOrder is GET /api/orders/{id}.
func (v *Vendor) apiGetOrder(w http.ResponseWriter, r *http.Request) {
	o, ok := v.store.get(r.PathValue("id"))
	if !ok {
		writeJSONError(w, http.StatusNotFound, codeNotFound, "No order with id "+r.PathValue("id"), nil)
		return
	}
	writeJSON(w, http.StatusOK, o)
}

// plansDoc is the body of GET /api/plans.
type plansDoc struct {
	Billing  string     `json:"billing"`
	Currency string     `json:"currency"`
	Plans    []planCard `json:"plans"`
}

// apiPlans is GET /api/plans?billing=…: the plan cards in the request's
// variant order, priced with the current knobs (used by LazyContent).
func (v *Vendor) apiPlans(w http.ResponseWriter, r *http.Request) {
	st := stateOf(r)
	billing := requestBilling(r)
	writeJSON(w, http.StatusOK, plansDoc{
		Billing: billing, Currency: orderCurrency,
		Plans: planCards(st.variant, billing, st.knobs.priceFactor()),
	})
}

// apiNotFound answers unknown /api/ paths with a JSON 404.
func (v *Vendor) apiNotFound(w http.ResponseWriter, r *http.Request) {
	writeJSONError(w, http.StatusNotFound, codeNotFound, "No API endpoint at "+r.URL.Path, nil)
}
