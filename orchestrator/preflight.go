package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/multiverse-orchestrator/multiverse/task"
)

// preflightSite checks that the start URL answers before any browser
// work: a refused connection, a DNS failure, a 5xx or a redirect loop is
// a clear error at once instead of a search that cannot start. It
// reaches the site as the branches do (host map, certificate trust). A
// run with Config.Network has no site to ask: it passes.
func (r *run) preflightSite(ctx context.Context) error {
	if r.cfg.Network != nil {
		return nil // the pages come from Config.Network: nothing asks the site
	}
	return preflightSite(ctx, r.siteClient(), r.t.StartURL, r.sc.URL(r.t.StartURL))
}

// siteClient is the HTTP client the run's own requests to the site use
// (the preflight, the committer's confirm probe): it resolves and trusts
// the site the way the browser was told to.
func (r *run) siteClient() *http.Client {
	return r.cfg.Browser.HTTPClient(r.t.Environment.IgnoreHTTPSErrors)
}

// preflightSite asks u through client; its errors show the URL as shown
// (scrubbed: a query may carry personal data).
func preflightSite(ctx context.Context, client *http.Client, u, shown string) error {
	ctx, cancel := context.WithTimeout(ctx, preflightTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return &SiteError{URL: shown, Reason: "not a request URL"}
	}
	req.Header.Set("User-Agent", task.DefaultUserAgent)
	resp, err := client.Do(req)
	if err != nil {
		var ue interface{ Unwrap() error }
		msg := err.Error()
		if errors.As(err, &ue) {
			if inner := ue.Unwrap(); inner != nil {
				msg = inner.Error()
			}
		}
		return &SiteError{URL: shown, Reason: msg}
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode >= 500 {
		return &SiteError{URL: shown, Status: resp.Status}
	}
	return nil
}

// SiteError reports a start URL where no site answers as a site should:
// nothing answers (refused, DNS, TLS, a timeout: Reason says which), or
// the site answers with a server error (Status). It matches
// ErrSiteUnreachable (exit 6). URL is as shown: scrubbed.
type SiteError struct {
	URL    string
	Reason string // why nothing answered; "" when the site answered Status
	Status string // the 5xx status the site answered, e.g. "503 Service Unavailable"
}

func (e *SiteError) Error() string {
	if e.Status != "" {
		return fmt.Sprintf("the site at %s answered %s", e.URL, e.Status)
	}
	return fmt.Sprintf("no site answers at %s (%s)", e.URL, e.Reason)
}

// Is makes every SiteError match ErrSiteUnreachable.
func (e *SiteError) Is(target error) bool { return target == ErrSiteUnreachable }
