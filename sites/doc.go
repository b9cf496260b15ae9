// Package sites embeds "Nimbus Cloud", the demo SaaS vendor that
// `orchestrator demo` and the test suite run against.
//
// The vendor is an [http.Handler] served on 127.0.0.1 (see [Serve]). It has
// several routes to pricing (top nav, menu, footer, search, product page), a
// monthly/annual toggle, Team / Business / Enterprise plans, dead ends
// (docs, contact sales, blog, trial sign-up), a checkout with seat count and
// EU VAT, a review page (the commit boundary: nothing is charged there), an
// order endpoint that honours an Idempotency-Key header or a client_reference
// field, a confirmation page with an order id and a "Cancel order" form (the
// site's own undo), an invoice PDF and an orders API for audits.
//
// # Invariants
//
//   - Determinism: for the same request (method, URL, body, cookies) and the
//     same knobs and order history, every response body is byte-identical
//     across runs and processes. Pages carry no timestamps and no random ids;
//     maps are never iterated unsorted. Randomness exists only where a chaos
//     knob asks for it: in inline page scripts (Math.random, Date.now,
//     performance.now, setTimeout, which the browser layer pins) and in the
//     server's A/B assignment when [Knobs].ABVariant is "random".
//   - Self-contained: pages load nothing from the network. CSS and JS are
//     inline; templates are embedded with embed.FS.
//   - Order ids are sequential (ORD-100001, ORD-100002, …) and continue after
//     the highest id loaded from [VendorOptions].OrdersFile. Order.Created is a
//     sequence number, not wall time.
//   - Exactly-once ordering per key: a request with an idempotency key either
//     creates one order, replays the order first created with that key and
//     payload, is refused with 422 (same key, different payload) or with 409
//     (the key's first request is still in progress). Requests without a key
//     create a new order every time, as a careless real site does.
//   - Exactly one cancellation per order: the first POST /orders/{id}/cancel
//     marks the order cancelled; every later one changes nothing and is
//     answered as a replay. [Vendor.Cancellations] counts cancelled orders.
//   - The server re-prices every order with the knobs current at the start of
//     the request; a stale total_cents is refused with 409 and creates nothing.
//   - When an orders file is configured, every change is persisted with an
//     atomic write and rename before the response is sent; a failed write rolls
//     the order back and answers 500.
//   - Knobs are swapped atomically; each request uses the snapshot taken when
//     it arrived, so a change takes effect on the next request.
//
// # Routes
//
//	GET  /                         home (nav, Menu, search, "Start free trial")
//	GET  /product                  content page with "See pricing"
//	GET  /customers /blog /careers /status /signup   dead ends
//	GET  /docs, /docs/{getting-started,api,billing,faq}   docs dead end
//	GET  /search?q=…               pricing result for price/plan/cost/buy queries
//	GET  /contact-sales[?plan=enterprise], POST → 303 /contact-sales/thanks
//	GET  /pricing?billing=monthly|annual   plan cards (or 302 loop, see Knobs)
//	GET  /checkout?plan=team|business&billing=…[&seats&country&email&vat_id]
//	GET  /checkout/review?plan&billing&seats&country&email&vat_id   commit boundary
//	POST /orders                   form order → 303 /orders/{id}
//	GET  /orders/{id}, /orders/{id}/invoice.pdf
//	POST /orders/{id}/cancel       form cancel → 303 /orders/{id}
//	GET  /api/orders[?client_reference=KEY], POST /api/orders (JSON), GET /api/orders/{id}
//	GET  /api/plans?billing=…      plan cards as JSON (LazyContent)
//	GET, PUT /__admin/knobs        knobs as JSON (the Knobs JSON form)
//
// Unknown pages answer 404 with "Page not found"; unknown /api/ paths a JSON
// 404; a known path with the wrong method 405 with an Allow header.
//
// # Order endpoint
//
// POST /orders (form) and POST /api/orders (JSON; seats and total_cents may be
// numbers or numeric strings) take plan, billing, seats, country, email,
// vat_id, total_cents and client_reference. The idempotency key is the
// Idempotency-Key header, else client_reference (1..255 printable ASCII
// bytes). The payload hash is the sha256 of the canonical payload: compact
// JSON with sorted keys billing, country, email, plan, seats, total_cents,
// vat_id, after normalisation (plan and billing lower case; country and VAT id
// upper case, VAT id without spaces, dots or dashes; surrounding space
// trimmed). Outcomes, in the order they are checked:
//
//	400 invalid_request / invalid_idempotency_key   unreadable body or bad key
//	422 invalid_fields                   with the list of fields and messages
//	409 idempotency_key_in_progress      the key's first request is running
//	422 idempotency_key_reused           "Idempotency-Key reused with a different payload"
//	200 + Idempotent-Replayed: true      same key, same payload: the original order
//	409 price_changed                    "The price has changed; review your order again"
//	201 (JSON) / 303 (form)              a new order
//
// JSON errors are {"error":{"code":…,"message":…}}; form errors render a page
// with role="alert". Failed attempts do not bind the key.
//
// [Knobs].SeatsOffset is a deliberate bug: a new order is recorded with its
// requested seats plus the offset (at least 1) and priced for the recorded
// seats, after the request's own total_cents was checked. The payload hash
// stays that of the request as submitted, so a retry with the same key
// replays the recorded order. The order page shows the recorded seats in
// data-testid="order-seats".
//
// # Order cancellation
//
// POST /orders/{id}/cancel is a form post; its idempotency key is the
// Idempotency-Key header, else the client_reference field (may be empty).
// Outcomes, in the order they are checked:
//
//	404 "Page not found"                 no order with that id
//	400 problem page                     unreadable form or bad key
//	303 → /orders/{id}                   the active order is now cancelled (Order.Cancelled, Order.CancelReference = the key)
//	303 + Idempotent-Replayed: true      the order was already cancelled: nothing changes, whatever the key
//	500 problem page                     the orders file could not be written; the order stays active
//
// The order page shows data-testid="order-status" ("active" or "cancelled");
// while active, a form with a hidden client_reference and the button
// data-testid="cancel-order" ("Cancel order"); once cancelled, the notice
// data-testid="order-cancelled" ("This order was cancelled.") instead. The
// orders API shows "cancelled": true and "cancel_reference" on cancelled
// orders (both are omitted while an order is active). With
// [Knobs].RequireLogin the endpoint is behind the login like every /orders/
// path.
//
// # Request pipeline
//
// Every request except those under /__admin/ goes through, in order: the
// latency wait ([Knobs].Latency, cut short when the request context ends),
// HangPaths (block until the request context ends), A/B variant selection
// (cookie mv_ab, else [Knobs].ABVariant), FailStatus (longest matching path
// prefix answers with an error page), then routing. The admin endpoint
// /__admin/knobs is exempt from all chaos so tests can always repair a vendor
// they broke.
package sites
