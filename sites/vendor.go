package sites

import (
	"context"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// VendorOptions configures [NewVendor]. The zero value is a vendor with zero
// knobs (no latency) and in-memory orders.
type VendorOptions struct {
	// Knobs are the initial chaos knobs; they must pass Knobs.Validate.
	Knobs Knobs
	// OrdersFile, if set, is loaded at start (a missing file is an empty
	// history; its directory is created) and rewritten atomically (temporary
	// file, fsync, rename) on every new order and every cancellation, so
	// orders, their cancellations and the order-id sequence survive
	// restarts.
	OrdersFile string
}

// Vendor is the Nimbus Cloud demo site, an [http.Handler]. Safe for
// concurrent use.
type Vendor struct {
	knobs atomic.Pointer[Knobs]
	tmpl  *renderer
	mux   *http.ServeMux
	store *orderStore

	sessMu   sync.Mutex
	sessions map[string]int // session token -> requests served behind the login

	// onClaim, if set (tests only), runs after an order request has claimed
	// its idempotency key and before it is priced and stored.
	onClaim func(key string)
}

var _ http.Handler = (*Vendor)(nil)

// NewVendor validates opts, parses the embedded templates and loads
// OrdersFile if set. Errors wrap [ErrInvalidKnobs] or [ErrOrdersFile].
func NewVendor(opts VendorOptions) (*Vendor, error) {
	if err := opts.Knobs.Validate(); err != nil {
		return nil, err
	}
	rd, err := newRenderer()
	if err != nil {
		return nil, err
	}
	store, err := openOrderStore(opts.OrdersFile)
	if err != nil {
		return nil, err
	}
	v := &Vendor{tmpl: rd, store: store, sessions: map[string]int{}}
	k := opts.Knobs.clone()
	v.knobs.Store(&k)
	v.mux = v.routes()
	return v, nil
}

// Knobs returns a copy of the current knobs.
func (v *Vendor) Knobs() Knobs { return v.knobs.Load().clone() }

// SetKnobs validates k and, if valid, atomically replaces the knobs; requests
// that arrive afterwards see the new values. An invalid k (error wrapping
// [ErrInvalidKnobs]) changes nothing.
func (v *Vendor) SetKnobs(k Knobs) error {
	if err := k.Validate(); err != nil {
		return err
	}
	c := k.clone()
	v.knobs.Store(&c)
	return nil
}

// Orders returns a copy of all orders in creation order.
func (v *Vendor) Orders() []Order { return v.store.list() }

// Cancellations returns how many cancellations changed an order: the number
// of cancelled orders, counting those loaded from [VendorOptions].OrdersFile.
// Only the first POST /orders/{id}/cancel of an order counts; a repeated
// one is a replay and changes nothing.
func (v *Vendor) Cancellations() int { return v.store.cancelled() }

// reqState is the per-request snapshot the handlers read.
type reqState struct {
	knobs   Knobs
	variant string
}

type stateKey struct{}

// stateOf returns the request's snapshot (zero knobs, variant A if absent).
func stateOf(r *http.Request) *reqState {
	if st, ok := r.Context().Value(stateKey{}).(*reqState); ok {
		return st
	}
	return &reqState{variant: variantA}
}

// adminPrefix is exempt from every chaos knob.
const adminPrefix = "/__admin/"

// ServeHTTP runs the request pipeline described in the package doc: latency,
// hang paths, variant, fail status, then routing. A request whose context
// ends during the latency wait or a hang gets no response body.
func (v *Vendor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, adminPrefix) {
		v.serveAdmin(w, r)
		return
	}
	k := *v.knobs.Load() // handlers never mutate the map or slice
	if k.Latency > 0 && !sleep(r.Context(), k.Latency) {
		return
	}
	if k.hangs(r.URL.Path) {
		<-r.Context().Done()
		return
	}
	st := &reqState{knobs: k, variant: chooseVariant(w, r, k)}
	r = r.WithContext(context.WithValue(r.Context(), stateKey{}, st))
	if status, ok := k.failStatus(r.URL.Path); ok {
		v.writePage(w, r, status, view{page: "error", title: "Something went wrong", body: status})
		return
	}
	if k.RequireLogin && needsLogin(r.URL.Path) && !v.loggedIn(r, k) {
		v.toLogin(w, r)
		return
	}
	v.mux.ServeHTTP(w, r)
}

