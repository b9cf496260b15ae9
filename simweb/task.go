package simweb

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/job"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// Budgets of generated tasks.
const (
	TaskStepsPerBranch = 14
	TaskTotalBranches  = 150
	TaskCostBudget     = 400
)

// Input match patterns of generated tasks: general enough for every
// wording the generator uses, narrow enough that "Billing country" is not
// a billing field.
const (
	matchSeats   = `(?i)(seat|licen[cs]e|users?\b|quantity)`
	matchBilling = `(?i)^(billing|billing[ _-]?(period|cycle|frequency)|interval)$`
	matchCountry = `(?i)country`
	matchEmail   = `(?i)e-?mail`
)

// scrubKey is the fixed scrubbing key of simulated runs: tokens stay equal
// across evaluations, so results are byte-for-byte reproducible.
var scrubKey = func() []byte {
	k := sha256.Sum256([]byte("multiverse/simweb/scrub-key"))
	return k[:]
}()

// Task returns the site's task, parsed and validated by task.Parse: buy
// the wanted plan for the wanted seats, billing and country; milestones on
// the hub, the checkout of the wanted plan and the review page; success
// predicates on the review page's fields; the review page as the commit
// boundary, with "Place order" (or the site's wording) as the commit
// action and POST to the orders endpoint guarded. The search strategy is
// the default one.
func (s *Site) Task() (*task.Task, error) {
	return task.Parse(s.taskFile(), s.TaskYAML(""))
}

// TaskFor is Task with the search strategy set; task.Parse's error names
// a strategy it does not know.
func (s *Site) TaskFor(strategy string) (*task.Task, error) {
	return task.Parse(s.taskFile(), s.TaskYAML(strategy))
}

func (s *Site) taskFile() string { return fmt.Sprintf("sim-%d.yaml", s.Seed) }

// q quotes a YAML scalar.
func q(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// GoalText is the goal in words.
func (s *Site) GoalText() string {
	w := s.Want
	return fmt.Sprintf("Buy the %s plan for %d seats with %s billing for a company in %s and keep the invoice.",
		w.Plan, w.Seats, w.BillingWord, w.Country)
}

// TaskYAML renders the site's task file; strategy "" leaves the search
// strategy to the default.
func (s *Site) TaskYAML(strategy string) []byte {
	w := s.Want
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	review := regexp.QuoteMeta(s.Review) + `(\?|$)`
	p("version: 1")
	p("name: %s", q(fmt.Sprintf("sim-%d-buy-%s", s.Seed, w.PlanID)))
	p("description: %s", q(fmt.Sprintf("Simulated %s site (seed %d): buy the %s plan.", s.Vendor, s.Seed, w.Plan)))
	p("start_url: %s", q(s.StartURL()))
	p("seed: %d", uint64(s.Seed))
	p("goal:")
	p("  text: %s", q(s.GoalText()))
	p("  milestones:")
	p("    - {name: hub_reached, url_matches: %s}", q(regexp.QuoteMeta(s.Hub)))
	p("    - {name: checkout_reached, url_matches: %s}", q(regexp.QuoteMeta(s.Checkout)+`\?(.*&)?plan=`+regexp.QuoteMeta(w.PlanID)+`(&|$)`))
	if s.Details != "" {
		p("    - {name: details_reached, url_matches: %s}", q(regexp.QuoteMeta(s.Details)+`\?(.*&)?plan=`+regexp.QuoteMeta(w.PlanID)+`(&|$)`))
	}
	p("    - {name: review_reached, url_matches: %s}", q(review))
	p("  success:")
	p("    - {name: plan_matches, text: {selector: '[data-field=plan]', equals: %s}}", q(w.Plan))
	p("    - {name: seats_match, text: {selector: '[data-field=seats]', equals: %s}}", q(fmt.Sprint(w.Seats)))
	p("    - {name: billing_matches, text: {selector: '[data-field=billing]', equals: %s}}", q(w.Billing))
	p("    - {name: country_matches, text: {selector: '[data-field=country]', equals: %s}}", q(w.Country))
	p("inputs:")
	p("  seats: {value: %s, match: %s}", q(fmt.Sprint(w.Seats)), q(matchSeats))
	p("  billing: {value: %s, match: %s}", q(w.BillingInput), q(matchBilling))
	p("  country: {value: %s, match: %s}", q(w.CountryInput), q(matchCountry))
	p("  email: {value: %s, match: %s}", q(w.Email), q(matchEmail))
	p("budgets:")
	p("  wall_clock: 3m")
	p("  branch_wall_clock: 60s")
	p("  steps_per_branch: %d", TaskStepsPerBranch)
	p("  total_branches: %d", TaskTotalBranches)
	p("  cost: %d", TaskCostBudget)
	p("prices:")
	for _, k := range slices.Sorted(maps.Keys(s.Prices)) {
		p("  %s: %g", k, s.Prices[k])
	}
	p("planner:")
	p("  profiles: [purchase]")
	p("search:")
	if strategy != "" {
		p("  strategy: %s", q(strategy))
	}
	p("  workers: 4")
	p("commit:")
	p("  boundary: {url_matches: %s}", q(review))
	p("  site: %s", q(fmt.Sprintf("sim-%d", s.Seed)))
	p("  flow: %s", q("buy-"+w.PlanID))
	p("  intent:")
	for _, f := range []string{"plan", "seats", "billing", "country"} {
		p("    %s: '[data-field=%s]'", f, f)
	}
	p("    total: {selector: '[data-field=total]', attr: data-amount}")
	p("    currency: {selector: '[data-field=total]', attr: data-currency}")
	p("  action: {click: {role: button, name: %s}}", q(s.CommitLabel))
	p("  idempotency: {form_field: '#client_reference'}")
	p("  guard:")
	p("    - {method: POST, url: %s}", q(regexp.QuoteMeta(s.Orders)+"$"))
	p("  confirm:")
	p("    success: {url_matches: %s}", q(regexp.QuoteMeta(s.Orders)+"/ORD-"))
	p("    token: '[data-testid=order-id]'")
	return []byte(b.String())
}

// Spec returns the job spec of the site's task, as the orchestrator
// builds it, with the fixed scrubbing key of simulated runs.
func (s *Site) Spec() (*job.Spec, error) {
	t, err := s.Task()
	if err != nil {
		return nil, err
	}
	return SpecOf(t), nil
}

// SpecOf builds the job spec of a task the way the orchestrator does,
// with the fixed scrubbing key of simulated runs.
func SpecOf(t *task.Task) *job.Spec {
	s := job.NewSpec(t)
	s.ScrubKey = scrubKey
	return s
}
