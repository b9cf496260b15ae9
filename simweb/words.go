package simweb

import "github.com/multiverse-orchestrator/multiverse/branch"

// The wording pools of generated sites. Each site draws from them with its
// own seed, so two sites rarely say the same thing the same way.

var vendorFirst = []string{"Nimbus", "Lumen", "Orbit", "Cobalt", "Juniper", "Quartz", "Beacon", "Tandem",
	"Vertex", "Harbor", "Maple", "Atlas", "Helix", "Pioneer", "Summit", "Kestrel", "Fjord", "Cedar"}

var vendorSecond = []string{"Cloud", "Analytics", "CRM", "Desk", "Works", "Stack", "Metrics", "Flow", "Base", "Labs"}

var taglines = []string{
	"Managed cloud infrastructure for growing teams",
	"Product analytics your whole team can read",
	"The help desk that keeps customers happy",
	"Project planning for busy teams",
	"Uptime monitoring and incident response",
	"A CRM that sales teams actually use",
	"Feature flags and experiments at scale",
}

// planLadders are the self-serve plans of a hub, cheapest first, with
// their monthly per-seat prices in cents. Every hub ends with Enterprise.
var planLadders = []struct {
	names  [3]string
	prices [3]int
}{
	{[3]string{"Starter", "Team", "Business"}, [3]int{600, 1200, 2400}},
	{[3]string{"Basic", "Pro", "Business"}, [3]int{500, 1500, 3000}},
	{[3]string{"Essentials", "Growth", "Scale"}, [3]int{800, 1900, 3900}},
	{[3]string{"Solo", "Team", "Organization"}, [3]int{400, 1100, 2900}},
	{[3]string{"Lite", "Standard", "Premium"}, [3]int{700, 1400, 2800}},
}

// hubLabels are the names of links to the pricing hub; the second field
// is the hub path the label goes with. Labels marked strong rank as high
// as a trap link with the planner's word lexicon, so trap sites with a
// trap on the start page avoid them.
var hubLabels = []struct {
	label, path string
	strong      bool
}{
	{"Pricing", "/pricing", false},
	{"Plans", "/plans", false},
	{"Plans & pricing", "/plans-pricing", true},
	{"Buy", "/buy", false},
	{"Pricing & plans", "/pricing", true},
}

// ctaLabels name a plan card's call to action ({P}: the plan name). The
// strong ones rank as high as a trap link.
var ctaLabels = []struct {
	label  string
	strong bool
}{
	{"Choose {P}", false},
	{"Select {P}", false},
	{"Get {P}", false},
	{"Start with {P}", false},
	// A generic label gets an aria-label naming the plan, which the
	// proposer reads twice (name and aria-label): it ranks as a trap does.
	{"Get started", true},
	{"Buy {P}", true},
}

var checkoutPaths = []string{"/checkout", "/cart", "/subscribe", "/signup/checkout"}

var seatsLabels = []struct{ label, name string }{
	{"Seats", "seats"}, {"Number of seats", "seat_count"}, {"Licenses", "licenses"}, {"Users", "users"}, {"Quantity", "quantity"},
}

var billingLabels = []struct{ label, name string }{
	{"Billing", "billing"}, {"Billing period", "billing_period"}, {"Billing cycle", "billing_cycle"}, {"Billing frequency", "interval"},
}

var countryLabels = []struct{ label, name string }{
	{"Country", "country"}, {"Country or region", "country_code"}, {"Billing country", "billing_country"},
}

var emailLabels = []struct{ label, name string }{
	{"Email", "email"}, {"Work email", "work_email"}, {"Billing email", "billing_email"}, {"Email address", "email_address"},
}

// distractors are checkout fields no task input fills; none is required.
var distractors = []Field{
	{Label: "Company name", Name: "company", Kind: branch.ElemTextbox},
	{Label: "VAT ID (optional)", Name: "vat_id", Kind: branch.ElemTextbox},
	{Label: "Promo code", Name: "promo_code", Kind: branch.ElemTextbox},
	{Label: "Phone (optional)", Name: "phone", Kind: branch.ElemTextbox},
	{Label: "Purchase order number (optional)", Name: "po_number", Kind: branch.ElemTextbox},
	{Label: "Job title", Name: "job_title", Kind: branch.ElemTextbox},
	{Label: "Send me product updates", Name: "newsletter", Kind: branch.ElemCheckbox},
}

var submitLabels = []string{"Continue to review", "Review order", "Continue", "Next: review", "Go to review"}

var stepOneLabels = []string{"Continue", "Next", "Continue to details"}

var commitLabels = []string{"Place order", "Confirm purchase", "Complete order", "Submit order"}

// billingStyles are the option values and texts of billing selects:
// monthly first, then annual.
var billingStyles = [][2]branch.Option{
	{{Value: "monthly", Text: "Monthly"}, {Value: "annual", Text: "Annual"}},
	{{Value: "month", Text: "Monthly"}, {Value: "year", Text: "Yearly"}},
	{{Value: "1", Text: "Monthly"}, {Value: "12", Text: "Annual"}},
}

var countries = []struct{ code, name string }{
	{"AT", "Austria"}, {"DE", "Germany"}, {"ES", "Spain"}, {"FR", "France"}, {"IE", "Ireland"},
	{"NL", "Netherlands"}, {"GB", "United Kingdom"}, {"US", "United States"},
}

// targetCountries are the countries a task may ask for.
var targetCountries = []string{"DE", "FR", "NL", "AT", "ES", "IE"}

var seatCounts = []int{5, 8, 10, 12, 15, 20, 25}

var buyerEmails = []string{"procurement@example.com", "it-purchasing@example.org", "buyer@example.net", "ops@example.com"}

// Trap link names ({P} plan, {B} billing word, {N} seats). The entry names
// must outrank any legitimate link of the page they sit on; the inner ones
// keep an agent that follows the most goal-looking link inside the region.
var trapEntryNames = []string{
	"{P} plan pricing explained",
	"How to buy the {P} plan",
	"Compare {P} plan pricing",
	"{P} plan checkout guide",
	"{B} {P} plan pricing",
}

var trapInnerNames = []string{
	"{P} plan guide",
	"Seats and billing FAQ",
	"{B} plans compared",
	"{P} plan pricing by seat count",
	"Buying {P} plan seats",
	"{P} plan billing questions",
}

var trapSuffixes = []string{"-faq", "-guide", "-compared", "-help"}

var docsPages = []struct{ slug, title string }{
	{"getting-started", "Getting started"},
	{"api", "API reference"},
	{"billing", "Billing and invoices"},
	{"seats", "Seats and permissions"},
	{"faq", "FAQ"},
	{"integrations", "Integrations"},
}
