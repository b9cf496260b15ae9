package simweb

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// view is a page as loaded from one URL: the concrete document the
// simulated browser holds, with live form state.
type view struct {
	site     *Site
	page     *Page
	url      string // absolute, as requested
	status   int
	title    string
	heading  string
	text     []string
	controls []*control
	forms    []*formView
	elements map[string]string
	menuOpen bool
}

// clone returns a copy of the view whose live state (values, checks, the
// menu) changes independently. Copy and options are shared: nothing
// changes them after load.
func (v *view) clone() *view {
	c := *v
	moved := make(map[*control]*control, len(v.controls))
	c.controls = make([]*control, len(v.controls))
	for i, x := range v.controls {
		y := *x
		c.controls[i] = &y
		moved[x] = &y
	}
	c.forms = make([]*formView, len(v.forms))
	for i, f := range v.forms {
		nf := &formView{method: f.method, action: f.action, submit: moved[f.submit], fields: make([]*control, len(f.fields))}
		for j, x := range f.fields {
			nf.fields[j] = moved[x]
		}
		c.forms[i] = nf
	}
	return &c
}

// control is one element an action can target.
type control struct {
	kind     branch.ElementKind // link, button, a field's kind (FieldHidden too)
	role     string
	name     string
	text     string
	testid   string
	aria     string
	id       string
	field    string
	css      string
	selector string // css with attribute quotes dropped, for probes
	near     string
	region   branch.Region
	form     int
	href     string
	value    string
	options  []branch.Option
	checked  bool
	required bool
	submit   bool
	// hidden: the element is in the DOM but not shown (a closed menu's
	// links, hidden inputs).
	hidden bool
	menu   bool // shown while the menu is open
	cost   float64
	effect string
	trap   bool
	role2  string // checkout role of a field
}

type formView struct {
	method, action string
	fields         []*control
	submit         *control
}

func (c *control) visible(menuOpen bool) bool {
	if c.menu {
		return menuOpen
	}
	return !c.hidden
}

// load returns a fresh copy of the document at rawURL. Unknown paths
// render the 404 page; the bool is false when rawURL is not on the site.
func (s *Site) load(rawURL string) (*view, bool) {
	if v, ok := s.views.Load(rawURL); ok {
		return v.(*view).clone(), true
	}
	v, ok := s.render(rawURL)
	if !ok {
		return nil, false
	}
	s.views.Store(rawURL, v)
	return v.clone(), true
}

// render builds the document at rawURL.
func (s *Site) render(rawURL string) (*view, bool) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme+"://"+u.Host != s.Origin {
		return nil, false
	}
	path := u.Path
	if path == "" {
		path = "/"
	}
	q := u.Query()
	p := s.Pages[path]
	var orderID string
	if p == nil && strings.HasPrefix(path, s.Orders+"/ORD-") {
		p, orderID = s.Pages[s.Orders], strings.TrimPrefix(path, s.Orders+"/")
	}
	status := 200
	if p == nil {
		p = s.Pages["/404"]
	}
	if p.Status != 0 {
		status = p.Status
	}
	v := &view{site: s, page: p, url: s.Origin + path, status: status, title: p.Title, heading: p.Heading,
		text: append([]string{}, p.Text...), elements: map[string]string{}}
	if u.RawQuery != "" {
		v.url += "?" + u.RawQuery
	}
	links := p.Links
	forms := p.Forms
	switch p.Kind {
	case KindSearch:
		links = v.search(q, links)
	case KindHub:
		links = v.hub(q, links)
	case KindCheckout, KindDetails:
		if !s.validPlan(q.Get("plan")) {
			v.text = []string{"Choose a plan to continue."}
			forms = nil
			links = append(append([]Link{}, links...), Link{Name: "See plans", Href: s.Hub, Region: branch.RegionMain, TestID: "choose-plan"})
		} else if pl := s.plan(q.Get("plan")); pl != nil {
			v.text = append([]string{fmt.Sprintf("%s plan · %s per seat / month", pl.Name, dollars(pl.PriceCents))}, v.text...)
		}
	case KindReview:
		links = v.review(q, links)
	case KindOrder:
		if orderID != "" {
			v.heading = "Order confirmed"
			v.title = "Order " + orderID + " · " + s.Vendor
			v.text = []string{"Thank you for your order.", "Your order " + orderID + " is confirmed."}
			v.elements["[data-testid=order-id]"] = orderID
		} else {
			v.heading, v.text = "Your orders", []string{"Orders you placed appear here."}
		}
	}
	for k, t := range p.Elements {
		v.elements[k] = t
	}
	if v.heading != "" {
		v.elements["h1"] = v.heading
	}
	v.build(links, p.Buttons, forms, q)
	return v, true
}

