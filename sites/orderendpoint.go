package sites

import (
	"errors"
	"io"
	"net/http"
	"strings"
)

// Stable error codes of the order endpoint (JSON "error.code").
const (
	codeInvalidRequest = "invalid_request"
	codeInvalidKey     = "invalid_idempotency_key"
	codeInvalidFields  = "invalid_fields"
	codeKeyReused      = "idempotency_key_reused"
	codeKeyInProgress  = "idempotency_key_in_progress"
	codePriceChanged   = "price_changed"
	codeInternal       = "internal"
	codeNotFound       = "not_found"
)

// Messages of the order endpoint.
const (
	msgKeyReused     = "Idempotency-Key reused with a different payload"
	msgKeyInProgress = "A request with this Idempotency-Key is still being processed; retry later"
	msgPriceChanged  = "The price has changed; review your order again"
	msgInvalidKey    = "The idempotency key must be 1 to 255 printable ASCII characters"
	msgInvalidFields = "Some order fields are invalid"
)

// placement is the outcome of one order request.
type placement struct {
	status   int // 201 created, 200 replayed, or an error status
	order    Order
	replayed bool
	code     string
	message  string
	fields   []fieldError
	req      orderRequest // the parsed payload (valid when status is 409 price_changed)
	current  int64        // current total when the price changed
}

// placeOrder runs the order protocol for one request: key selection (header,
// else client_reference), field validation (422), idempotency (replay, 422
// on a different payload, 409 while in progress), re-pricing with the
// request's knobs (409 on a stale total) and creation (201), with the seats
// Knobs.SeatsOffset makes it record.
func (v *Vendor) placeOrder(headerKey string, f orderFields, k Knobs) placement {
	key := strings.TrimSpace(headerKey)
	if key == "" {
		key = strings.TrimSpace(f.ClientReference)
	}
	if key != "" && !validKey(key) {
		return placement{status: http.StatusBadRequest, code: codeInvalidKey, message: msgInvalidKey}
	}
	req, errs := parseOrderFields(f, true)
	if len(errs) > 0 {
		return placement{status: http.StatusUnprocessableEntity, code: codeInvalidFields, message: msgInvalidFields, fields: errs}
	}
	hash := req.payloadSHA256()
	if key != "" {
		prev, replay, err := v.store.claim(key, hash)
		switch {
		case errors.Is(err, errKeyInProgress):
			return placement{status: http.StatusConflict, code: codeKeyInProgress, message: msgKeyInProgress}
		case errors.Is(err, errKeyReused):
			return placement{status: http.StatusUnprocessableEntity, code: codeKeyReused, message: msgKeyReused}
		case replay:
			return placement{status: http.StatusOK, order: prev, replayed: true}
		}
		defer v.store.release(key)
		if v.onClaim != nil {
			v.onClaim(key)
		}
	}
	q := newQuote(req, k.priceFactor())
	if q.TotalCents != req.TotalCents {
		return placement{status: http.StatusConflict, code: codePriceChanged, message: msgPriceChanged, req: req, current: q.TotalCents}
	}
	// With Knobs.SeatsOffset the wrong quantity reaches the store: the order
	// is recorded and priced with other seats than requested, while its hash
	// stays that of the request as submitted.
	recorded := req
	recorded.Seats = k.recordedSeats(req.Seats)
	q = newQuote(recorded, k.priceFactor())
	o, err := v.store.create(Order{
		ClientReference: key, Plan: req.Plan, Billing: req.Billing, Seats: recorded.Seats,
		Country: req.Country, Email: req.Email, VATID: req.VATID,
		UnitPriceCents: q.UnitCents, SubtotalCents: q.SubtotalCents, VATCents: q.VATCents, TotalCents: q.TotalCents,
		PayloadSHA256: hash,
	})
	if err != nil {
		return placement{status: http.StatusInternalServerError, code: codeInternal, message: "The order could not be saved; nothing was charged"}
	}
	return placement{status: http.StatusCreated, order: o}
}

// problemBody is the model of the order problem page.
type problemBody struct {
	Status   int
	Heading  string
	Message  string
	Fields   []fieldError
	LinkText string
	LinkHref string
}

// postOrderForm is POST /orders: success and replays redirect (303) to the
// confirmation page; problems render a page with the error status.
func (v *Vendor) postOrderForm(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxOrderBodyLen)
	if err := r.ParseForm(); err != nil {
		v.writeProblem(w, r, placement{status: http.StatusBadRequest, code: codeInvalidRequest, message: "The order form could not be read"})
		return
	}
	p := v.placeOrder(r.Header.Get("Idempotency-Key"), orderFieldsFromForm(r.PostForm), stateOf(r).knobs)
	switch p.status {
	case http.StatusCreated, http.StatusOK:
		if p.replayed {
			w.Header().Set("Idempotent-Replayed", "true")
		}
		http.Redirect(w, r, "/orders/"+p.order.ID, http.StatusSeeOther)
	default:
		v.writeProblem(w, r, p)
	}
}

// writeProblem renders an order problem page.
func (v *Vendor) writeProblem(w http.ResponseWriter, r *http.Request, p placement) {
	b := problemBody{Status: p.status, Heading: "We couldn't place your order", Message: p.message, Fields: p.fields,
		LinkText: "Back to pricing", LinkHref: "/pricing"}
	switch p.code {
	case codePriceChanged:
		b.Heading = "The price has changed"
		b.LinkText = "Review your order again"
		b.LinkHref = "/checkout/review?" + p.req.query()
	case codeKeyInProgress:
		b.Heading = "Your order is being processed"
	}
	v.writePage(w, r, p.status, view{page: "problem", title: b.Heading, section: "pricing", body: b})
}

// apiPostOrder is POST /api/orders with a JSON body: 201 with the order, 200
// with the same body and "Idempotent-Replayed: true" on a replay, JSON errors
// otherwise.
func (v *Vendor) apiPostOrder(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxOrderBodyLen))
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, codeInvalidRequest, "The request body could not be read", nil)
		return
	}
	f, err := orderFieldsFromJSON(body)
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, codeInvalidRequest, err.Error(), nil)
		return
	}
	p := v.placeOrder(r.Header.Get("Idempotency-Key"), f, stateOf(r).knobs)
	switch p.status {
	case http.StatusCreated, http.StatusOK:
		w.Header().Set("Location", "/api/orders/"+p.order.ID)
		if p.replayed {
			w.Header().Set("Idempotent-Replayed", "true")
		}
		writeJSON(w, p.status, p.order)
	default:
		extra := map[string]any{}
		if len(p.fields) > 0 {
			extra["fields"] = p.fields
		}
		if p.code == codePriceChanged {
			extra["current_total_cents"] = p.current
		}
		writeJSONError(w, p.status, p.code, p.message, extra)
	}
}
