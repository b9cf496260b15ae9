package ledger

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Evidence is what an aborted or failed row records (as its confirmation)
// to show that its side effect did not happen: the site's refusal of the
// guarded request, or that nothing was sent.
type Evidence struct {
	Refused *Refusal `json:"refused,omitempty"`
	NotSent bool     `json:"not_sent,omitempty"`
}

// Refusal is the site's refusal of the commit: a guarded request it
// answered with a 4xx, or a page that said refused
// (commit.confirm.refused, Notice set), whatever its status. Method, URL
// and Status are empty when the transcript holds no commit request.
type Refusal struct {
	Method string `json:"method"`
	URL    string `json:"url"`
	Status int    `json:"status"`
	// Notice is the page's message (scrubbed) when the page said refused.
	Notice string `json:"notice,omitempty"`
}

// Submission names the request that made a commit (recorded in a
// committed row's confirmation as "request").
type Submission struct {
	Method string `json:"method"`
	URL    string `json:"url"`
}

// CheckOutcome audits an aborted or failed row against the transcript of
// its commit action (the submit_transcript artifact; nil when the row has
// none because the action never ran). A row whose action ran must name
// the site's refusal, which the transcript holds, with no request to the
// same method and URL accepted; or say that nothing was sent, with no
// state-changing request accepted. A row that fails may stand for an
// order the site holds: resolve it with the confirm probe before any
// retry. Other rows pass.
func CheckOutcome(e Entry, transcript []byte) error {
	if e.State != StateAborted && e.State != StateFailed || transcript == nil {
		return nil
	}
	var recs []branch.NetRecord
	if err := json.Unmarshal(transcript, &recs); err != nil {
		return fmt.Errorf("the submit transcript does not decode: %v", err)
	}
	var ev Evidence
	if len(e.Confirmation) > 0 {
		json.Unmarshal(e.Confirmation, &ev)
	}
	accepted := func(keep func(branch.NetRecord) bool) *branch.NetRecord {
		for i, n := range recs {
			if n.Status >= 200 && n.Status < 400 && keep(n) {
				return &recs[i]
			}
		}
		return nil
	}
	switch {
	case ev.Refused != nil && ev.Refused.Notice != "":
		// The page said refused: its answer may well be a 200. It must be
		// on record when the row names it.
		r := *ev.Refused
		found := r.Method == ""
		for _, n := range recs {
			found = found || n.Method == r.Method && n.URL == r.URL && n.Status == r.Status
		}
		if !found {
			return fmt.Errorf("%s, refused by the page after %d to %s %s, but the submit transcript holds no such answer", e.State, r.Status, r.Method, r.URL)
		}
	case ev.Refused != nil:
		r := *ev.Refused
		found := false
		for _, n := range recs {
			found = found || n.Method == r.Method && n.URL == r.URL && n.Status == r.Status
		}
		if !found {
			return fmt.Errorf("%s, refused by %d to %s %s, but the submit transcript holds no such answer", e.State, r.Status, r.Method, r.URL)
		}
		if n := accepted(func(n branch.NetRecord) bool { return n.Method == r.Method && n.URL == r.URL }); n != nil {
			return fmt.Errorf("%s, but the site accepted %s %s (%d): it may hold the order", e.State, n.Method, n.URL, n.Status)
		}
	case ev.NotSent:
		if n := accepted(changing); n != nil {
			return fmt.Errorf("%s as not sent, but the site accepted %s %s (%d): it may hold the order", e.State, n.Method, n.URL, n.Status)
		}
	default:
		if n := accepted(changing); n != nil {
			return fmt.Errorf("%s after its commit action ran, but the site accepted %s %s (%d): it may hold the order (its confirm probe decides)", e.State, n.Method, n.URL, n.Status)
		}
		return fmt.Errorf("%s after its commit action ran, without a refusal by the site on record: it may hold the order (its confirm probe decides)", e.State)
	}
	return nil
}

// changing reports whether a request may change state at the site.
func changing(n branch.NetRecord) bool {
	return n.Method != http.MethodGet && n.Method != http.MethodHead
}

// Round is one attempt's record of a ledger row: the confirmation (or
// evidence) it was finalized with and its submit transcript (nil when
// none was kept).
type Round struct {
	Confirmation json.RawMessage
	Transcript   []byte
}

// CheckSubmissions audits a row's rounds (its finalizations, the current
// one and those kept in its history before a reopen) for more than one
// submission the site accepted: a 2xx or 3xx answer to the commit
// request, which the committed round's confirmation names ("request"),
// and otherwise any state-changing document request (a form
// submission). A round the page refused (a refusal with a notice) counts
// none: its 200 was the refusal. More than one accepted submission means
// the site may hold the commit more than once.
func CheckSubmissions(rounds []Round) error {
	var req *Submission
	for _, r := range rounds {
		var c struct {
			Request *Submission `json:"request"`
		}
		if json.Unmarshal(r.Confirmation, &c) == nil && c.Request != nil {
			req = c.Request
		}
	}
	var accepted []string
	for i, r := range rounds {
		if r.Transcript == nil {
			continue
		}
		var ev Evidence
		if len(r.Confirmation) > 0 && json.Unmarshal(r.Confirmation, &ev) == nil && ev.Refused != nil && ev.Refused.Notice != "" {
			continue
		}
		var recs []branch.NetRecord
		if json.Unmarshal(r.Transcript, &recs) != nil {
			continue // the evidence check names a transcript that does not decode
		}
		for _, n := range recs {
			if n.Status < 200 || n.Status >= 400 || n.Blocked {
				continue
			}
			submission := req != nil && n.Method == req.Method && n.URL == req.URL ||
				req == nil && changing(n) && (n.Type == "document" || n.Type == "")
			if submission {
				accepted = append(accepted, fmt.Sprintf("%s %s answered %d (round %d)", n.Method, n.URL, n.Status, i+1))
			}
		}
	}
	if len(accepted) > 1 {
		return fmt.Errorf("%d accepted submissions: %s: the site may hold the commit %d times", len(accepted), strings.Join(accepted, ", "), len(accepted))
	}
	return nil
}