func (s *Site) validPlan(id string) bool {
	p := s.plan(id)
	return p != nil && p.SelfServe
}

func (s *Site) plan(id string) *Plan {
	for i := range s.Plans {
		if s.Plans[i].ID == id {
			return &s.Plans[i]
		}
	}
	return nil
}

func dollars(cents int) string {
	return fmt.Sprintf("$%d.%02d", cents/100, cents%100)
}

func (v *view) search(q url.Values, links []Link) []Link {
	s := v.site
	query := strings.TrimSpace(q.Get("q"))
	v.heading = "Search results"
	hit := false
	lq := strings.ToLower(query)
	for _, t := range []string{"pric", "plan", "buy", "cost", "seat", "checkout"} {
		if strings.Contains(lq, t) {
			hit = true
		}
	}
	switch {
	case query == "":
		v.text = []string{"Type what you are looking for."}
	case hit:
		v.text = []string{fmt.Sprintf("1 result for %q", query)}
		return insertMain(links, Link{Name: "Plans and pricing for every team size", Href: s.Hub + "?ref=search",
			Region: branch.RegionMain, TestID: "search-result-pricing"})
	default:
		v.text = []string{fmt.Sprintf("No results for %q", query)}
	}
	return links
}

// insertMain inserts l after the last header or nav link.
func insertMain(links []Link, l Link) []Link {
	at := 0
	for i, x := range links {
		if x.Region == branch.RegionHeader || x.Region == branch.RegionNav {
			at = i + 1
		}
	}
	out := append([]Link{}, links[:at]...)
	out = append(out, l)
	return append(out, links[at:]...)
}

// hub shows prices for the billing period asked for and points the plan
// links at the checkout with it.
func (v *view) hub(q url.Values, links []Link) []Link {
	s := v.site
	billing := q.Get("billing")
	known := false
	for _, o := range s.BillingOptions {
		if o.Value == billing {
			known = true
		}
	}
	toggle := false
	for _, l := range links {
		if l.TestID == "billing-monthly" {
			toggle = true
		}
	}
	if !known {
		billing = s.defaultBilling()
	}
	annual := billing == s.BillingOptions[1].Value
	for _, p := range s.Plans {
		if !p.SelfServe {
			v.text = append(v.text, p.Name+": custom pricing for large organizations.")
			continue
		}
		price := p.PriceCents
		period := "per seat / month"
		if annual {
			price = price * 12 * 8 / 10
			period = "per seat / year"
		}
		v.text = append(v.text, fmt.Sprintf("%s: %s %s", p.Name, dollars(price), period))
	}
	if !toggle {
		return links
	}
	out := append([]Link{}, links...)
	for i, l := range out {
		if strings.HasPrefix(l.TestID, "plan-") && strings.HasSuffix(l.TestID, "-cta") && strings.HasPrefix(l.Href, s.Checkout+"?") {
			out[i].Href += "&billing=" + url.QueryEscape(billing)
		}
	}
	return out
}

