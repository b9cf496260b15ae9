package sites

import (
	"math/big"
	"strconv"
	"strings"
)

// plan is one offer on the pricing page. Prices are list prices in cents per
// seat per month, before Knobs.PriceFactor.
type plan struct {
	ID, Name, Tagline         string
	MonthlyCents, AnnualCents int64
	SelfServe                 bool
	Features                  []string
}

// plans in variant A order.
var plans = []plan{
	{
		ID: "team", Name: "Team", Tagline: "For small teams shipping their first services.",
		MonthlyCents: 1500, AnnualCents: 1200, SelfServe: true,
		Features: []string{"Up to 500 seats", "10 projects", "Community support", "99.9% uptime SLA"},
	},
	{
		ID: "business", Name: "Business", Tagline: "For growing companies with compliance needs.",
		MonthlyCents: 2900, AnnualCents: 2400, SelfServe: true,
		Features: []string{"Up to 500 seats", "Unlimited projects", "SSO and audit logs", "24/7 email support", "99.95% uptime SLA"},
	},
	{
		ID: "enterprise", Name: "Enterprise", Tagline: "For organisations with custom requirements.",
		Features: []string{"Unlimited seats", "Dedicated cloud regions", "Named support engineer", "Custom contracts and invoicing"},
	},
}

// plansFor returns the plans in the display order of variant ("B" reverses).
func plansFor(variant string) []plan {
	out := make([]plan, len(plans))
	copy(out, plans)
	if variant == variantB {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

// findPlan looks a plan up by id.
func findPlan(id string) (plan, bool) {
	for _, p := range plans {
		if p.ID == id {
			return p, true
		}
	}
	return plan{}, false
}

// Billing periods.
const (
	billingMonthly = "monthly"
	billingAnnual  = "annual"
)

// validBilling reports whether b is a billing period.
func validBilling(b string) bool { return b == billingMonthly || b == billingAnnual }

// billingLabel is the display name of a billing period.
func billingLabel(b string) string {
	if b == billingAnnual {
		return "Annual"
	}
	return "Monthly"
}

// billingMonths is the number of months charged per billing period.
func billingMonths(b string) int64 {
	if b == billingAnnual {
		return 12
	}
	return 1
}

// defaultBilling is the billing a variant shows when none is asked for.
func defaultBilling(variant string) string {
	if variant == variantB {
		return billingMonthly
	}
	return billingAnnual
}

// country is a checkout country with its standard VAT rate in percent.
type country struct {
	Code, Name string
	VATPercent int64
	EU         bool
}

// countries in checkout select order.
var countries = []country{
	{Code: "US", Name: "United States"},
	{Code: "DE", Name: "Germany", VATPercent: 19, EU: true},
	{Code: "FR", Name: "France", VATPercent: 20, EU: true},
	{Code: "NL", Name: "Netherlands", VATPercent: 21, EU: true},
	{Code: "GB", Name: "United Kingdom", VATPercent: 20},
}

// findCountry looks a country up by ISO code.
func findCountry(code string) (country, bool) {
	for _, c := range countries {
		if c.Code == code {
			return c, true
		}
	}
	return country{}, false
}

// looksLikeVATID reports whether s looks like an EU VAT id: two letters and
// 8 to 12 letters or digits. s must already be normalised (upper case, no
// spaces).
func looksLikeVATID(s string) bool {
	if len(s) < 10 || len(s) > 14 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'A' && c <= 'Z'
		digit := c >= '0' && c <= '9'
		if i < 2 && !letter || i >= 2 && !letter && !digit {
			return false
		}
	}
	return true
}

// scaleCents multiplies cents by factor and rounds half up. The factor is
// taken at its shortest decimal representation, so 1.005 means exactly 1.005.
func scaleCents(cents int64, factor float64) int64 {
	if factor == 0 || factor == 1 {
		return cents
	}
	f, ok := new(big.Rat).SetString(strconv.FormatFloat(factor, 'f', -1, 64))
	if !ok {
		return cents
	}
	x := new(big.Rat).Mul(f, new(big.Rat).SetInt64(cents))
	x.Add(x, big.NewRat(1, 2))
	q := new(big.Int).Quo(x.Num(), x.Denom()) // x >= 0, so Quo is floor
	return q.Int64()
}

// unitCents is the price per seat per month of p under billing and factor.
func unitCents(p plan, billing string, factor float64) int64 {
	list := p.MonthlyCents
	if billing == billingAnnual {
		list = p.AnnualCents
	}
	return scaleCents(list, factor)
}

// quote is the priced form of a valid order request.
type quote struct {
	Plan                                           plan
	Billing                                        string
	Seats                                          int
	Country                                        country
	Email, VATID                                   string
	UnitCents, SubtotalCents, VATCents, TotalCents int64
	VATPercent                                     int64
	ReverseCharge                                  bool
}

// newQuote prices a validated request with the given price factor. Subtotal
// covers one billing period: one month for monthly, twelve for annual. VAT is
// rounded half up to the cent; a valid-looking VAT id with an EU country means
// reverse charge (no VAT).
func newQuote(req orderRequest, factor float64) quote {
	p, _ := findPlan(req.Plan)
	c, _ := findCountry(req.Country)
	q := quote{Plan: p, Billing: req.Billing, Seats: req.Seats, Country: c, Email: req.Email, VATID: req.VATID}
	q.UnitCents = unitCents(p, req.Billing, factor)
	q.SubtotalCents = q.UnitCents * int64(req.Seats) * billingMonths(req.Billing)
	q.VATPercent = c.VATPercent
	if c.EU && looksLikeVATID(req.VATID) {
		q.ReverseCharge, q.VATPercent = true, 0
	}
	q.VATCents = (q.SubtotalCents*q.VATPercent + 50) / 100
	q.TotalCents = q.SubtotalCents + q.VATCents
	return q
}

// formatUSD renders cents as "$1,440.00".
func formatUSD(cents int64) string {
	neg := cents < 0
	if neg {
		cents = -cents
	}
	whole := strconv.FormatInt(cents/100, 10)
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	b.WriteByte('$')
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	b.WriteByte('.')
	frac := cents % 100
	b.WriteByte(byte('0' + frac/10))
	b.WriteByte(byte('0' + frac%10))
	return b.String()
}

// formatAmount renders cents as a plain decimal "1440.00" (data-amount).
func formatAmount(cents int64) string {
	s := formatUSD(cents)
	s = strings.ReplaceAll(s, ",", "")
	return strings.Replace(s, "$", "", 1)
}

// formatCardPrice renders a plan card price: "$15" for whole dollars,
// "$16.50" otherwise.
func formatCardPrice(cents int64) string {
	s := formatUSD(cents)
	return strings.TrimSuffix(s, ".00")
}