// sleep waits d or until ctx ends; it reports whether d elapsed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// methods maps HTTP methods to handlers; GET also serves HEAD.
type methods map[string]http.HandlerFunc

// handler dispatches on method, answering 405 with an Allow header otherwise.
func (v *Vendor) handler(m methods) http.HandlerFunc {
	allowed := make([]string, 0, len(m)+1)
	for name := range m {
		allowed = append(allowed, name)
	}
	if _, ok := m[http.MethodGet]; ok {
		allowed = append(allowed, http.MethodHead)
	}
	sort.Strings(allowed)
	allow := strings.Join(allowed, ", ")
	return func(w http.ResponseWriter, r *http.Request) {
		method := r.Method
		if method == http.MethodHead {
			method = http.MethodGet
		}
		if h, ok := m[method]; ok {
			h(w, r)
			return
		}
		w.Header().Set("Allow", allow)
		if isAPI(r) {
			writeJSONError(w, http.StatusMethodNotAllowed, "method_not_allowed", "Method "+r.Method+" is not allowed; use "+allow, nil)
			return
		}
		v.writePage(w, r, http.StatusMethodNotAllowed, view{page: "error", title: "Something went wrong", body: http.StatusMethodNotAllowed})
	}
}

// isAPI reports whether r is for the JSON API.
func isAPI(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/api/") }

// routes builds the site's router.
func (v *Vendor) routes() *http.ServeMux {
	m := http.NewServeMux()
	get := func(h http.HandlerFunc) http.HandlerFunc { return v.handler(methods{http.MethodGet: h}) }

	m.HandleFunc("/{$}", get(v.home))
	for _, name := range []string{"product", "customers", "blog", "careers", "status"} {
		m.HandleFunc("/"+name, get(v.contentPage(name)))
	}
	m.HandleFunc("/docs", get(v.docs))
	m.HandleFunc("/docs/{page}", get(v.docs))
	m.HandleFunc("/login", v.handler(methods{http.MethodGet: v.loginPage, http.MethodPost: v.loginPost}))
	m.HandleFunc("/signup", v.handler(methods{http.MethodGet: v.signup, http.MethodPost: v.signup}))
	m.HandleFunc("/search", get(v.search))
	m.HandleFunc("/contact-sales", v.handler(methods{http.MethodGet: v.contactSales, http.MethodPost: v.contactSalesPost}))
	m.HandleFunc("/contact-sales/thanks", get(v.contactThanks))
	m.HandleFunc("/pricing", get(v.pricing))
	m.HandleFunc("/pricing-loop", get(v.pricingLoop))
	m.HandleFunc("/checkout", get(v.checkout))
	m.HandleFunc("/checkout/review", get(v.review))
	m.HandleFunc("/orders", v.handler(methods{http.MethodPost: v.postOrderForm}))
	m.HandleFunc("/orders/{id}", get(v.orderPage))
	m.HandleFunc("/orders/{id}/invoice.pdf", get(v.invoice))
	m.HandleFunc("/orders/{id}/cancel", v.handler(methods{http.MethodPost: v.cancelOrder}))
	m.HandleFunc("/api/orders", v.handler(methods{http.MethodGet: v.apiListOrders, http.MethodPost: v.apiPostOrder}))
	m.HandleFunc("/api/orders/{id}", get(v.apiGetOrder))
	m.HandleFunc("/api/plans", get(v.apiPlans))
	m.HandleFunc("/api/", v.apiNotFound)
	m.HandleFunc("/", v.notFound)
	return m
}

// notFound renders the 404 page.
func (v *Vendor) notFound(w http.ResponseWriter, r *http.Request) {
	v.writePage(w, r, http.StatusNotFound, view{page: "notfound", title: "Page not found"})
}