// defaultBilling is the billing value the hub and checkout start with:
// the checkout select's default.
func (s *Site) defaultBilling() string {
	if p := s.Pages[s.Checkout]; p != nil && len(p.Forms) > 0 {
		for _, f := range p.Forms[0].Fields {
			if f.Role == RoleBilling {
				return f.Value
			}
		}
	}
	if p := s.Pages[s.Details]; p != nil && len(p.Forms) > 0 {
		for _, f := range p.Forms[0].Fields {
			if f.Role == RoleBilling && f.Kind == branch.ElemSelect {
				return f.Value
			}
		}
	}
	return s.BillingOptions[0].Value
}

// review shows the order as the query carries it; its elements are what
// the task's success predicates read.
func (v *view) review(q url.Values, links []Link) []Link {
	s := v.site
	get := func(role string) string { return strings.TrimSpace(q.Get(s.Params[role])) }
	planName := ""
	price := 0
	if p := s.plan(get(RolePlan)); p != nil {
		planName, price = p.Name, p.PriceCents
	}
	billing := optionText(s.BillingOptions, get(RoleBilling))
	country := optionText(s.CountryOptions, get(RoleCountry))
	seats := get(RoleSeats)
	n, _ := strconv.Atoi(seats)
	total := n * price
	if get(RoleBilling) == s.BillingOptions[1].Value {
		total = total * 12 * 8 / 10
	}
	total += total * vatPercent(country) / 100
	v.elements["[data-field=plan]"] = planName
	v.elements["[data-field=seats]"] = seats
	v.elements["[data-field=billing]"] = billing
	v.elements["[data-field=country]"] = country
	v.elements["[data-field=email]"] = get(RoleEmail)
	v.elements["[data-field=total]"] = dollars(total)
	v.elements["[data-field=total]@data-amount"] = fmt.Sprintf("%d.%02d", total/100, total%100)
	v.elements["[data-field=total]@data-currency"] = "USD"
	v.elements["[data-testid=nothing-charged]"] = "Nothing is charged until you place the order."
	v.text = append(v.text,
		"Plan: "+planName, "Seats: "+seats, "Billing: "+billing, "Country: "+country,
		"Email: "+get(RoleEmail), "Total: "+dollars(total))
	edit := url.Values{}
	for _, role := range []string{RolePlan, RoleSeats, RoleBilling, RoleCountry, RoleEmail} {
		if x := get(role); x != "" {
			edit.Set(s.Params[role], x)
		}
	}
	out := append([]Link{}, links...)
	for i := range out {
		if out[i].TestID == "edit-order" {
			out[i].Href = s.Checkout + "?" + edit.Encode()
		}
	}
	return out
}

func optionText(opts []branch.Option, value string) string {
	for _, o := range opts {
		if o.Value == value {
			return o.Text
		}
	}
	return value
}

func vatPercent(country string) int {
	switch country {
	case "Germany":
		return 19
	case "France", "Austria", "United Kingdom":
		return 20
	case "Netherlands", "Spain":
		return 21
	case "Ireland":
		return 23
	}
	return 0
}

