package browser

import (
	"context"
	"fmt"
	"strings"
)

// SelectorCheck is a selector to check and the engine that evaluates it.
type SelectorCheck struct {
	Value string
	// Locator selects Playwright's locator engine (CSS plus text=, role=,
	// xpath=, :has-text(), >> chains), which resolves action targets and
	// links; otherwise document.querySelector, which answers probes and
	// reads.
	Locator bool
}

// cssCheckScript returns, per selector, "" or the message with which
// document.querySelector rejects it.
const cssCheckScript = `(sels) => sels.map((s) => {
  try { document.querySelector(s); return ''; } catch (e) { return String(e && e.message || e); }
})`

// InvalidSelectors parses each selector in the session's page with the
// engine that evaluates it and returns, per selector, the browser's
// message when it does not parse ("" when it does). Whether a selector
// matches anything is not checked. The error is for a session that could
// not be asked.
func (s *Session) InvalidSelectors(ctx context.Context, sels []SelectorCheck) ([]string, error) {
	out := make([]string, len(sels))
	var css []string
	var cssAt []int
	for i, sel := range sels {
		if !sel.Locator {
			css, cssAt = append(css, sel.Value), append(cssAt, i)
		}
	}
	if len(css) > 0 {
		var v any
		err := s.call(ctx, "the selector check", func() (e error) {
			v, e = s.page.Evaluate(cssCheckScript, css)
			return e
		})
		if err != nil {
			return nil, fmt.Errorf("browser: checking selectors: %w", err)
		}
		msgs, _ := v.([]any)
		for j, i := range cssAt {
			if j < len(msgs) {
				out[i], _ = msgs[j].(string)
			}
		}
	}
	for i, sel := range sels {
		if !sel.Locator {
			continue
		}
		err := s.call(ctx, "the selector check", func() error {
			_, e := s.page.Locator(sel.Value).Count()
			return e
		})
		if err == nil {
			continue
		}
		if s.closed.Load() || s.rt.Err() != nil || ctx.Err() != nil {
			return nil, fmt.Errorf("browser: checking selectors: %w", err)
		}
		msg := err.Error()
		if j := strings.IndexByte(msg, '\n'); j > 0 {
			msg = msg[:j]
		}
		out[i] = strings.TrimPrefix(msg, "locator.count: ")
	}
	return out, nil
}
