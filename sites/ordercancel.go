package sites

import (
	"net/http"
	"strings"
)

// Messages of the cancel endpoint.
const (
	msgCancelUnreadable = "The cancel form could not be read"
	msgCancelNotSaved   = "The cancellation could not be saved; the order is still active"
)

// cancelOrder is POST /orders/{id}/cancel (a form post), the site's own
// undo. The idempotency key is the Idempotency-Key header, else the
// client_reference field; it may be empty. Outcomes, in the order they are
// checked:
//
//	404 page not found                       no order with that id
//	400 problem page                         unreadable form or bad key
//	303 → /orders/{id}                       an active order is now cancelled, with the key as its CancelReference
//	303 + Idempotent-Replayed: true          the order was already cancelled: nothing changes, whatever the key
//	500 problem page                         the orders file could not be written; the order stays active
//
// Exactly one cancellation per order ever counts (see [Vendor.Cancellations]).
// With Knobs.RequireLogin it is behind the login like every /orders/ path.
func (v *Vendor) cancelOrder(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, ok := v.store.get(id); !ok {
		v.notFound(w, r)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxOrderBodyLen)
	if err := r.ParseForm(); err != nil {
		v.writeCancelProblem(w, r, id, http.StatusBadRequest, msgCancelUnreadable)
		return
	}
	key := strings.TrimSpace(r.Header.Get("Idempotency-Key"))
	if key == "" {
		key = strings.TrimSpace(r.PostForm.Get("client_reference"))
	}
	if key != "" && !validKey(key) {
		v.writeCancelProblem(w, r, id, http.StatusBadRequest, msgInvalidKey)
		return
	}
	_, found, changed, err := v.store.cancel(id, key)
	switch {
	case !found: // unreachable: orders are never removed
		v.notFound(w, r)
		return
	case err != nil:
		v.writeCancelProblem(w, r, id, http.StatusInternalServerError, msgCancelNotSaved)
		return
	case !changed:
		w.Header().Set("Idempotent-Replayed", "true")
	}
	http.Redirect(w, r, "/orders/"+id, http.StatusSeeOther)
}

// writeCancelProblem renders the problem page of a cancellation that did not
// happen, linking back to the order.
func (v *Vendor) writeCancelProblem(w http.ResponseWriter, r *http.Request, id string, status int, message string) {
	b := problemBody{Status: status, Heading: "We couldn't cancel your order", Message: message,
		LinkText: "Back to your order", LinkHref: "/orders/" + id}
	v.writePage(w, r, status, view{page: "problem", title: b.Heading, section: "pricing", body: b})
}
