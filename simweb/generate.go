package simweb

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Route names: the ways from the start page to the pricing hub.
const (
	RouteNav     = "nav"
	RouteFooter  = "footer"
	RouteMenu    = "menu"
	RouteSearch  = "search"
	RouteProduct = "product"
)

// Generate builds the site of a seed. It is a pure function of seed and
// cfg: the same inputs give an identical site in every process.
func Generate(seed int64, cfg Config) *Site {
	cfg = cfg.normalized()
	g := &gen{r: rand.New(rand.NewPCG(uint64(seed), 0x5173_7765_6221)), cfg: cfg}
	return g.site(seed)
}

type gen struct {
	r        *rand.Rand
	cfg      Config
	s        *Site
	routes   map[string]bool
	hubLabel string
	trapHome bool
	trapHub  bool
	paid     bool
	twoStep  bool
	toggle   bool
	// defBilling is the billing option value the hub and checkout start
	// with.
	defBilling string
	trapEntry  string
	// trapBase is the entry page of the trap region.
	trapBase string
	// The site chrome, built once so every page shows the same.
	navLinks, menuLinks, footerLinks []Link
}

func pick[T any](r *rand.Rand, list []T) T { return list[r.IntN(len(list))] }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func fill(tmpl string, w Want) string {
	return strings.NewReplacer("{P}", w.Plan, "{B}", capitalize(w.BillingWord), "{N}", strconv.Itoa(w.Seats)).Replace(tmpl)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (g *gen) site(seed int64) *Site {
	r := g.r
	// The coin flips come first and are always drawn, so a seed's trap and
	// paid-link draws do not depend on the configuration's switches.
	trap := g.chance(g.cfg.TrapRate)
	paid := g.chance(PaidRate)
	g.twoStep = g.chance(TwoStepRate)
	place := r.IntN(3)
	s := &Site{Seed: seed, Origin: fmt.Sprintf("http://sim-%d.test", seed), Pages: map[string]*Page{}, Start: "/",
		Orders: "/orders", Params: map[string]string{}}
	g.s = s
	s.Trap = g.cfg.Traps && trap
	g.paid = g.cfg.PaidLinks && paid
	if s.Trap {
		g.trapHome = place != 1
		g.trapHub = place != 0
	}
	s.Vendor = pick(r, vendorFirst) + " " + pick(r, vendorSecond)
	g.want()
	g.paths()
	g.chooseRoutes()
	s.Prices = map[string]float64{branch.KindNavigate: 1, branch.KindClick: 1, branch.KindType: 1, branch.KindSelect: 1,
		branch.KindCheck: 1, branch.KindKeyPress: 1, branch.KindScroll: 0.5, branch.KindWaitFor: 0.5, branch.KindEval: 2}

	g.home()
	g.content()
	g.docs()
	g.deadEnds()
	if g.routes[RouteSearch] {
		g.searchPage()
	}
	g.hub()
	g.checkout()
	g.review()
	if s.Trap {
		g.traps()
	}
	for _, p := range s.Paths() {
		s.Pages[p].LatencyMS = g.cfg.MinLatencyMS + r.Int64N(g.cfg.MaxLatencyMS-g.cfg.MinLatencyMS+1)
	}
	return s
}

// want draws the purchase the task asks for and the checkout's options.
func (g *gen) want() {
	r, s := g.r, g.s
	ladder := pick(r, planLadders)
	for i, n := range ladder.names {
		s.Plans = append(s.Plans, Plan{ID: strings.ToLower(n), Name: n, PriceCents: ladder.prices[i], SelfServe: true})
	}
	s.Plans = append(s.Plans, Plan{ID: "enterprise", Name: "Enterprise"})
	target := s.Plans[1+r.IntN(2)]
	w := Want{Plan: target.Name, PlanID: target.ID, Seats: pick(r, seatCounts), Email: pick(r, buyerEmails)}
	style := pick(r, billingStyles)
	s.BillingOptions = []branch.Option{style[0], style[1]}
	chosen := style[0]
	w.BillingWord = "monthly"
	if r.IntN(10) < 3 {
		chosen, w.BillingWord = style[1], "annual"
	}
	w.Billing = chosen.Text
	w.BillingInput = strings.ToLower(chosen.Text)
	g.defBilling = style[r.IntN(2)].Value

	code := pick(r, targetCountries)
	valueStyle := r.IntN(3)
	for _, c := range countries {
		o := branch.Option{Value: c.code, Text: c.name}
		switch valueStyle {
		case 1:
			o.Value = strings.ToLower(c.code)
		case 2:
			o.Value = c.name
		}
		s.CountryOptions = append(s.CountryOptions, o)
		if c.code == code {
			w.Country = c.name
			w.CountryInput = c.name
			if valueStyle < 2 && r.IntN(2) == 0 {
				w.CountryInput = c.code
			}
		}
	}
	s.Want = w
}

func (g *gen) paths() {
	r, s := g.r, g.s
	for {
		h := pick(r, hubLabels)
		if h.strong && g.trapHome {
			continue
		}
		g.hubLabel, s.Hub = h.label, h.path
		break
	}
	s.Checkout = pick(r, checkoutPaths)
	if g.twoStep {
		s.Details = s.Checkout + "/details"
	}
	s.Review = pick(r, []string{s.Checkout + "/review", "/review", "/order/review"})
	s.CommitLabel = pick(r, commitLabels)
	g.toggle = r.IntN(2) == 0
	g.trapBase = s.Hub + pick(r, trapSuffixes)
}

func (g *gen) chooseRoutes() {
	r, s := g.r, g.s
	all := []string{RouteNav, RouteFooter, RouteMenu, RouteSearch, RouteProduct}
	r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	picked := all[:1+r.IntN(4)]
	hasLink := false
	for _, x := range picked {
		if x == RouteNav || x == RouteFooter || x == RouteMenu {
			hasLink = true
		}
	}
	if !hasLink {
		picked[0] = pick(r, []string{RouteNav, RouteFooter, RouteMenu})
	}
	g.routes = map[string]bool{}
	for _, x := range []string{RouteNav, RouteFooter, RouteMenu, RouteSearch, RouteProduct} {
		for _, p := range picked {
			if p == x {
				g.routes[x] = true
				s.Routes = append(s.Routes, x)
			}
		}
	}
}

// page registers a page with the site chrome around main.
func (g *gen) page(path, kind, title, heading string, text []string, main []Link) *Page {
	p := &Page{Path: path, Kind: kind, Title: title + " · " + g.s.Vendor, Heading: heading, Text: text}
	if path == "/" {
		p.Title = g.s.Vendor + " · " + title
	}
	p.Links, p.Buttons = g.chrome(main)
	g.s.Pages[path] = p
	return p
}

// chrome wraps main links in the site header, menu and footer.
func (g *gen) chrome(main []Link) ([]Link, []Button) {
	s := g.s
	var links []Link
	var buttons []Button
	links = append(links, Link{Name: s.Vendor, Href: "/", Region: branch.RegionHeader, TestID: "brand"})
	links = append(links, g.nav()...)
	if g.routes[RouteMenu] {
		buttons = append(buttons, Button{Name: "Menu", TestID: "menu-button", ID: "menu-button", Region: branch.RegionHeader, Effect: EffectMenu})
		links = append(links, g.menu()...)
	}
	links = append(links, main...)
	links = append(links, g.footer()...)
	return links, buttons
}

func (g *gen) nav() []Link {
	if g.navLinks != nil {
		return append([]Link{}, g.navLinks...)
	}
	items := []Link{
		{Name: "Product", Href: "/product", TestID: "nav-product"},
		{Name: "Docs", Href: "/docs", TestID: "nav-docs"},
		{Name: "Customers", Href: "/customers", TestID: "nav-customers"},
		{Name: "Contact sales", Href: "/contact-sales", TestID: "nav-contact-sales"},
	}
	g.r.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	if g.routes[RouteNav] {
		at := g.r.IntN(len(items) + 1)
		hub := Link{Name: g.hubLabel, Href: g.s.Hub, TestID: "nav-pricing"}
		items = append(items[:at], append([]Link{hub}, items[at:]...)...)
	}
	for i := range items {
		items[i].Region = branch.RegionNav
	}
	g.navLinks = items
	return append([]Link{}, items...)
}

func (g *gen) menu() []Link {
	if g.menuLinks != nil {
		return append([]Link{}, g.menuLinks...)
	}
	label := "Plans & pricing"
	if g.trapHome {
		label = "See plans"
	}
	items := []Link{
		{Name: label, Href: g.s.Hub + "?ref=menu", TestID: "menu-pricing", Region: branch.RegionNav, Hidden: true},
		{Name: "Status", Href: "/status", TestID: "menu-status", Region: branch.RegionNav, Hidden: true},
	}
	g.menuLinks = items
	return append([]Link{}, items...)
}

func (g *gen) footer() []Link {
	if g.footerLinks != nil {
		return append([]Link{}, g.footerLinks...)
	}
	items := []Link{
		{Name: "Docs", Href: "/docs", TestID: "footer-docs"},
		{Name: "Blog", Href: "/blog", TestID: "footer-blog"},
		{Name: "Careers", Href: "/careers", TestID: "footer-careers"},
		{Name: "Status", Href: "/status", TestID: "footer-status"},
		{Name: "Archive", Href: "/archive", TestID: "footer-archive"},
		{Name: "Privacy", Href: "/privacy", TestID: "footer-privacy"},
		{Name: "Terms", Href: "/terms", TestID: "footer-terms"},
	}
	if g.routes[RouteFooter] {
		label := "Pricing"
		if g.hubLabel == "Pricing" {
			label = pick(g.r, []string{"Pricing", "Plans"})
		}
		at := g.r.IntN(3)
		hub := Link{Name: label, Href: g.s.Hub + "?ref=footer", TestID: "footer-pricing"}
		items = append(items[:at], append([]Link{hub}, items[at:]...)...)
	}
	for i := range items {
		items[i].Region = branch.RegionFooter
	}
	g.footerLinks = items
	return append([]Link{}, items...)
}

func (g *gen) home() {
	s, w := g.s, g.s.Want
	tagline := pick(g.r, taglines)
	main := []Link{
		{Name: "Start free trial", Href: "/signup", Region: branch.RegionMain, TestID: "start-trial"},
		{Name: "Watch the demo", Href: "/product?ref=hero", Region: branch.RegionMain},
	}
	if g.trapHome {
		name := fill(pick(g.r, trapEntryNames), w)
		g.trapEntry = name
		at := g.r.IntN(len(main) + 1)
		promo := Link{Name: name, Href: g.trapBase, Region: branch.RegionMain, TestID: "promo-link", Trap: true}
		main = append(main[:at], append([]Link{promo}, main[at:]...)...)
	}
	p := g.page("/", KindHome, tagline, s.Vendor, []string{
		tagline + ".",
		"Teams of every size run on " + s.Vendor + ". Start with a free trial or pick a plan when you are ready.",
	}, main)
	if g.routes[RouteSearch] {
		p.Forms = []*Form{{TestID: "search-form", Method: "GET", Action: "/search",
			Fields: []Field{{Label: "Search", Name: "q", ID: "site-search", Kind: branch.ElemSearch, Role: RoleQuery}},
			Submit: Button{Name: "Search", TestID: "search-submit"}}}
	}
	if g.trapHome {
		s.TrapSteps = append(s.TrapSteps, "/")
	}
}

func (g *gen) content() {
	s := g.s
	product := []Link{{Name: "Book a demo", Href: "/demo", Region: branch.RegionMain, TestID: "book-demo"}}
	if g.routes[RouteProduct] {
		product = append(product, Link{Name: "See pricing", Href: s.Hub + "?ref=product", Region: branch.RegionMain, TestID: "see-pricing"})
	}
	product = append(product, Link{Name: "Read the docs", Href: "/docs/getting-started", Region: branch.RegionMain})
	g.r.Shuffle(len(product), func(i, j int) { product[i], product[j] = product[j], product[i] })
	g.page("/product", KindContent, "Product", "Product", []string{
		s.Vendor + " brings your team's work into one place.",
		"Role-based access, audit logs and single sign-on come with every plan.",
	}, product)
	g.page("/customers", KindContent, "Customers", "Customers", []string{
		"Acme Robotics, Globex Logistics and Initech Health rely on " + s.Vendor + " every day.",
	}, []Link{{Name: "Read the Globex story", Href: "/customers/globex", Region: branch.RegionMain}})
	g.page("/customers/globex", KindContent, "Globex", "How Globex ships faster", []string{
		"Globex cut its release time in half.",
	}, []Link{{Name: "All customer stories", Href: "/customers", Region: branch.RegionMain}})
	g.page("/blog", KindContent, "Blog", "Blog", []string{"News and stories from the " + s.Vendor + " team."}, []Link{
		{Name: "How we scale our platform", Href: "/blog/scaling", Region: branch.RegionMain},
		{Name: "Announcing our new plans", Href: "/blog/new-plans", Region: branch.RegionMain},
	})
	g.page("/blog/scaling", KindContent, "How we scale our platform", "How we scale our platform",
		[]string{"A look behind the scenes."}, []Link{{Name: "Back to the blog", Href: "/blog", Region: branch.RegionMain}})
	g.page("/blog/new-plans", KindContent, "Announcing our new plans", "Announcing our new plans",
		[]string{"Our plans changed last year. The old plans remain available to existing customers."},
		[]Link{{Name: "Read about the old plans", Href: "/legacy-plans", Region: branch.RegionMain}, {Name: "Back to the blog", Href: "/blog", Region: branch.RegionMain}})
	g.page("/careers", KindContent, "Careers", "Careers", []string{"Join a small team that ships."},
		[]Link{{Name: "Open roles", Href: "/careers/open-roles", Region: branch.RegionMain}})
	g.page("/status", KindContent, "Status", "System status", []string{"All systems operational."}, nil)
	g.page("/privacy", KindContent, "Privacy", "Privacy notice", []string{"How we handle personal data."}, nil)
	g.page("/terms", KindContent, "Terms", "Terms of service", []string{"The terms that govern your use of the service."}, nil)
	g.page("/signup", KindContent, "Start your free trial", "Start your free trial",
		[]string{"Trial sign-ups are paused while we upgrade our platform. Check back soon."}, nil)
}

func (g *gen) docs() {
	r := g.r
	n := 3 + r.IntN(3)
	idx := r.Perm(len(docsPages))[:n]
	var side []Link
	for _, i := range idx {
		d := docsPages[i]
		side = append(side, Link{Name: d.title, Href: "/docs/" + d.slug, Region: branch.RegionMain})
	}
	g.page("/docs", KindDocs, "Documentation", "Documentation", []string{"Guides and references for " + g.s.Vendor + "."}, side)
	for _, i := range idx {
		d := docsPages[i]
		var links []Link
		for _, l := range side {
			if l.Href != "/docs/"+d.slug {
				links = append(links, l)
			}
		}
		links = append(links, Link{Name: "Documentation home", Href: "/docs", Region: branch.RegionMain})
		g.page("/docs/"+d.slug, KindDocs, d.title+" · Docs", d.title, []string{"This guide covers " + strings.ToLower(d.title) + "."}, links)
	}
	if g.s.Pages["/docs/getting-started"] == nil {
		g.page("/docs/getting-started", KindDocs, "Getting started · Docs", "Getting started",
			[]string{"Create a project and invite your team."}, []Link{{Name: "Documentation home", Href: "/docs", Region: branch.RegionMain}})
	}
}

func (g *gen) deadEnds() {
	p := g.page("/contact-sales", KindDeadEnd, "Contact sales", "Contact sales",
		[]string{"Thanks for your interest. Our sales team will contact you within one business day."}, nil)
	p.DeadEnd = "contact_sales"
	p = g.page("/demo", KindDeadEnd, "Book a demo", "Book a demo",
		[]string{"Before we continue, please verify you are a human.", "Security check: complete the captcha below."}, nil)
	p.DeadEnd = "captcha"
	p = g.page("/404", KindDeadEnd, "Page not found", "Page not found", []string{"We couldn't find that page."},
		[]Link{{Name: "Back to home", Href: "/", Region: branch.RegionMain}})
	p.DeadEnd, p.Status = "not_found", 404
	if g.paid {
		p = g.page("/quote", KindDeadEnd, "Instant quote", "Your instant quote",
			[]string{"We priced your request through our partner API.", "Our sales team will contact you with the quote for your team."}, nil)
		p.DeadEnd = "contact_sales"
	}
}

func (g *gen) searchPage() {
	g.page("/search", KindSearch, "Search", "Search results", nil, nil)
}

func (g *gen) hub() {
	s, r, w := g.s, g.r, g.s.Want
	heading := "Pricing"
	if strings.HasPrefix(g.hubLabel, "Plans") || g.hubLabel == "Buy" {
		heading = "Plans"
	}
	var main []Link
	if g.toggle {
		main = append(main,
			Link{Name: s.BillingOptions[0].Text, Href: s.Hub + "?billing=" + url.QueryEscape(s.BillingOptions[0].Value), Region: branch.RegionMain, TestID: "billing-monthly"},
			Link{Name: s.BillingOptions[1].Text, Href: s.Hub + "?billing=" + url.QueryEscape(s.BillingOptions[1].Value), Region: branch.RegionMain, TestID: "billing-annual"})
	}
	cta := pick(r, ctaLabels)
	for cta.strong && g.trapHub {
		cta = pick(r, ctaLabels)
	}
	for _, p := range s.Plans {
		if !p.SelfServe {
			main = append(main, Link{Name: "Contact sales", Href: "/contact-sales?plan=enterprise", Region: branch.RegionMain,
				TestID: "plan-enterprise-cta", Near: p.Name})
			continue
		}
		l := Link{Name: strings.ReplaceAll(cta.label, "{P}", p.Name), Href: s.Checkout + "?plan=" + p.ID,
			Region: branch.RegionMain, TestID: "plan-" + p.ID + "-cta", Near: p.Name}
		if !strings.Contains(cta.label, "{P}") {
			l.AriaLabel = cta.label + " with " + p.Name
		}
		main = append(main, l)
	}
	var extra []Link
	if g.paid {
		extra = append(extra, Link{Name: "Get an instant quote", Href: "/quote", Region: branch.RegionMain, TestID: "instant-quote", Cost: PaidCost})
	}
	if g.trapHub {
		name := fill(pick(r, trapEntryNames), w)
		for name == g.trapEntry {
			name = fill(pick(r, trapEntryNames), w)
		}
		extra = append(extra, Link{Name: name, Href: g.trapBase, Region: branch.RegionMain, TestID: "plan-guide", Trap: true})
		s.TrapSteps = append(s.TrapSteps, s.Hub)
	}
	extra = append(extra, Link{Name: "Billing questions", Href: "/docs/getting-started?ref=pricing", Region: branch.RegionMain})
	r.Shuffle(len(extra), func(i, j int) { extra[i], extra[j] = extra[j], extra[i] })
	main = append(main, extra...)
	g.page(s.Hub, KindHub, heading, heading, []string{
		"Simple per-seat pricing. Start small and add seats as your team grows.",
		"Prices exclude VAT. VAT is added at checkout based on your country.",
	}, main)
}

func (g *gen) checkout() {
	s, r := g.s, g.r
	seats := pick(r, seatsLabels)
	billing := pick(r, billingLabels)
	country := pick(r, countryLabels)
	email := pick(r, emailLabels)
	s.Params[RolePlan] = "plan"
	s.Params[RoleSeats] = seats.name
	s.Params[RoleBilling] = billing.name
	s.Params[RoleCountry] = country.name
	s.Params[RoleEmail] = email.name

	countryField := Field{Label: country.label, Name: country.name, ID: country.name, Kind: branch.ElemSelect, Role: RoleCountry, Required: true}
	if r.IntN(2) == 0 {
		countryField.Options = append([]branch.Option{{Value: "", Text: "Select a country"}}, s.CountryOptions...)
	} else {
		countryField.Options = append([]branch.Option{}, s.CountryOptions...)
		countryField.Value = s.CountryOptions[len(s.CountryOptions)-1].Value
	}
	fields := []Field{
		{Label: seats.label, Name: seats.name, ID: seats.name, Kind: branch.ElemNumber, Value: "1", Required: true, Role: RoleSeats},
		{Label: billing.label, Name: billing.name, ID: billing.name, Kind: branch.ElemSelect, Options: append([]branch.Option{}, s.BillingOptions...), Value: g.defBilling, Role: RoleBilling},
		countryField,
		{Label: email.label, Name: email.name, ID: email.name, Kind: branch.ElemEmail, Required: true, Role: RoleEmail},
	}
	nd := 1 + r.IntN(3)
	for _, i := range r.Perm(len(distractors))[:nd] {
		d := distractors[i]
		d.ID = d.Name
		fields = append(fields, d)
	}
	r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	plan := Field{Name: "plan", ID: "plan", Kind: FieldHidden, Role: RolePlan}

	next := s.Review
	if g.twoStep {
		next = s.Details
	}
	var first, second []Field
	moved := false // one distractor moves to the second step
	for _, f := range fields {
		if g.twoStep && (f.Role == RoleCountry || f.Role == RoleEmail || (f.Role == "" && !moved)) {
			moved = moved || f.Role == ""
			second = append(second, f)
			continue
		}
		first = append(first, f)
	}
	submit := pick(r, submitLabels)
	label := submit
	if g.twoStep {
		label = pick(r, stepOneLabels)
	}
	back := []Link{{Name: "Back to " + strings.ToLower(g.hubLabel), Href: s.Hub, Region: branch.RegionMain, TestID: "back-to-pricing"}}
	p := g.page(s.Checkout, KindCheckout, "Checkout", "Checkout", []string{"Review your plan and tell us where to send the invoice."}, back)
	p.Forms = []*Form{{TestID: "checkout-form", Method: "GET", Action: next, Fields: append([]Field{plan}, first...),
		Submit: Button{Name: label, TestID: "checkout-continue"}}}
	if g.twoStep {
		carry := []Field{plan}
		for _, f := range first {
			if f.Kind != branch.ElemCheckbox {
				carry = append(carry, Field{Name: f.Name, ID: "carry-" + f.ID, Kind: FieldHidden, Role: f.Role})
			}
		}
		p := g.page(s.Details, KindDetails, "Your details", "Your details", []string{"Where should we send the invoice?"}, nil)
		p.Forms = []*Form{{TestID: "details-form", Method: "GET", Action: s.Review, Fields: append(carry, second...),
			Submit: Button{Name: submit, TestID: "details-continue"}}}
	}
}

func (g *gen) review() {
	s := g.s
	var hidden []Field
	for _, role := range []string{RolePlan, RoleSeats, RoleBilling, RoleCountry, RoleEmail} {
		hidden = append(hidden, Field{Name: s.Params[role], ID: "order-" + s.Params[role], Kind: FieldHidden, Role: role})
	}
	hidden = append(hidden, Field{Name: "client_reference", ID: "client_reference", Kind: FieldHidden})
	p := g.page(s.Review, KindReview, "Review your order", "Review your order",
		[]string{"Nothing is charged until you place the order."},
		[]Link{{Name: "Edit order", Region: branch.RegionMain, TestID: "edit-order"}})
	p.Forms = []*Form{{TestID: "order-form", Method: "POST", Action: s.Orders, Fields: hidden,
		Submit: Button{Name: s.CommitLabel, TestID: "place-order"}}}
	g.page(s.Orders, KindOrder, "Order confirmed", "Order confirmed", []string{"Thank you for your order."}, nil)
}

// traps builds the trap region: pages under the hub's path (so they
// satisfy a loose hub milestone) in a help-center layout without the site
// navigation, linking to each other with goal-looking names and ending in
// dead ends. Nothing in the region leads to the checkout.
func (g *gen) traps() {
	s, r, w := g.s, g.r, g.s.Want
	base := g.trapBase
	names := r.Perm(len(trapInnerNames))
	inner := func(i int) string { return fill(trapInnerNames[names[i%len(names)]], w) }
	paths := []string{base, base + "/seats", base + "/billing", base + "/compare"}
	volume := base + "/volume"
	links := [][]int{{1, 2}, {2, 3, 0}, {3, 0}, {0, 1}}
	for i, path := range paths {
		var ls []Link
		ls = append(ls, Link{Name: "Help center", Href: base + "?ref=kb", Region: branch.RegionHeader, TestID: "kb-home"})
		for j, k := range links[i] {
			ls = append(ls, Link{Name: inner(i*3 + j), Href: paths[k], Region: branch.RegionMain, Trap: true})
		}
		if i == 2 {
			ls = append(ls, Link{Name: "Volume pricing for the " + w.Plan + " plan", Href: volume, Region: branch.RegionMain, Trap: true})
		}
		if i == 3 {
			ls = append(ls, Link{Name: "Old " + w.Plan + " plan pricing", Href: base + "/old", Region: branch.RegionMain, Trap: true})
		}
		s.Pages[path] = &Page{Path: path, Kind: KindTrap, Trap: true, Title: "Help center · " + s.Vendor,
			Heading: inner(i*3 + 2), Text: []string{"Answers about plans, seats and billing.", "Was this article helpful?"}, Links: ls}
	}
	s.Pages[volume] = &Page{Path: volume, Kind: KindDeadEnd, Trap: true, DeadEnd: "contact_sales", Title: "Volume pricing · " + s.Vendor,
		Heading: "Volume pricing", Text: []string{"Our sales team will contact you about volume pricing for your team."}}
}
