package sites

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

func TestRoutes(t *testing.T) {
	v := newVendor(t, Knobs{})
	tests := []struct {
		name     string
		call     call
		status   int
		location string
		contains []string
		lacks    []string // checked inside <main> only
	}{
		{name: "home", call: call{target: "/"}, status: 200, contains: []string{
			`<h1 id="hero-title">Nimbus Cloud</h1>`, `href="/product"`, `href="/docs"`,
			`data-testid="nav-pricing">Pricing</a>`, `href="/contact-sales"`,
			`aria-expanded="false" aria-controls="more-menu"`, `href="/pricing?ref=menu"`, `href="/customers"`,
			`action="/search"`, `name="q"`, `<label for="site-search">Search</label>`,
			`href="/signup" data-testid="start-trial">Start free trial</a>`,
			`href="/pricing?ref=footer"`, `href="/blog"`, `href="/careers"`, `href="/status"`,
		}, lacks: []string{"See plans"}},
		{name: "home variant B by cookie", call: call{target: "/", cookies: []*http.Cookie{{Name: "mv_ab", Value: "B"}}}, status: 200,
			contains: []string{`data-testid="nav-pricing">Plans</a>`, `href="/pricing?ref=hero" data-testid="see-plans">See plans</a>`}},
		{name: "product", call: call{target: "/product"}, status: 200, contains: []string{`href="/pricing?ref=product"`, "See pricing"}},
		{name: "customers", call: call{target: "/customers"}, status: 200, contains: []string{"<h1>Customers</h1>"}, lacks: []string{"/pricing", "/checkout"}},
		{name: "blog", call: call{target: "/blog"}, status: 200, contains: []string{"<h1>Blog</h1>"}, lacks: []string{"/pricing", "/checkout"}},
		{name: "careers", call: call{target: "/careers"}, status: 200, contains: []string{"<h1>Careers</h1>"}, lacks: []string{"/pricing", "/checkout"}},
		{name: "status", call: call{target: "/status"}, status: 200, contains: []string{"All systems operational."}, lacks: []string{"/pricing", "/checkout"}},
		{name: "docs", call: call{target: "/docs"}, status: 200, contains: []string{`href="/docs/billing"`, "Back to home"}, lacks: []string{"/pricing", "/checkout"}},
		{name: "docs getting-started", call: call{target: "/docs/getting-started"}, status: 200, contains: []string{"Getting started"}, lacks: []string{"/pricing", "/checkout"}},
		{name: "docs api", call: call{target: "/docs/api"}, status: 200, contains: []string{"API reference"}, lacks: []string{"/pricing", "/checkout"}},
		{name: "docs billing trap", call: call{target: "/docs/billing"}, status: 200, contains: []string{"Invoices are issued", "per seat"}, lacks: []string{"/pricing", "/checkout"}},
		{name: "docs faq", call: call{target: "/docs/faq"}, status: 200, contains: []string{"Can I change plans later?"}, lacks: []string{"/pricing", "/checkout"}},
		{name: "docs unknown", call: call{target: "/docs/nope"}, status: 404, contains: []string{"Page not found"}},
		{name: "signup dead end", call: call{target: "/signup"}, status: 200, contains: []string{"Trial sign-ups are paused"}, lacks: []string{"/pricing"}},
		{name: "search hit", call: call{target: "/search?q=Team+PLANS"}, status: 200, contains: []string{`href="/pricing?ref=search"`, "Pricing and plans", `href="/docs/billing"`}},
		{name: "search buy", call: call{target: "/search?q=how%20to%20buy"}, status: 200, contains: []string{"Pricing and plans"}},
		{name: "search miss", call: call{target: "/search?q=kubernetes"}, status: 200, contains: []string{"No results for “kubernetes”", `<a href="/">Back to home</a>`}, lacks: []string{"/pricing"}},
		{name: "contact sales", call: call{target: "/contact-sales"}, status: 200, contains: []string{
			`<label for="contact-name">Name</label>`, `<label for="contact-company">Company</label>`,
			`<label for="contact-email">Work email</label>`, `<label for="contact-message">Message</label>`, "Send message"}},
		{name: "contact sales enterprise", call: call{target: "/contact-sales?plan=enterprise"}, status: 200, contains: []string{`name="plan" value="enterprise"`}},
		{name: "contact sales post", call: call{method: "POST", target: "/contact-sales", body: "name=A"}, status: 303, location: "/contact-sales/thanks"},
		{name: "contact thanks", call: call{target: "/contact-sales/thanks"}, status: 200, contains: []string{"Thanks! Our sales team will contact you within 2 business days."}, lacks: []string{"/pricing"}},
		{name: "pricing default annual", call: call{target: "/pricing"}, status: 200, contains: []string{
			"<h1", ">Pricing</h1>", `href="/pricing?billing=monthly" data-testid="billing-monthly">Monthly</a>`,
			`href="/pricing?billing=annual" class="current" data-testid="billing-annual" aria-current="true">Annual</a>`,
			"Showing annual prices", `data-testid="plan-team"`, `data-testid="plan-business"`, `data-testid="plan-enterprise"`,
			`data-price-cents="1200">$12</span>`, `data-price-cents="2400">$24</span>`, "Custom pricing",
			`href="/contact-sales?plan=enterprise"`, `href="/checkout?plan=team&amp;billing=annual" data-testid="choose-team">Choose Team</a>`,
			`href="/checkout?plan=business&amp;billing=annual" data-testid="choose-business">Choose Business</a>`,
		}},
		{name: "pricing monthly", call: call{target: "/pricing?billing=monthly&ref=footer"}, status: 200, contains: []string{
			"Showing monthly prices", `data-price-cents="1500">$15</span>`, `data-price-cents="2900">$29</span>`,
			`href="/checkout?plan=team&amp;billing=monthly"`, `data-testid="billing-monthly" aria-current="true"`}},
		{name: "pricing loop off", call: call{target: "/pricing-loop"}, status: 404},
		{name: "checkout", call: call{target: "/checkout?plan=team&billing=monthly"}, status: 200, contains: []string{
			"<h1>Checkout</h1>", "Team plan, billed monthly", `method="get" action="/checkout/review"`,
			`<input type="hidden" name="plan" value="team">`, `<label for="billing">Billing</label>`,
			`<option value="monthly" selected>Monthly</option>`, `<option value="annual">Annual</option>`,
			`<label for="seats">Seats</label><input type="number" id="seats" name="seats" min="1" max="500" value="1"`,
			`<option value="US" selected>United States</option>`, `<option value="DE">Germany</option>`,
			`<option value="FR">France</option>`, `<option value="NL">Netherlands</option>`, `<option value="GB">United Kingdom</option>`,
			`<label for="email">Work email</label><input type="email" id="email" name="email" value="" autocomplete="email" required`,
			`<label for="vat_id">VAT ID (optional)</label><input id="vat_id" name="vat_id"`,
			"Continue to review", "Back to pricing"}},
		{name: "checkout annual default", call: call{target: "/checkout?plan=business"}, status: 200, contains: []string{"Business plan, billed annually"}},
		{name: "checkout unknown plan", call: call{target: "/checkout?plan=gold"}, status: 404, contains: []string{"Page not found"}},
		{name: "checkout enterprise", call: call{target: "/checkout?plan=enterprise"}, status: 404},
		{name: "review", call: call{target: "/checkout/review?plan=team&billing=monthly&seats=10&country=DE&email=a%40b.example&vat_id="}, status: 200, contains: []string{
			"<h1>Review your order</h1>", `data-field="plan">Team<`, `data-field="billing">Monthly<`, `data-field="seats">10<`,
			`data-field="country">Germany<`, `data-field="email">a@b.example<`, `data-field="unit_price">$15.00<`,
			`data-field="subtotal">$150.00<`, `data-field="vat_rate">19%<`, `data-field="vat">$28.50<`,
			`data-field="total" data-amount="178.50" data-currency="USD">$178.50<`,
			`method="post" action="/orders"`, `name="total_cents" value="17850"`, `name="client_reference" id="client_reference" value=""`,
			`data-testid="place-order">Place order</button>`, "Edit order", "Nothing is charged until you place the order."}},
		{name: "review bad email", call: call{target: "/checkout/review?plan=team&billing=monthly&seats=10&country=DE&email=nope"}, status: 422, contains: []string{
			`role="alert"`, "Enter a work email", `value="nope"`, `value="10"`, `<option value="DE" selected>`}},
		{name: "review bad seats", call: call{target: "/checkout/review?plan=team&billing=monthly&seats=501&country=US&email=a%40b"}, status: 422, contains: []string{
			`role="alert"`, "Seats must be between 1 and 500", `value="501"`}},
		{name: "review unknown plan", call: call{target: "/checkout/review?plan=gold&billing=monthly&seats=1&country=US&email=a%40b"}, status: 404},
		{name: "order unknown", call: call{target: "/orders/ORD-999999"}, status: 404, contains: []string{"Page not found"}},
		{name: "invoice unknown", call: call{target: "/orders/ORD-999999/invoice.pdf"}, status: 404},
		{name: "api orders empty", call: call{target: "/api/orders"}, status: 200, contains: []string{`"orders": []`}},
		{name: "api order unknown", call: call{target: "/api/orders/ORD-1"}, status: 404, contains: []string{`"code": "not_found"`}},
		{name: "api plans", call: call{target: "/api/plans?billing=monthly"}, status: 200, contains: []string{`"billing": "monthly"`, `"unit_price_cents": 1500`, `"href": "/checkout?plan=team\u0026billing=monthly"`}},
		{name: "api unknown", call: call{target: "/api/nope"}, status: 404, contains: []string{`"not_found"`}},
		{name: "not found", call: call{target: "/nope"}, status: 404, contains: []string{"<h1>Page not found</h1>", "We couldn't find that page.", `<a href="/">Back to home</a>`}},
		{name: "trailing slash is not pricing", call: call{target: "/pricing/"}, status: 404},
		{name: "post to page", call: call{method: "POST", target: "/pricing"}, status: 405},
		{name: "get orders endpoint", call: call{target: "/orders"}, status: 405},
		{name: "head home", call: call{method: "HEAD", target: "/"}, status: 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := do(t, v, tc.call)
			requireStatus(t, rec, tc.status)
			if tc.location != "" && rec.Header().Get("Location") != tc.location {
				t.Fatalf("Location = %q, want %q", rec.Header().Get("Location"), tc.location)
			}
			body := rec.Body.String()
			requireContains(t, body, tc.contains...)
			requireLacks(t, mainOf(body), tc.lacks...)
		})
	}
}

