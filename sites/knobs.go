package sites

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// ErrInvalidKnobs is wrapped by every knob validation error returned by
// [Knobs.Validate], [Vendor.SetKnobs] and [NewVendor].
var ErrInvalidKnobs = errors.New("sites: invalid knobs")

// Limits enforced by [Knobs.Validate].
const (
	MaxLatency     = time.Minute // upper bound of Knobs.Latency
	MaxPriceFactor = 1000.0      // upper bound of Knobs.PriceFactor
	MaxSeatsOffset = 499         // upper bound of |Knobs.SeatsOffset|
	maxDriftLen    = 1024
)

// Knobs are the chaos controls of the demo vendor. The zero value is valid and
// means: no latency, variant A, list prices, no failures, no page scripts.
// [DefaultKnobs] adds the 100ms latency a real site has.
//
// Knobs marshal to and from JSON (the /__admin/knobs format) with snake_case
// keys; latency is a Go duration string such as "250ms" (an integer is read as
// nanoseconds). Unknown keys are rejected when decoding.
type Knobs struct {
	// Latency is waited before every response (not /__admin/). 0..MaxLatency.
	Latency time.Duration
	// ABVariant is "" or "A" (variant A), "B" (variant B) or "random" (the
	// server assigns A or B on first visit and pins it with cookie mv_ab). A
	// request's mv_ab cookie ("A" or "B") always wins.
	ABVariant string
	// PriceFactor multiplies list prices (integer cents, round half up).
	// 0 means 1.0; otherwise it must be in (0, MaxPriceFactor].
	PriceFactor float64
	// FailStatus maps a path prefix (starting with "/") to a status in
	// 400..599 answered instead of the page; the longest prefix wins.
	FailStatus map[string]int
	// LateBanner injects a cookie-consent banner 400ms after load; its
	// "Accept cookies" button removes it and sets cookie mv_consent=1, after
	// which pages no longer inject it.
	LateBanner bool
	// Modal makes the late banner a full-screen overlay that intercepts clicks
	// until accepted. Implies LateBanner.
	Modal bool
	// LazyContent makes the pricing page fetch its plan cards from /api/plans
	// after load instead of rendering them on the server.
	LazyContent bool
	// PageRandom shows a session id from Math.random, a Date.now timestamp and
	// a performance.now reading, written by an inline script.
	PageRandom bool
	// TimerRace starts two setTimeouts with Math.random delays that race to
	// write the "Tip of the day" element.
	TimerRace bool
	// Drift, when non-empty, is appended to the home page hero subtitle.
	Drift string
	// TestIDDrift renames every data-testid of the served pages with a
	// "-v2" suffix, as a redesign does: selectors by test id stop
	// matching while the page works as before.
	TestIDDrift bool
	// RedirectLoop makes /pricing redirect (302) to /pricing-loop and back.
	RedirectLoop bool
	// HangPaths are path prefixes (starting with "/") whose requests never
	// answer until the request context ends.
	HangPaths []string
	// RequireLogin puts the checkout, the review page and orders (placing,
	// viewing, cancelling) behind a login (the demo account, see
	// Vendor.Login): a visitor without a session is sent to /login?next=... .
	RequireLogin bool
	// SessionRequests ends a session after this many requests behind the
	// login (0: sessions never end), as sites expire idle sessions.
	SessionRequests int
	// SeatsOffset, when non-zero, is the "wrong quantity reached the site"
	// bug: an order placed through the form or the API is recorded with
	// its requested seats plus SeatsOffset (at least 1) and priced for the
	// recorded seats, while the request is still checked against its own
	// total_cents and its payload hash stays that of the request as
	// submitted (a retry with the same key replays the recorded order).
	// -MaxSeatsOffset..MaxSeatsOffset.
	SeatsOffset int
}

// DefaultKnobs returns the knobs of a well-behaved vendor: 100ms latency,
// everything else off.
func DefaultKnobs() Knobs {
	return Knobs{Latency: 100 * time.Millisecond}
}

// Validate reports the first invalid knob as an error wrapping
// [ErrInvalidKnobs]. It does not modify k.
func (k Knobs) Validate() error {
	if k.Latency < 0 || k.Latency > MaxLatency {
		return fmt.Errorf("%w: latency %s is outside 0s..%s", ErrInvalidKnobs, k.Latency, MaxLatency)
	}
	switch k.ABVariant {
	case "", "A", "B", "random":
	default:
		return fmt.Errorf("%w: ab_variant %q is not one of \"\", \"A\", \"B\", \"random\"", ErrInvalidKnobs, k.ABVariant)
	}
	if math.IsNaN(k.PriceFactor) || k.PriceFactor < 0 || k.PriceFactor > MaxPriceFactor {
		return fmt.Errorf("%w: price_factor %v is outside 0..%v", ErrInvalidKnobs, k.PriceFactor, MaxPriceFactor)
	}
	for _, p := range slices.Sorted(maps.Keys(k.FailStatus)) {
		if !strings.HasPrefix(p, "/") {
			return fmt.Errorf("%w: fail_status prefix %q must start with \"/\"", ErrInvalidKnobs, p)
		}
		if s := k.FailStatus[p]; s < 400 || s > 599 {
			return fmt.Errorf("%w: fail_status[%q] = %d is not an HTTP error status (400..599)", ErrInvalidKnobs, p, s)
		}
	}
	for i, p := range k.HangPaths {
		if !strings.HasPrefix(p, "/") {
			return fmt.Errorf("%w: hang_paths[%d] %q must start with \"/\"", ErrInvalidKnobs, i, p)
		}
	}
	if k.SessionRequests < 0 {
		return fmt.Errorf("%w: session_requests %d is negative", ErrInvalidKnobs, k.SessionRequests)
	}
	if k.SeatsOffset < -MaxSeatsOffset || k.SeatsOffset > MaxSeatsOffset {
		return fmt.Errorf("%w: seats_offset %d is outside -%d..%d", ErrInvalidKnobs, k.SeatsOffset, MaxSeatsOffset, MaxSeatsOffset)
	}
	if len(k.Drift) > maxDriftLen {
		return fmt.Errorf("%w: drift is %d bytes, more than %d", ErrInvalidKnobs, len(k.Drift), maxDriftLen)
	}
	return nil
}

