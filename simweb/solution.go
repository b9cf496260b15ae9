package simweb

import (
	"fmt"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Solution returns a plan that takes the site from its start page to the
// review page with every success predicate of its task holding: the first
// route to the hub (in the order nav, footer, menu, product, search), the
// wanted plan, the checkout fields the task's inputs fill, and the
// submits. Targets are built the way the browser reports them. It fails
// only if the site's task does not parse or the site breaks its own
// structure.
func (s *Site) Solution() (branch.Plan, error) {
	spec, err := s.Spec()
	if err != nil {
		return nil, err
	}
	ss := &session{site: s, spec: spec, blocked: map[string]int{}}
	var plan branch.Plan
	do := func(a branch.Action) error {
		ss.step++
		if out := ss.do(a); out.code != "" {
			return fmt.Errorf("simweb: site %d: solution step %d (%s): %s: %s", s.Seed, len(plan)+1, a.Describe(), out.code, out.msg)
		}
		plan = append(plan, a)
		return nil
	}
	click := func(testid string) error {
		for _, c := range ss.v.controls {
			if c.testid == testid && c.visible(ss.v.menuOpen) {
				t := targetOf(c)
				return do(branch.Action{Kind: branch.KindClick, Target: &t, Label: "click " + string(c.kind) + " " + fmt.Sprintf("%q", c.name)})
			}
		}
		return fmt.Errorf("simweb: site %d: no visible element %q on %s", s.Seed, testid, ss.v.url)
	}
	if err := do(branch.Action{Kind: branch.KindNavigate, URL: s.StartURL(), Label: "open the start page"}); err != nil {
		return nil, err
	}
	steps := map[string][]func() error{
		RouteNav:     {func() error { return click("nav-pricing") }},
		RouteFooter:  {func() error { return click("footer-pricing") }},
		RouteMenu:    {func() error { return click("menu-button") }, func() error { return click("menu-pricing") }},
		RouteProduct: {func() error { return click("nav-product") }, func() error { return click("see-pricing") }},
		RouteSearch: {func() error {
			for _, c := range ss.v.controls {
				if c.kind == branch.ElemSearch {
					t := targetOf(c)
					return do(branch.Action{Kind: branch.KindType, Target: &t, Value: "pricing", Label: `type "pricing" into search`})
				}
			}
			return fmt.Errorf("simweb: site %d: no search field", s.Seed)
		}, func() error { return click("search-submit") }, func() error { return click("search-result-pricing") }},
	}
	route := ""
	for _, r := range []string{RouteNav, RouteFooter, RouteMenu, RouteProduct, RouteSearch} {
		for _, have := range s.Routes {
			if have == r && route == "" {
				route = r
			}
		}
	}
	for _, f := range steps[route] {
		if err := f(); err != nil {
			return nil, err
		}
	}
	if err := click("plan-" + s.Want.PlanID + "-cta"); err != nil {
		return nil, err
	}
	for range 2 {
		if ss.v.page.Kind != KindCheckout && ss.v.page.Kind != KindDetails {
			break
		}
		f := ss.v.forms[0]
		for _, c := range f.fields {
			if c.hidden {
				continue
			}
			t := targetOf(c)
			var a branch.Action
			switch c.role2 {
			case RoleSeats:
				a = branch.Action{Kind: branch.KindType, Target: &t, Input: "seats"}
			case RoleEmail:
				a = branch.Action{Kind: branch.KindType, Target: &t, Input: "email"}
			case RoleBilling:
				a = branch.Action{Kind: branch.KindSelect, Target: &t, Value: optionValue(s.BillingOptions, s.Want.Billing)}
			case RoleCountry:
				a = branch.Action{Kind: branch.KindSelect, Target: &t, Value: optionValue(s.CountryOptions, s.Want.Country)}
			default:
				continue
			}
			if a.Kind == branch.KindSelect && c.value == a.Value {
				continue
			}
			if err := do(a); err != nil {
				return nil, err
			}
		}
		if err := click(f.submit.testid); err != nil {
			return nil, err
		}
	}
	if ss.v.page.Kind != KindReview {
		return nil, fmt.Errorf("simweb: site %d: the solution ends on %s, not the review page", s.Seed, ss.v.url)
	}
	return plan, nil
}

func optionValue(opts []branch.Option, text string) string {
	for _, o := range opts {
		if o.Text == text {
			return o.Value
		}
	}
	return text
}

// targetOf is the target the browser reports for a control.
func targetOf(c *control) branch.Target {
	t := branch.Target{TestID: c.testid, AriaLabel: c.aria, Role: c.role, Name: c.name, ID: c.id, Field: c.field, CSS: c.css, Near: c.near}
	if c.kind == branch.ElemLink || c.kind == branch.ElemButton {
		t.Text = c.text
	}
	return t
}
