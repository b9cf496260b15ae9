package natstest

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
)

// ErrInvalidOption is wrapped by the error of every [Option] that rejects
// its argument; [Start] fails the test with it.
var ErrInvalidOption = errors.New("natstest: invalid option")

// Option configures [Start]. Every option validates its argument.
type Option func(*settings) error

// settings is what the options set; zero fields take the defaults.
type settings struct {
	name     string
	port     int
	storeDir string
}

// WithName sets the server_name (default "natstest"). It must be non-empty
// and hold no whitespace, quotes, backslashes or control characters.
func WithName(name string) Option {
	return func(s *settings) error {
		if err := checkConfigString("server name", name); err != nil {
			return err
		}
		s.name = name
		return nil
	}
}

// WithPort sets the client port (default: a free port). A fixed port is not
// retried when another process holds it: Start fails instead.
func WithPort(port int) Option {
	return func(s *settings) error {
		if port < 1 || port > 65535 {
			return fmt.Errorf("%w: port %d not in 1..65535", ErrInvalidOption, port)
		}
		s.port = port
		return nil
	}
}

// WithStoreDir sets the JetStream store directory (default: "store" in the
// test's temporary directory). It must be an absolute path; the caller owns
// it and removes it. Two servers running on one store directory corrupt it.
func WithStoreDir(dir string) Option {
	return func(s *settings) error {
		if !filepath.IsAbs(dir) {
			return fmt.Errorf("%w: store dir %q is not an absolute path", ErrInvalidOption, dir)
		}
		if err := checkConfigString("store dir", dir); err != nil {
			return err
		}
		s.storeDir = dir
		return nil
	}
}

// checkConfigString rejects values that would need escaping inside a
// quoted string of the server's configuration file.
func checkConfigString(what, v string) error {
	if v == "" {
		return fmt.Errorf("%w: empty %s", ErrInvalidOption, what)
	}
	if i := strings.IndexFunc(v, func(r rune) bool {
		return r == '"' || r == '\\' || r == '\'' || unicode.IsControl(r) ||
			(what == "server name" && unicode.IsSpace(r))
	}); i >= 0 {
		return fmt.Errorf("%w: %s %q holds %q", ErrInvalidOption, what, v, v[i:i+1])
	}
	return nil
}