// clone returns a deep copy of k (the map and slice are not shared).
func (k Knobs) clone() Knobs {
	c := k
	if k.FailStatus != nil {
		c.FailStatus = maps.Clone(k.FailStatus)
	}
	if k.HangPaths != nil {
		c.HangPaths = slices.Clone(k.HangPaths)
	}
	return c
}

// priceFactor returns the effective price multiplier (0 means 1).
func (k Knobs) priceFactor() float64 {
	if k.PriceFactor == 0 {
		return 1
	}
	return k.PriceFactor
}

// recordedSeats returns the seats an order requesting requested seats is
// recorded with: requested plus SeatsOffset, at least minSeats.
func (k Knobs) recordedSeats(requested int) int {
	return max(minSeats, requested+k.SeatsOffset)
}

// banner reports whether pages carry the late consent banner script.
func (k Knobs) banner() bool { return k.LateBanner || k.Modal }

// failStatus returns the status of the longest FailStatus prefix of path.
func (k Knobs) failStatus(path string) (int, bool) {
	best, status := -1, 0
	for p, s := range k.FailStatus {
		if strings.HasPrefix(path, p) && len(p) > best {
			best, status = len(p), s
		}
	}
	return status, best >= 0
}

// hangs reports whether path matches one of HangPaths.
func (k Knobs) hangs(path string) bool {
	for _, p := range k.HangPaths {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// knobsWire is the JSON form of Knobs.
type knobsWire struct {
	Latency      json.RawMessage `json:"latency"`
	ABVariant    string          `json:"ab_variant"`
	PriceFactor  float64         `json:"price_factor"`
	FailStatus   map[string]int  `json:"fail_status"`
	LateBanner   bool            `json:"late_banner"`
	Modal        bool            `json:"modal"`
	LazyContent  bool            `json:"lazy_content"`
	PageRandom   bool            `json:"page_random"`
	TimerRace    bool            `json:"timer_race"`
	Drift        string          `json:"drift"`
	TestIDDrift  bool            `json:"testid_drift,omitempty"`
	RedirectLoop bool            `json:"redirect_loop"`
	HangPaths    []string        `json:"hang_paths"`
	RequireLogin bool            `json:"require_login,omitempty"`
	Sessions     int             `json:"session_requests,omitempty"`
	SeatsOffset  int             `json:"seats_offset,omitempty"`
}

// MarshalJSON encodes k in the /__admin/knobs format. The output is
// deterministic: fail_status keys are sorted, nil collections become {} and [].
func (k Knobs) MarshalJSON() ([]byte, error) {
	lat, err := json.Marshal(k.Latency.String())
	if err != nil {
		return nil, fmt.Errorf("sites: encode latency: %w", err)
	}
	w := knobsWire{
		Latency: lat, ABVariant: k.ABVariant, PriceFactor: k.PriceFactor,
		FailStatus: k.FailStatus, LateBanner: k.LateBanner, Modal: k.Modal,
		LazyContent: k.LazyContent, PageRandom: k.PageRandom, TimerRace: k.TimerRace,
		Drift: k.Drift, RedirectLoop: k.RedirectLoop, HangPaths: k.HangPaths,
		RequireLogin: k.RequireLogin, Sessions: k.SessionRequests, TestIDDrift: k.TestIDDrift,
		SeatsOffset: k.SeatsOffset,
	}
	if w.FailStatus == nil {
		w.FailStatus = map[string]int{}
	}
	if w.HangPaths == nil {
		w.HangPaths = []string{}
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes the /__admin/knobs format. Missing keys take their
// zero value (the document replaces all knobs); unknown keys, trailing data
// and malformed latencies are errors. It does not validate: call Validate.
func (k *Knobs) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var w knobsWire
	if err := dec.Decode(&w); err != nil {
		return fmt.Errorf("sites: decode knobs: %w", err)
	}
	if dec.More() {
		return errors.New("sites: decode knobs: trailing data after the JSON object")
	}
	lat, err := decodeLatency(w.Latency)
	if err != nil {
		return err
	}
	*k = Knobs{
		Latency: lat, ABVariant: w.ABVariant, PriceFactor: w.PriceFactor,
		FailStatus: w.FailStatus, LateBanner: w.LateBanner, Modal: w.Modal,
		LazyContent: w.LazyContent, PageRandom: w.PageRandom, TimerRace: w.TimerRace,
		Drift: w.Drift, RedirectLoop: w.RedirectLoop, HangPaths: w.HangPaths,
		RequireLogin: w.RequireLogin, SessionRequests: w.Sessions, TestIDDrift: w.TestIDDrift,
		SeatsOffset: w.SeatsOffset,
	}
	return nil
}

// decodeLatency reads a duration string ("250ms") or integer nanoseconds.
func decodeLatency(raw json.RawMessage) (time.Duration, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, fmt.Errorf("sites: decode knobs: latency: %w", err)
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("sites: decode knobs: latency: %w", err)
		}
		return d, nil
	}
	var n int64
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, fmt.Errorf("sites: decode knobs: latency must be a duration string like \"250ms\" or integer nanoseconds: %w", err)
	}
	return time.Duration(n), nil
}
