package sites

import (
	"net/http"
	"strconv"
)

// orderBody is the confirmation page model.
type orderBody struct {
	ID, ClientReference, InvoiceHref string
	Summary                          summaryView
	Cancelled                        bool
	CancelHref                       string // the cancel form's action
}

// orderPage is GET /orders/{id}: the confirmation page; unknown ids are 404.
// It shows the recorded order (seats in data-testid="order-seats"), its status
// (data-testid="order-status": "active" or "cancelled") and, while active, the
// "Cancel order" form posting to /orders/{id}/cancel; once cancelled, the
// notice data-testid="order-cancelled" instead.
func (v *Vendor) orderPage(w http.ResponseWriter, r *http.Request) {
	o, ok := v.store.get(r.PathValue("id"))
	if !ok {
		v.notFound(w, r)
		return
	}
	b := orderBody{
		ID: o.ID, ClientReference: o.ClientReference,
		InvoiceHref: "/orders/" + o.ID + "/invoice.pdf",
		Summary:     summarize(quoteOf(o)),
		Cancelled:   o.Cancelled,
		CancelHref:  "/orders/" + o.ID + "/cancel",
	}
	b.Summary.SeatsTestID = "order-seats"
	v.writePage(w, r, http.StatusOK, view{page: "order", title: "Order confirmed", section: "pricing", body: b})
}

// invoice is GET /orders/{id}/invoice.pdf.
func (v *Vendor) invoice(w http.ResponseWriter, r *http.Request) {
	o, ok := v.store.get(r.PathValue("id"))
	if !ok {
		v.notFound(w, r)
		return
	}
	pdf := invoicePDF(o)
	h := w.Header()
	h.Set("Content-Type", "application/pdf")
	h.Set("Content-Disposition", `inline; filename="invoice-`+invoiceNumber(o)+`.pdf"`)
	h.Set("Content-Length", strconv.Itoa(len(pdf)))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(pdf)
}
