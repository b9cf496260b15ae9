package orchestrator

import (
	"context"
	"fmt"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/planner"
)

// siteFailure reports whether a branch failed because the site did not
// answer as a site should: a network error, a 5xx, a navigation that
// never finished.
func siteFailure(o planner.Outcome) bool {
	if o.OK {
		return false
	}
	switch o.Code {
	case branch.CodePageError, branch.CodeHTTPError, branch.CodeNavigationTimeout:
		return true
	}
	return false
}

// siteLost asks the start URL again once branches failed to reach the
// site (all of the last wave, or some branches when the search ended
// without a boundary); why says which. It returns an ErrSiteUnreachable
// error, also recorded as an event, when the site no longer answers, and
// nil while it does: then the failures were the pages' own and the
// search's verdict stands.
func (r *run) siteLost(ctx context.Context, why string) error {
	err := r.preflightSite(ctx)
	if err == nil {
		return nil
	}
	err = fmt.Errorf("%w; it stopped answering during exploration (%s)", err, why)
	r.rec.add(time.Time{}, 0, eventlog.KindError, "", map[string]any{"where": "explore", "error": r.sc.Text(err.Error())})
	return err
}

// waveSiteFailures counts the branches of a wave that failed to reach
// the site.
func waveSiteFailures(wave []*planner.Node, got map[string]planner.Outcome) int {
	n := 0
	for _, b := range wave {
		if siteFailure(got[b.ID]) {
			n++
		}
	}
	return n
}
