package patterns

import (
	"fmt"
	"html"
	"net/http"
	"sync"
)

// forms issues the wizard's form tokens. Every render of a wizard page
// issues a new one, as a server-rendered framework writes a fresh
// authenticity token into each form it renders; a step answers only a
// token it issued.
type forms struct {
	mu     sync.Mutex
	issued map[string]bool
}

// issue returns a new token.
func (f *forms) issue() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.issued == nil {
		f.issued = map[string]bool{}
	}
	t := fmt.Sprintf("ft%04d", len(f.issued)+1)
	f.issued[t] = true
	return t
}

// valid reports whether t was issued.
func (f *forms) valid(t string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.issued[t]
}

// The wizard's plans; the done page names the one chosen.
var wizardPlans = []string{"Basic", "Pro", "Team"}

const wizardBody = `<h1>Choose a plan</h1><form action="/wizard/details" method="get">
<input type="hidden" name="token" value="%s">
<label>Plan <select name="plan">%s</select></label>
<button type="submit">Next</button></form>`

const detailsBody = `<h1>Confirm your plan</h1><p id="chosen">Plan: %s</p>
<form action="/wizard/done" method="get">
<input type="hidden" name="token" value="%s"><input type="hidden" name="plan" value="%s">
<button type="submit">Confirm</button></form>`

func (s *Site) wizard(w http.ResponseWriter, r *http.Request) {
	opts := ""
	for _, p := range wizardPlans {
		opts += fmt.Sprintf(`<option>%s</option>`, p)
	}
	render(w, "Plan", fmt.Sprintf(wizardBody, s.forms.issue(), opts))
}

// wizardStep answers a wizard form: 403 for a token the site never
// issued (a form from another visit), the plan page for an unknown plan.
func (s *Site) wizardStep(w http.ResponseWriter, r *http.Request) (plan string, ok bool) {
	if !s.forms.valid(r.FormValue("token")) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, layout, "Expired", `<h1>This form has expired</h1>`)
		return "", false
	}
	plan = r.FormValue("plan")
	for _, p := range wizardPlans {
		if p == plan {
			return plan, true
		}
	}
	http.Redirect(w, r, "/wizard", http.StatusSeeOther)
	return "", false
}

func (s *Site) wizardDetails(w http.ResponseWriter, r *http.Request) {
	if plan, ok := s.wizardStep(w, r); ok {
		p := html.EscapeString(plan)
		render(w, "Confirm", fmt.Sprintf(detailsBody, p, s.forms.issue(), p))
	}
}

func (s *Site) wizardDone(w http.ResponseWriter, r *http.Request) {
	if plan, ok := s.wizardStep(w, r); ok {
		render(w, "Done", fmt.Sprintf(`<h1>Done</h1><p id="out">Finished: %s</p>`, html.EscapeString(plan)))
	}
}
