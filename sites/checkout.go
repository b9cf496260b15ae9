package sites

import (
	"net/http"
	"strconv"
)

// planCard is one plan as the pricing page and /api/plans show it.
type planCard struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Tagline     string   `json:"tagline"`
	SelfServe   bool     `json:"self_serve"`
	PriceCents  int64    `json:"unit_price_cents,omitempty"`
	Price       string   `json:"price"`        // "$15" or "Custom pricing"
	Unit        string   `json:"unit"`         // "/seat/month" or ""
	BillingNote string   `json:"billing_note"` // "billed monthly"
	Features    []string `json:"features"`
	CTA         string   `json:"cta"`         // "Choose Team" or "Contact sales"
	CTATestID   string   `json:"cta_test_id"` // data-testid of the call to action
	Href        string   `json:"href"`
}

// planCards prices the plans for billing and factor in variant order.
func planCards(variant, billing string, factor float64) []planCard {
	note := "billed monthly"
	if billing == billingAnnual {
		note = "billed annually"
	}
	var cards []planCard
	for _, p := range plansFor(variant) {
		c := planCard{ID: p.ID, Name: p.Name, Tagline: p.Tagline, SelfServe: p.SelfServe, Features: p.Features}
		if p.SelfServe {
			c.PriceCents = unitCents(p, billing, factor)
			c.Price = formatCardPrice(c.PriceCents)
			c.Unit = "/seat/month"
			c.BillingNote = note
			c.CTA = "Choose " + p.Name
			c.CTATestID = "choose-" + p.ID
			c.Href = "/checkout?plan=" + p.ID + "&billing=" + billing
		} else {
			c.Price = "Custom pricing"
			c.BillingNote = "volume discounts, invoiced billing"
			c.CTA = "Contact sales"
			c.CTATestID = "contact-sales-" + p.ID
			c.Href = "/contact-sales?plan=enterprise"
		}
		cards = append(cards, c)
	}
	return cards
}

// requestBilling returns the billing asked for in the query, or the
// variant's default when it is missing or unknown.
func requestBilling(r *http.Request) string {
	if b := r.URL.Query().Get("billing"); validBilling(b) {
		return b
	}
	return defaultBilling(stateOf(r).variant)
}

// toggleLink is one link of the billing toggle.
type toggleLink struct {
	Value, Label, Href string
	Current            bool
}

// pricingBody is the pricing page model.
type pricingBody struct {
	Billing, BillingLabel string
	Shown                 string // which billing the prices are for
	Lazy                  bool
	PlansURL              string
	Cards                 []planCard
	Toggle                []toggleLink
}

// pricing renders /pricing?billing=monthly|annual, or starts the redirect
// loop when the knob is on.
func (v *Vendor) pricing(w http.ResponseWriter, r *http.Request) {
	st := stateOf(r)
	if st.knobs.RedirectLoop {
		redirectKeepingQuery(w, r, "/pricing-loop")
		return
	}
	billing := requestBilling(r)
	b := pricingBody{Billing: billing, BillingLabel: billingLabel(billing), Lazy: st.knobs.LazyContent,
		Shown: "Showing monthly prices, billed every month."}
	if billing == billingAnnual {
		b.Shown = "Showing annual prices, billed once a year. Annual billing saves up to 20%."
	}
	for _, bl := range []string{billingMonthly, billingAnnual} {
		b.Toggle = append(b.Toggle, toggleLink{Value: bl, Label: billingLabel(bl), Href: "/pricing?billing=" + bl, Current: bl == billing})
	}
	if b.Lazy {
		b.PlansURL = "/api/plans?billing=" + billing
	} else {
		b.Cards = planCards(st.variant, billing, st.knobs.priceFactor())
	}
	v.writePage(w, r, http.StatusOK, view{page: "pricing", title: "Pricing", section: "pricing", body: b})
}

// pricingLoop is the other half of the redirect loop; without the knob it
// does not exist.
func (v *Vendor) pricingLoop(w http.ResponseWriter, r *http.Request) {
	if !stateOf(r).knobs.RedirectLoop {
		v.notFound(w, r)
		return
	}
	redirectKeepingQuery(w, r, "/pricing")
}

// redirectKeepingQuery answers 302 to path with r's query string.
func redirectKeepingQuery(w http.ResponseWriter, r *http.Request, path string) {
	if r.URL.RawQuery != "" {
		path += "?" + r.URL.RawQuery
	}
	http.Redirect(w, r, path, http.StatusFound)
}

// option is a <select> option.
type option struct {
	Value, Label string
	Selected     bool
}

// checkoutBody is the checkout form model; values are kept as typed.
type checkoutBody struct {
	PlanID, PlanName, Billing, BillingLabel string
	SummaryLine                             string // "Team plan, billed monthly"
	UnitPrice                               string
	Seats, Email, VATID                     string
	BillingOptions, CountryOptions          []option
	Errors                                  []fieldError
	Invalid                                 map[string]bool
	BackHref                                string
}