// build turns links, buttons and forms into controls in document order:
// header and nav, the page's forms in the header, main, forms, footer.
func (v *view) build(links []Link, buttons []Button, forms []*Form, q url.Values) {
	byRegion := func(regions ...branch.Region) []Link {
		var out []Link
		for _, l := range links {
			for _, r := range regions {
				if l.Region == r {
					out = append(out, l)
				}
			}
		}
		return out
	}
	nth := map[branch.Region]int{}
	addLink := func(l Link) {
		c := &control{kind: branch.ElemLink, role: "link", name: l.Name, text: trim80(l.Name), testid: l.TestID, aria: l.AriaLabel, region: l.Region,
			form: -1, href: v.site.Origin + l.Href, near: l.Near, cost: l.cost(), trap: l.Trap, menu: l.Hidden}
		if strings.Contains(l.Href, "://") {
			c.href = l.Href
		}
		if l.TestID != "" {
			c.css = `[data-testid="` + l.TestID + `"]`
		} else {
			nth[l.Region]++
			c.css = fmt.Sprintf("%s > a:nth-of-type(%d)", l.Region, nth[l.Region])
		}
		if l.AriaLabel != "" {
			c.name = l.AriaLabel
		}
		c.selector = normSelector(c.css)
		v.controls = append(v.controls, c)
	}
	for _, l := range byRegion(branch.RegionHeader, branch.RegionNav) {
		if !l.Hidden {
			addLink(l)
		}
	}
	for _, b := range buttons {
		c := &control{kind: branch.ElemButton, role: "button", name: b.Name, text: trim80(b.Name), testid: b.TestID, id: b.ID,
			region: b.Region, form: -1, effect: b.Effect}
		c.css = cssOf(b.TestID, b.ID, string(b.Region)+" > button") // the region names its landmark element
		c.selector = normSelector(c.css)
		v.controls = append(v.controls, c)
	}
	for _, l := range byRegion(branch.RegionHeader, branch.RegionNav) {
		if l.Hidden {
			addLink(l)
		}
	}
	headerForms, mainForms := []*Form{}, []*Form{}
	for _, f := range forms {
		if v.page.Kind == KindHome {
			headerForms = append(headerForms, f)
		} else {
			mainForms = append(mainForms, f)
		}
	}
	for _, f := range headerForms {
		v.addForm(f, q)
	}
	for _, l := range byRegion(branch.RegionMain) {
		addLink(l)
	}
	for _, f := range mainForms {
		v.addForm(f, q)
	}
	for _, l := range byRegion(branch.RegionFooter) {
		addLink(l)
	}
}

func trim80(s string) string {
	if len(s) > 80 {
		return s[:80]
	}
	return s
}

func cssOf(testid, id, fallback string) string {
	switch {
	case id != "":
		return "#" + id
	case testid != "":
		return `[data-testid="` + testid + `"]`
	}
	return fallback
}

// addForm adds a form's fields, prefilled from the query where the page
// carries values forward (checkout, details, review).
func (v *view) addForm(f *Form, q url.Values) {
	idx := len(v.forms)
	fv := &formView{method: f.Method, action: f.Action}
	prefill := v.page.Kind == KindCheckout || v.page.Kind == KindDetails || v.page.Kind == KindReview
	for _, fd := range f.Fields {
		c := &control{kind: fd.Kind, name: fd.Label, id: fd.ID, field: fd.Name, region: branch.RegionForm, form: idx,
			value: fd.Value, required: fd.Required, role2: fd.Role, css: cssOf("", fd.ID, "input[name="+fd.Name+"]")}
		switch fd.Kind {
		case branch.ElemTextbox, branch.ElemEmail:
			c.role = "textbox"
		case branch.ElemNumber:
			c.role = "spinbutton"
		case branch.ElemSelect:
			c.role = "combobox"
		case branch.ElemCheckbox:
			c.role = "checkbox"
			c.checked = fd.Value == "true"
			c.value = "on"
		case branch.ElemSearch:
			c.role = "searchbox"
		case FieldHidden:
			c.hidden = true
		}
		if prefill && fd.Name != "" {
			if x, ok := q[fd.Name]; ok && len(x) > 0 && fd.Kind != branch.ElemCheckbox {
				c.value = x[0]
				if fd.Kind == branch.ElemSelect && !hasOption(fd.Options, x[0]) {
					c.value = fd.Value
				}
			}
		}
		if fd.Kind == branch.ElemSelect {
			c.options = append([]branch.Option{}, fd.Options...)
			if c.value == "" && len(c.options) > 0 && !hasOption(c.options, "") {
				c.value = c.options[0].Value
			}
		}
		if fd.Kind == branch.ElemSearch && fd.Name == "q" {
			c.value = q.Get("q")
		}
		c.selector = normSelector(c.css)
		fv.fields = append(fv.fields, c)
		v.controls = append(v.controls, c)
	}
	b := f.Submit
	sub := &control{kind: branch.ElemButton, role: "button", name: b.Name, text: trim80(b.Name), testid: b.TestID, id: b.ID,
		region: branch.RegionForm, form: idx, submit: true, css: cssOf(b.TestID, b.ID, "form > button")}
	sub.selector = normSelector(sub.css)
	fv.submit = sub
	v.controls = append(v.controls, sub)
	v.forms = append(v.forms, fv)
}

