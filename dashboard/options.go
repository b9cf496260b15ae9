package dashboard

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/multiverse-orchestrator/multiverse/browser"
)

// ErrInvalidOption is matched by the error New returns for an option with
// a bad value.
var ErrInvalidOption = errors.New("dashboard: invalid option")

// Option configures a Server.
type Option func(*Server) error

// WithToken requires every request to carry token, as "Authorization:
// Bearer TOKEN" or "?token=TOKEN". An empty token is invalid.
func WithToken(token string) Option {
	return func(s *Server) error {
		if token == "" {
			return fmt.Errorf("%w: empty token", ErrInvalidOption)
		}
		s.token = token
		return nil
	}
}

// WithPollInterval sets how often a live stream polls the event log for
// new events (default 250ms).
func WithPollInterval(d time.Duration) Option {
	return func(s *Server) error {
		if d <= 0 {
			return fmt.Errorf("%w: poll interval %v", ErrInvalidOption, d)
		}
		s.poll = d
		return nil
	}
}

// WithBrowser sets how replays launch Chromium (discovery overrides).
func WithBrowser(o browser.Options) Option {
	return func(s *Server) error {
		s.browser = o
		return nil
	}
}

// WithLogger sets the logger for requests that fail on the server side.
func WithLogger(l *slog.Logger) Option {
	return func(s *Server) error {
		if l == nil {
			return fmt.Errorf("%w: nil logger", ErrInvalidOption)
		}
		s.log = l
		return nil
	}
}