// newCheckoutBody builds the form model for plan p from raw values.
func newCheckoutBody(p plan, billing string, f orderFields, factor float64, errs []fieldError) checkoutBody {
	b := checkoutBody{
		PlanID: p.ID, PlanName: p.Name, Billing: billing, BillingLabel: billingLabel(billing),
		Seats: f.Seats, Email: f.Email, VATID: f.VATID, Errors: errs, Invalid: map[string]bool{},
		BackHref:    "/pricing?billing=" + billing,
		SummaryLine: p.Name + " plan, billed monthly",
	}
	if billing == billingAnnual {
		b.SummaryLine = p.Name + " plan, billed annually"
	}
	if validBilling(billing) {
		b.UnitPrice = formatUSD(unitCents(p, billing, factor))
	}
	for _, e := range errs {
		b.Invalid[e.Field] = true
	}
	for _, bl := range []string{billingMonthly, billingAnnual} {
		b.BillingOptions = append(b.BillingOptions, option{Value: bl, Label: billingLabel(bl), Selected: bl == billing})
	}
	for _, c := range countries {
		b.CountryOptions = append(b.CountryOptions, option{Value: c.Code, Label: c.Name, Selected: c.Code == f.Country})
	}
	return b
}

// selfServePlan returns the plan named in the query if it can be bought
// online.
func selfServePlan(r *http.Request) (plan, bool) {
	p, ok := findPlan(r.URL.Query().Get("plan"))
	return p, ok && p.SelfServe
}

// checkout renders the checkout form, prefilled from the query (the review
// page's "Edit order" link). Unknown or enterprise plans are a 404.
func (v *Vendor) checkout(w http.ResponseWriter, r *http.Request) {
	p, ok := selfServePlan(r)
	if !ok {
		v.notFound(w, r)
		return
	}
	f := orderFieldsFromForm(r.URL.Query())
	if f.Seats == "" {
		f.Seats = "1"
	}
	if f.Country == "" {
		f.Country = "US"
	}
	b := newCheckoutBody(p, requestBilling(r), f, stateOf(r).knobs.priceFactor(), nil)
	v.writePage(w, r, http.StatusOK, view{page: "checkout", title: "Checkout", section: "pricing", body: b})
}

// summaryView is the order summary shared by the review and order pages.
type summaryView struct {
	Plan, Billing, Seats, Country, Email, VATID string
	UnitPrice, UnitNote                         string
	Subtotal, Period                            string
	VAT, VATRate                                string
	ReverseCharge                               bool
	Total, TotalAmount, Currency                string
	// SeatsTestID is the seats' data-testid: "order-seats" on the order
	// page (the seats recorded), none on the review page.
	SeatsTestID string
}

// summarize formats a quote for display.
func summarize(q quote) summaryView {
	period := "1 month"
	if q.Billing == billingAnnual {
		period = "12 months"
	}
	return summaryView{
		Plan: q.Plan.Name, Billing: billingLabel(q.Billing), Seats: strconv.Itoa(q.Seats),
		Country: q.Country.Name, Email: q.Email, VATID: q.VATID,
		UnitPrice: formatUSD(q.UnitCents), UnitNote: "per seat / month",
		Subtotal: formatUSD(q.SubtotalCents), Period: period,
		VAT: formatUSD(q.VATCents), VATRate: strconv.FormatInt(q.VATPercent, 10) + "%",
		ReverseCharge: q.ReverseCharge,
		Total:         formatUSD(q.TotalCents), TotalAmount: formatAmount(q.TotalCents), Currency: orderCurrency,
	}
}

// quoteOf rebuilds the quote an order was priced with, from its stored
// amounts (not from current prices).
func quoteOf(o Order) quote {
	p, _ := findPlan(o.Plan)
	c, _ := findCountry(o.Country)
	q := quote{
		Plan: p, Billing: o.Billing, Seats: o.Seats, Country: c, Email: o.Email, VATID: o.VATID,
		UnitCents: o.UnitPriceCents, SubtotalCents: o.SubtotalCents, VATCents: o.VATCents, TotalCents: o.TotalCents,
		VATPercent: c.VATPercent,
	}
	if c.EU && looksLikeVATID(o.VATID) {
		q.ReverseCharge, q.VATPercent = true, 0
	}
	return q
}

// hiddenField is a hidden form input.
type hiddenField struct{ Name, Value string }

// reviewBody is the review page model.
type reviewBody struct {
	Summary  summaryView
	Hidden   []hiddenField
	EditHref string
}

// review validates the checkout form. Invalid input re-renders the form with
// its values and an alert (422); valid input shows the priced order and the
// "Place order" form. Nothing is stored here: this is the commit boundary.
func (v *Vendor) review(w http.ResponseWriter, r *http.Request) {
	p, ok := selfServePlan(r)
	if !ok {
		v.notFound(w, r)
		return
	}
	st := stateOf(r)
	f := orderFieldsFromForm(r.URL.Query())
	req, errs := parseOrderFields(f, false)
	if len(errs) > 0 {
		billing := req.Billing
		if !validBilling(billing) {
			billing = defaultBilling(st.variant)
		}
		b := newCheckoutBody(p, billing, f, st.knobs.priceFactor(), errs)
		v.writePage(w, r, http.StatusUnprocessableEntity, view{page: "checkout", title: "Checkout", section: "pricing", body: b})
		return
	}
	q := newQuote(req, st.knobs.priceFactor())
	req.TotalCents = q.TotalCents
	b := reviewBody{
		Summary:  summarize(q),
		Hidden:   req.hiddenFields(),
		EditHref: "/checkout?" + req.query(),
	}
	v.writePage(w, r, http.StatusOK, view{page: "review", title: "Review your order", section: "pricing", body: b})
}
