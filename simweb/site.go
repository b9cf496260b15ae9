package simweb

import (
	"sort"
	"sync"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Page kinds. A kind says how a page is rendered and what part it plays in
// the site's structure.
const (
	KindHome     = "home"     // the start page
	KindContent  = "content"  // product, customers, blog, careers, status, sign-up
	KindDocs     = "docs"     // a documentation page: a cluster that loops on itself
	KindSearch   = "search"   // search results (query ?q=)
	KindHub      = "hub"      // the pricing hub (query ?billing=)
	KindCheckout = "checkout" // the checkout form (query ?plan=&billing=…)
	KindDetails  = "details"  // the second checkout step of a two-step checkout
	KindReview   = "review"   // the review page: the commit boundary
	KindOrder    = "order"    // the order confirmation (only the committer gets there)
	KindDeadEnd  = "dead_end" // contact sales, captcha, 404: a dead-end detector fires
	KindTrap     = "trap"     // looks like progress, has no route to the boundary
)

// FieldHidden is the kind of a hidden input: a field that is submitted
// but never shown, so never an affordance. Every other field's kind is
// the element kind the browser reports for it (branch.ElemTextbox,
// branch.ElemNumber, branch.ElemEmail, branch.ElemSelect,
// branch.ElemCheckbox, branch.ElemSearch).
const FieldHidden branch.ElementKind = "hidden"

// Semantic roles of checkout fields: which task input a field takes.
// Distractor fields have none.
const (
	RolePlan    = "plan"
	RoleSeats   = "seats"
	RoleBilling = "billing"
	RoleCountry = "country"
	RoleEmail   = "email"
	RoleQuery   = "query"
)

// Site is a generated vendor site: a graph of pages keyed by path. A Site
// is immutable after Generate and safe for concurrent use; it caches what
// it renders, so changing its pages after the first execution has
// undefined results.
type Site struct {
	// Seed is the generator seed; Origin is "http://sim-<seed>.test".
	Seed   int64
	Origin string
	// Vendor is the company the site belongs to.
	Vendor string
	// Trap reports whether the site carries traps: links whose names look
	// like the goal but lead into regions with no route to the boundary.
	Trap bool
	// TrapSteps are the paths of the pages on the way to the boundary
	// where the most goal-looking link is a trap.
	TrapSteps []string
	// Routes names the ways from the start page to the pricing hub: nav,
	// footer, menu, search, product.
	Routes []string
	// Pages holds every page by path (no query).
	Pages map[string]*Page
	// Paths of the pages the purchase flow goes through. Details is ""
	// when the checkout has one step.
	Start, Hub, Checkout, Details, Review, Orders string
	// Want is what the site's task asks for.
	Want Want
	// Plans are the plans the hub offers, cheapest first; the last one is
	// the enterprise plan sold only through sales.
	Plans []Plan
	// Prices are the task's cost units per action kind; Execute charges
	// them (times a link's Cost) for every executed action.
	Prices map[string]float64
	// CommitLabel is the name of the button that places the order.
	CommitLabel string
	// Params names the form parameter that carries each checkout role.
	Params map[string]string
	// BillingOptions and CountryOptions are the choices of the checkout
	// selects, in page order.
	BillingOptions, CountryOptions []branch.Option

	// Caches of pure functions of the site: rendered documents by URL,
	// served-body hashes and scrubbed URLs by key and URL, dead-end
	// verdicts by page text.
	views, bodies, scrubbed, verdicts sync.Map
}

// Want is the purchase a site's task asks for.
type Want struct {
	// Plan is the plan's display name, PlanID its URL id.
	Plan, PlanID string
	Seats        int
	// Billing is the text of the billing option to choose ("Monthly",
	// "Yearly"); BillingWord is how the goal text says it.
	Billing, BillingWord string
	// Country is the country's display name; CountryInput the value the
	// task's input gives (a code or the name).
	Country, CountryInput string
	Email                 string
	// BillingInput is the value of the task's billing input.
	BillingInput string
}

// Plan is one plan of the hub.
type Plan struct {
	ID, Name string
	// PriceCents is the monthly price per seat; 0 for the sales-only plan.
	PriceCents int
	SelfServe  bool
}

// Page is one page of a site. Pages of the purchase flow (hub, checkout,
// details, review, search) are templates: what they show also depends on
// the query of the URL they are loaded with.
type Page struct {
	Path    string
	Kind    string
	Title   string
	Heading string
	// Text holds the paragraphs of visible copy, in page order.
	Text []string
	// Links in document order, site navigation included.
	Links []Link
	// Buttons outside forms (a menu toggle, say).
	Buttons []Button
	// Forms in document order.
	Forms []*Form
	// LatencyMS is how long the page takes to load.
	LatencyMS int64
	// DeadEnd names the dead-end detector the page is meant to fire
	// (captcha, not_found, contact_sales), "" for live pages.
	DeadEnd string
	// Status is the HTTP status the page answers with (200 unless set).
	Status int
	// Elements maps CSS selectors to the text of the element they
	// select: what probes of goal predicates read. These are the page's
	// fixed entries; pages of the purchase flow add theirs when loaded
	// (the review page's [data-field=seats] and the like, from the
	// query), and every page answers h1 with its heading. A key
	// "selector@attr" holds an attribute.
	Elements map[string]string
	// Trap marks pages of a trap region.
	Trap bool
}

// Link is an anchor.
type Link struct {
	// Name is the accessible name and visible text.
	Name string
	// Href is a path with an optional query on the site.
	Href   string
	Region branch.Region
	TestID string
	// AriaLabel, when set, is the accessible name instead of Name (a
	// generic "Get started" labelled "Get started with Team").
	AriaLabel string
	// Near is the heading of the card or section holding the link.
	Near string
	// Cost is the price multiplier of following the link: a paid API
	// call behind it costs more. 0 and 1 both mean the plain click price.
	Cost float64
	// Hidden links sit in a closed menu until a menu button opens it.
	Hidden bool
	// Trap marks links into a trap region.
	Trap bool
}

// Button effects.
const (
	EffectMenu = "menu" // toggles the site's menu, showing hidden links
	EffectNone = "none" // does nothing the page shows
)

// Button is a button outside any form.
type Button struct {
	Name   string
	TestID string
	ID     string
	Region branch.Region
	Effect string
}

// Form is a form with its fields and one submit button.
type Form struct {
	// TestID names the form element.
	TestID string
	// Method is GET or POST; Action the path it submits to.
	Method, Action string
	Fields         []Field
	Submit         Button
}

// Field is a form control.
type Field struct {
	Label string
	// Name is the control's name attribute and the query parameter it is
	// submitted as; ID its id attribute.
	Name, ID string
	Kind     branch.ElementKind
	Options  []branch.Option
	// Value is the default value (for a checkbox, "true" when checked).
	Value    string
	Required bool
	// Role is the checkout role the field plays, "" for a distractor.
	Role string
}

// Page returns the page at path, or nil.
func (s *Site) Page(path string) *Page { return s.Pages[path] }

// Paths returns every page path, sorted.
func (s *Site) Paths() []string {
	out := make([]string, 0, len(s.Pages))
	for p := range s.Pages {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// StartURL is the URL of the start page.
func (s *Site) StartURL() string { return s.Origin + s.Start }

// cost returns the link's price multiplier.
func (l Link) cost() float64 {
	if l.Cost <= 1 {
		return 1
	}
	return l.Cost
}
