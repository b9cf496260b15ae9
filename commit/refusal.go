package commit

import (
	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
)

// refusalOf is the site's refusal of the commit request n, with the
// page's notice when the page said refused.
func refusalOf(n branch.NetRecord, notice string) *ledger.Refusal {
	return &ledger.Refusal{Method: n.Method, URL: n.URL, Status: n.Status, Notice: notice}
}
