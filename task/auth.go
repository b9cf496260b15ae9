package task

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/scoring"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// Auth says how every branch and the committer are logged in.
type Auth struct {
	// StorageState is a Playwright storage-state document (cookies and
	// local storage, as BrowserContext.storageState() writes it), by
	// secret reference: secret_file or secret_env. Every branch context
	// and the committer's start from it; its cookie and local-storage
	// values are secrets, scrubbed wherever they would be recorded.
	StorageState *Input `json:"storage_state,omitempty"`
	// Login is a short list of actions (typing secret inputs into a login
	// form, say) run once before exploration, in a context seeded with
	// StorageState when set; the session it leaves seeds every branch and
	// the committer. It is recorded as its own transaction in the event
	// log, with no secret in any record.
	Login []branch.Action `json:"login,omitempty"`
	// LoginPage says "this is the login page": a branch that lands there
	// ends as auth_required, and a login that ends there failed.
	LoginPage *scoring.Predicate `json:"login_page,omitempty"`
}

// LoginActions returns the login's actions with each navigate URL
// resolved against the start URL (a relative one follows the task to
// another address, as WithStartURL does).
func (t *Task) LoginActions() []branch.Action {
	out := make([]branch.Action, len(t.Auth.Login))
	base, err := url.Parse(t.StartURL)
	for i, a := range t.Auth.Login {
		if a.Kind == branch.KindNavigate && err == nil {
			if u, uerr := url.Parse(a.URL); uerr == nil {
				a.URL = base.ResolveReference(u).String()
			}
		}
		out[i] = a
	}
	return out
}

// LoginPagePredicate is the name the login-page predicate is judged
// under, beside the goal's predicates.
const LoginPagePredicate = "auth.login_page"

// MaxStorageStateSize bounds a storage-state file: cookies and local
// storage of a logged-in session, not a database.
const MaxStorageStateSize = 1 << 20

// StorageState is the part of a Playwright storage-state document that
// a run uses. It is also the one form of a session's login state in the
// product: what a browser session starts from, what a scripted login
// hands the workers (as JSON) and what the committer starts from.
type StorageState struct {
	Cookies []StateCookie `json:"cookies"`
	Origins []StateOrigin `json:"origins"`
}

// StateCookie is one cookie of a storage state, in Playwright's fields.
type StateCookie struct {
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Domain   string  `json:"domain"`
	Path     string  `json:"path"`
	Expires  float64 `json:"expires"`
	HTTPOnly bool    `json:"httpOnly"`
	Secure   bool    `json:"secure"`
	SameSite string  `json:"sameSite"`
}

// StateOrigin is one origin's local storage.
type StateOrigin struct {
	Origin       string          `json:"origin"`
	LocalStorage []StateKeyValue `json:"localStorage"`
}

// StateKeyValue is one local-storage entry.
type StateKeyValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ParseStorageState decodes a storage-state document and checks what a
// browser needs of it: every cookie has a name and a domain, every origin
// an http(s) origin.
func ParseStorageState(b []byte) (*StorageState, error) {
	var st StorageState
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("not a storage-state document (JSON with cookies and origins): %v", err)
	}
	for i, c := range st.Cookies {
		if c.Name == "" || c.Domain == "" {
			return nil, fmt.Errorf("cookies[%d]: a cookie needs a name and a domain", i)
		}
	}
	for i, o := range st.Origins {
		if !strings.HasPrefix(o.Origin, "http://") && !strings.HasPrefix(o.Origin, "https://") {
			return nil, fmt.Errorf("origins[%d]: %q is not an http(s) origin", i, o.Origin)
		}
	}
	return &st, nil
}

// Secrets returns the values of the state that are credentials, for
// scrubbing wherever they appear: a session or auth cookie and a stored
// token (by name, or by the shape of a long random value). A short value
// that is no credential (a user id, a user name, a language, a consent
// flag) is not one: scrubbed as a secret, every "42" or "en" of every
// page would become a token, and no page would look like itself.
func (s *StorageState) Secrets() []string {
	var out []string
	for _, c := range s.Cookies {
		if scrub.Credential(c.Name, c.Value) {
			out = append(out, c.Value)
		}
	}
	for _, o := range s.Origins {
		for _, kv := range o.LocalStorage {
			if scrub.Credential(kv.Name, kv.Value) {
				out = append(out, kv.Value)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Scrubbed is the state as a recording may hold it, every value scrubbed
// by scrub.Scrubber.Stored: a credential (a session or auth cookie, a
// stored token) becomes its token, any other value is scrubbed as text
// (an e-mail address in a preference cookie becomes its token; a user id,
// a language, a module cache stay as they are). A strict replay starts its page from
// this state, so a page script that reads its cookies or its local
// storage reads at replay what the recording's scrubbed pages show.
func (s *StorageState) Scrubbed(sc *scrub.Scrubber) *StorageState {
	out := &StorageState{Cookies: make([]StateCookie, len(s.Cookies)), Origins: make([]StateOrigin, len(s.Origins))}
	for i, c := range s.Cookies {
		c.Value = sc.Stored(c.Name, c.Value)
		out.Cookies[i] = c
	}
	for i, o := range s.Origins {
		kvs := make([]StateKeyValue, len(o.LocalStorage))
		for j, kv := range o.LocalStorage {
			kvs[j] = StateKeyValue{Name: kv.Name, Value: sc.Stored(kv.Name, kv.Value)}
		}
		out.Origins[i] = StateOrigin{Origin: o.Origin, LocalStorage: kvs}
	}
	return out
}

// ResolveStorageState reads the storage state a reference names (the
// JSON document in a secret file or environment variable) and parses it.
func ResolveStorageState(in Input) (*StorageState, error) {
	var b []byte
	switch {
	case in.SecretFile != "":
		var err error
		if b, err = readRegular(in.SecretFile, MaxStorageStateSize); err != nil {
			var r refusal
			if errors.As(err, &r) {
				return nil, fmt.Errorf("%w: storage-state file %s is %s: it must be a regular file of at most %d bytes",
					ErrSecretMissing, in.SecretFile, r, MaxStorageStateSize)
			}
			if pe, ok := err.(*os.PathError); ok {
				err = pe.Err
			}
			return nil, fmt.Errorf("%w: storage-state file %s: %v", ErrSecretMissing, in.SecretFile, err)
		}
	case in.SecretEnv != "":
		v, ok := os.LookupEnv(in.SecretEnv)
		if !ok {
			return nil, fmt.Errorf("%w: environment variable %s is not set", ErrSecretMissing, in.SecretEnv)
		}
		b = []byte(v)
	default:
		return nil, fmt.Errorf("%w: a storage state is a secret: give secret_file or secret_env", ErrSecretMissing)
	}
	st, err := ParseStorageState(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSecretMissing, err)
	}
	return st, nil
}
