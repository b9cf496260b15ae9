package bundle

import "github.com/multiverse-orchestrator/multiverse/branch"

// Step statuses.
const (
	StatusOK     = "ok"
	StatusHealed = "healed"
	StatusFailed = "failed"
)

// Step is steps/NNNN.json: what one action did and what the page looked
// like afterwards. DOMHash, AXHash and NetDigest are strict (a replay must
// reproduce them); ScreenshotHash is advisory.
type Step struct {
	// Index is the 1-based position of the step; its file is StepPath(Index).
	Index int `json:"index"`
	// Action is the action executed, equal to Manifest.Plan[Index-1].
	Action branch.Action `json:"action"`
	// Status is StatusOK, StatusHealed or StatusFailed.
	Status string `json:"status"`
	// Code is the error code of a failed or healed step.
	Code branch.Code `json:"code,omitempty"`
	// Strategy is the selector strategy that resolved the target.
	Strategy string `json:"strategy,omitempty"`
	// VirtualTimeMS is the pinned page clock after the step, in ms since
	// the Unix epoch (branch.Observation.VirtualTime).
	VirtualTimeMS int64  `json:"virtual_time_ms"`
	URL           string `json:"url"`
	Title         string `json:"title"`
	// DOMHash and AXHash are the hex sha256 of the scrubbed canonical DOM
	// and accessibility text; when DOMPath(Index) / AXPath(Index) is in the
	// bundle, it is exactly that text.
	DOMHash string `json:"dom_hash"`
	AXHash  string `json:"ax_hash"`
	// NetDigest is the digest of the step's network records.
	NetDigest string `json:"net_digest"`
	// ScreenshotHash is the advisory digest of the screenshot
	// (ScreenshotPath(Index) when stored). It is not checked.
	ScreenshotHash string `json:"screenshot_hash,omitempty"`
	// Predicates holds the truth of every named goal predicate.
	Predicates map[string]bool `json:"predicates,omitempty"`
	// Via is how a set action put its value in ("keys End ArrowLeft×3",
	// "picker next×2 day 11"): a strict replay must do the same.
	Via string `json:"via,omitempty"`
	// Console is what the page said on its console (errors, warnings)
	// and the exceptions it did not catch during the step, scrubbed, at
	// most branch.ConsoleLimit. Informative: replay never compares it.
	Console []branch.ConsoleEntry `json:"console,omitempty"`
	// Live is the step's live channel traffic (WebSocket, EventSource),
	// in the order the page saw it (branch.LiveFrame): a strict replay
	// feeds the frames that reached the page back to it at the points
	// they were taken, and the step's network digest covers every entry.
	Live []branch.LiveFrame `json:"live,omitempty"`
	// Advisory says the step's hashes (DOMHash, AXHash, NetDigest) were
	// observed in another browser context than the one whose requests
	// the bundle holds for it: an ancestor branch's, before this branch
	// replayed the step in a context of its own. On a site whose pages
	// differ from load to load (a fresh form token in each) they differ;
	// a strict replay reports that as a note, not as a divergence (a live
	// replay compares them as any step's). The branch's own steps are
	// never advisory.
	Advisory bool `json:"advisory,omitempty"`
}
