package orchestrator_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// preferenceTopics are the boxes of a notification preferences page, the
// way account settings pages list them: one box per topic, twelve.
var preferenceTopics = []string{"Billing", "Outages", "Security advisories", "Product news", "Webinars",
	"Maintenance windows", "Invoices", "Team invitations", "Weekly digest", "Surveys", "Partner offers", "Release notes"}

// preferencesSite serves a form of twelve checkboxes whose saved page
// names the topics ticked, in page order.
func preferencesSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		for i, n := range preferenceTopics {
			fmt.Fprintf(&b, `<li><input type="checkbox" id="t%d" value="%s"> <label for="t%d">%s</label></li>`, i, n, i, n)
		}
		fmt.Fprintf(w, `<!doctype html><title>Notifications</title><main><h1>Email notifications</h1>
<p>Choose what we write to you about.</p><ul class="prefs">%s</ul><button id="save">Save preferences</button><p id="out"></p></main>
<script>document.getElementById('save').onclick = () => {
  const on = [...document.querySelectorAll('.prefs input:checked')].map(x => x.value);
  document.getElementById('out').textContent = 'Saved: ' + (on.join(', ') || 'nothing');
};</script>`, b.String())
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestTwelveBoxes: ticking several boxes of a list of twelve and saving
// is reached within the default budget: the ticks commute, so a set of
// them is one branch, not every order of it.
func TestTwelveBoxes(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	site := preferencesSite(t)
	cases := []struct {
		goal string // %s: the boxes, "A, B and C"
		pick []int
	}{
		{"Get email about %s only, then save.", []int{1, 3, 6, 7, 9, 11}},
		{"Tick %s and click Save preferences.", []int{0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11}},
	}
	for _, c := range cases {
		var want []string
		for _, i := range c.pick {
			want = append(want, preferenceTopics[i])
		}
		goal := fmt.Sprintf(c.goal, strings.Join(want[:len(want)-1], ", ")+" and "+want[len(want)-1])
		pick := c.pick
		t.Run(fmt.Sprint(len(pick)), func(t *testing.T) {
			src := fmt.Sprintf("start_url: %s/\ngoal:\n  text: %q\n  success:\n    - {name: saved, text: {selector: \"#out\", equals: %q}}\n",
				site.URL, goal, "Saved: "+strings.Join(want, ", "))
			sum, _ := reachGoal(t, src, 2, 4*time.Minute)
			t.Logf("%d boxes: %+v branches, run %s", len(pick), sum.Branches, sum.RunID)
		})
	}
}
