package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/internal/sitetest"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/sites"
)

// compensation is what the short checkout task says about checking and
// undoing its order: the order page must show the 10 seats asked for,
// and the site's undo is the order page's "Cancel order".
const compensation = `  postcheck:
    - {name: seats_recorded, text: {selector: '[data-testid=order-seats]', matches: '^\s*10\b'}}
  compensate:
    navigate: '/orders/{order_id}'
    action: {click: {testid: cancel-order}}
    confirm: {visible: '[data-testid=order-cancelled]'}
    idempotency: {form_field: 'input[name=client_reference]'}
`

// compensatingTask writes the short checkout task with compensation, and
// the extra post-checks given, into a file of its own.
func compensatingTask(t *testing.T, extra ...string) string {
	t.Helper()
	src, err := os.ReadFile(smallTask(t))
	if err != nil {
		t.Fatal(err)
	}
	comp := compensation
	for _, e := range extra {
		comp = strings.Replace(comp, "  compensate:\n", "    - "+e+"\n  compensate:\n", 1)
	}
	s := strings.Replace(string(src), "  confirm:\n", comp+"  confirm:\n", 1)
	path := filepath.Join(t.TempDir(), "team-checkout.yaml")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type cliSummary struct {
	Summary  orchestrator.Summary `json:"summary"`
	ExitCode int                  `json:"exit_code"`
}

func runJSON(t *testing.T, out string) cliSummary {
	t.Helper()
	var res cliSummary
	i := strings.Index(out, "{")
	if i < 0 || json.NewDecoder(strings.NewReader(out[i:])).Decode(&res) != nil {
		t.Fatalf("no JSON summary in:\n%s", out)
	}
	return res
}

// TestWrongQuantityCompensated: the site records one seat more than the
// order asked for (a knob). The committer's post-check reads the order
// page, finds 11 seats, and cancels the order at once through
// commit.compensate: exit 12, one order placed and one cancelled on the
// site, the ledger row compensated and verified. Compensating it again
// sends nothing.
func TestWrongQuantityCompensated(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	k := sites.Knobs{SeatsOffset: 1}
	s := sitetest.Start(t, k)
	dir := t.TempDir()
	taskFile := compensatingTask(t)
	code, out := cli(t, nil, "run", taskFile, "--start-url", s.URL()+"/checkout?plan=team&billing=monthly",
		"--data-dir", dir, "--no-screenshots", "--quiet", "--json")
	res := runJSON(t, out)
	c := res.Summary.Commit
	if code != orchestrator.ExitCompensated || res.Summary.Status != "compensated" || c == nil || c.State != "compensated" ||
		!slices.Equal(c.PostcheckFailed, []string{"seats_recorded"}) || c.CompensationKey == "" {
		t.Fatalf("exit %d, summary %+v; want exit 12, a compensated row, seats_recorded failed\n%s", code, c, out)
	}
	orders := s.Vendor.Orders()
	if len(orders) != 1 || !orders[0].Cancelled || orders[0].Seats != 11 || s.Vendor.Cancellations() != 1 {
		t.Fatalf("site orders %+v, cancellations %d; want one order of 11 seats, cancelled once", orders, s.Vendor.Cancellations())
	}
	if code, out := cli(t, nil, "ledger", "verify", "--data-dir", dir); code != 0 {
		t.Fatalf("ledger verify: exit %d\n%s", code, out)
	}

	code, out = cli(t, nil, "ledger", "compensate", c.EntryID, "--data-dir", dir, "--start-url", s.URL()+"/")
	if code != 0 || !strings.Contains(out, "undone earlier") || !strings.Contains(out, "nothing was sent") {
		t.Fatalf("compensating again: exit %d\n%s", code, out)
	}
	if n := s.Vendor.Cancellations(); n != 1 || len(s.Vendor.Orders()) != 1 {
		t.Fatalf("compensating again reached the site: %d cancellations", n)
	}
	if code, out := cli(t, nil, "ledger", "show", c.EntryID, "--data-dir", dir); code != 0 || !strings.Contains(out, "compensated") {
		t.Fatalf("ledger show: exit %d\n%s", code, out)
	}
}

// TestLedgerCompensate: a correct order stands: its post-check holds, and
// one whose evaluation fails cannot tell the order is wrong, so it undoes
// nothing. `ledger compensate ENTRY` then undoes the order on request
// through the committer, with the task the run ran: one cancellation, the
// row compensated, the ledger verified.
func TestLedgerCompensate(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	s := sitetest.Start(t, sites.Knobs{})
	dir := t.TempDir()
	taskFile := compensatingTask(t, `{name: page_answers, js: "(() => { throw new Error('no answer') })()"}`)
	code, out := cli(t, nil, "run", taskFile, "--start-url", s.URL()+"/checkout?plan=team&billing=monthly",
		"--data-dir", dir, "--no-screenshots", "--quiet", "--json")
	res := runJSON(t, out)
	if code != 0 || res.Summary.Status != "committed" || s.Vendor.Cancellations() != 0 {
		t.Fatalf("run: exit %d, status %s, %d cancellations\n%s", code, res.Summary.Status, s.Vendor.Cancellations(), out)
	}
	_, out = cli(t, nil, "events", res.Summary.RunID, "--data-dir", dir, "--json")
	if !strings.Contains(out, `"held":["seats_recorded"]`) || !strings.Contains(out, `"unknown":["page_answers"]`) {
		t.Fatalf("the postcheck event does not say which check held and which could not tell:\n%s", grepLines(out, "postcheck"))
	}
	entry := res.Summary.Commit.EntryID
	code, out = cli(t, nil, "ledger", "compensate", entry[:12], "--data-dir", dir, "--reason", "ordered by mistake", "--start-url", s.URL()+"/")
	if code != 0 || !strings.Contains(out, "the site confirmed") {
		t.Fatalf("ledger compensate: exit %d\n%s", code, out)
	}
	orders := s.Vendor.Orders()
	if len(orders) != 1 || !orders[0].Cancelled || s.Vendor.Cancellations() != 1 {
		t.Fatalf("site orders %+v; want the one order cancelled", orders)
	}
	code, out = cli(t, nil, "ledger", "show", entry, "--data-dir", dir, "--json")
	if code != 0 || !strings.Contains(out, `"compensated"`) || !strings.Contains(out, "ordered by mistake") {
		t.Fatalf("ledger show: exit %d\n%s", code, out)
	}
	if code, out := cli(t, nil, "ledger", "verify", "--data-dir", dir); code != 0 {
		t.Fatalf("ledger verify: exit %d\n%s", code, out)
	}
	// The undo's evidence is audited as the commit's is.
	var show struct {
		Entry struct {
			Compensation struct {
				Artifacts map[string]string `json:"artifacts"`
			} `json:"compensation"`
		} `json:"entry"`
	}
	_, out = cli(t, nil, "ledger", "show", entry, "--data-dir", dir, "--json")
	if err := json.NewDecoder(strings.NewReader(out[strings.Index(out, "{"):])).Decode(&show); err != nil {
		t.Fatal(err)
	}
	d := show.Entry.Compensation.Artifacts["compensation_dom"]
	if len(d) < 3 {
		t.Fatalf("the undo kept no DOM: %v", show.Entry.Compensation.Artifacts)
	}
	if err := os.Remove(filepath.Join(dir, "artifacts", "sha256", d[:2], d)); err != nil {
		t.Fatal(err)
	}
	if code, out := cli(t, nil, "ledger", "verify", "--data-dir", dir); code != orchestrator.ExitVerify || !strings.Contains(out, "compensation") {
		t.Fatalf("ledger verify with the undo's DOM gone: exit %d\n%s", code, out)
	}
}

// grepLines keeps the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