func TestVariantBPricing(t *testing.T) {
	v := newVendor(t, Knobs{ABVariant: "B"})
	body := get(t, v, "/pricing").Body.String()
	requireContains(t, body, "Showing monthly prices", `data-testid="nav-pricing" aria-current="page">Plans</a>`)
	e := strings.Index(body, `data-testid="plan-enterprise"`)
	b := strings.Index(body, `data-testid="plan-business"`)
	tm := strings.Index(body, `data-testid="plan-team"`)
	if !(e >= 0 && e < b && b < tm) {
		t.Fatalf("variant B card order: enterprise@%d business@%d team@%d, want reversed", e, b, tm)
	}
	// Explicit billing still wins over the variant default.
	requireContains(t, get(t, v, "/pricing?billing=annual").Body.String(), "Showing annual prices")
}

// Every page must meet the accessibility and self-containment rules.
func TestPagesAreAccessibleAndSelfContained(t *testing.T) {
	v := newVendor(t, Knobs{LateBanner: true, PageRandom: true, TimerRace: true, LazyContent: true, Drift: "v2"})
	pages := []string{
		"/", "/product", "/customers", "/blog", "/careers", "/status", "/docs", "/docs/billing",
		"/signup", "/search?q=price", "/contact-sales", "/contact-sales/thanks", "/pricing",
		"/checkout?plan=team", "/checkout/review?plan=team&billing=annual&seats=3&country=FR&email=a%40b",
		"/checkout/review?plan=team&seats=0", "/nope",
	}
	external := regexp.MustCompile(`(?i)(src|href)="(https?:)?//`)
	inputID := regexp.MustCompile(`<(?:input|select|textarea)\b[^>]*>`)
	for _, p := range pages {
		t.Run(p, func(t *testing.T) {
			body := get(t, v, p).Body.String()
			requireContains(t, body, `<html lang="en">`, "<title>", "<header", "<nav", "<main", "<footer", "data-testid=")
			if m := external.FindString(body); m != "" {
				t.Fatalf("page loads from the network: %s", m)
			}
			requireLacks(t, body, "crypto.", "<img", "<link rel=\"stylesheet\"")
			for _, field := range inputID.FindAllString(body, -1) {
				if strings.Contains(field, `type="hidden"`) {
					continue
				}
				id := regexp.MustCompile(`\bid="([^"]+)"`).FindStringSubmatch(field)
				if id == nil || !strings.Contains(body, `<label for="`+id[1]+`"`) {
					t.Fatalf("field without a label: %s", field)
				}
			}
		})
	}
}

func TestSearchEscapesQuery(t *testing.T) {
	v := newVendor(t, Knobs{})
	for _, q := range []string{`<script>alert(1)</script>`, `"><img src=x onerror=alert(1)> 'x'`} {
		t.Run(q, func(t *testing.T) {
			body := get(t, v, "/search?q="+url.QueryEscape(q)).Body.String()
			requireLacks(t, body, q, "<script>alert", "<img")
			requireContains(t, body, "No results for “"+html.EscapeString(q)+"”", `value="`+html.EscapeString(q)+`"`)
		})
	}
	requireContains(t, get(t, v, "/search?q=%26amp%3B").Body.String(), "No results for “&amp;amp;”")
}