func hasOption(opts []branch.Option, value string) bool {
	for _, o := range opts {
		if o.Value == value {
			return true
		}
	}
	return false
}

// hashDOM returns the sha256 and length of the canonical document: title,
// copy, every element with its attributes and live state, the probe
// elements. It leaves the URL out, as a serialized DOM does. Fields are
// NUL-separated, so no two documents share an encoding. Every field is
// scrubbed first, as the browser scrubs the canonical DOM before hashing.
func (v *view) hashDOM(scrub func(string) string) (string, int) {
	// Generated names, labels and attributes are fixed words; only copy,
	// values, hrefs and probe elements can hold what scrubbing replaces.
	h := &hasher{scrub: scrub}
	h.raw("title", v.title, "h1", v.heading)
	for _, t := range v.text {
		h.raw("p")
		h.add(t)
	}
	for _, c := range v.controls {
		h.raw("<"+string(c.kind), c.role, c.name, c.aria, c.testid, c.id, c.field, c.css,
			strconv.FormatBool(c.checked), strconv.FormatBool(c.visible(v.menuOpen)))
		h.add(c.href, c.value)
		for _, o := range c.options {
			h.raw("option", o.Value, o.Text, strconv.FormatBool(o.Value == c.value))
		}
	}
	keys := make([]string, 0, len(v.elements))
	for k := range v.elements {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		h.raw("[", k)
		h.add(v.elements[k])
	}
	return h.sum()
}

// hashAX is the sha256 of the accessibility view: headings, copy and the
// role, name and state of every shown control, scrubbed.
func (v *view) hashAX(scrub func(string) string) string {
	h := &hasher{scrub: scrub}
	h.raw("heading", v.heading)
	for _, t := range v.text {
		h.raw("text")
		h.add(t)
	}
	for _, c := range v.controls {
		if !c.visible(v.menuOpen) {
			continue
		}
		h.raw(c.role, c.name)
		if c.kind != branch.ElemLink && c.kind != branch.ElemButton {
			h.raw("value")
			h.add(c.value)
			h.raw(strconv.FormatBool(c.checked))
		}
	}
	d, _ := h.sum()
	return d
}

// hasher collects scrubbed, NUL-terminated fields and hashes them with
// sha256.
type hasher struct {
	b     []byte
	scrub func(string) string
}

// add appends fields that may need scrubbing.
func (h *hasher) add(fields ...string) {
	for _, f := range fields {
		h.b = append(append(h.b, h.scrub(f)...), 0)
	}
}

// raw appends fixed words of the generator, which never need scrubbing.
func (h *hasher) raw(fields ...string) {
	for _, f := range fields {
		h.b = append(append(h.b, f...), 0)
	}
}

func (h *hasher) sum() (string, int) {
	d := sha256.Sum256(h.b)
	return hex.EncodeToString(d[:]), len(h.b)
}

// innerText is the page's visible text, as the dead-end detectors and
// body probes read it.
func (v *view) innerText() string {
	var parts []string
	if v.heading != "" {
		parts = append(parts, v.heading)
	}
	parts = append(parts, v.text...)
	for _, c := range v.controls {
		if !c.visible(v.menuOpen) {
			continue
		}
		switch c.kind {
		case branch.ElemLink, branch.ElemButton:
			parts = append(parts, c.name)
		case branch.ElemSelect:
			parts = append(parts, c.name)
			for _, o := range c.options {
				parts = append(parts, o.Text)
			}
		default:
			parts = append(parts, c.name)
		}
	}
	return strings.Join(parts, "\n")
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
