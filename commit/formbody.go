package commit

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// bodyRules say which fields of the commit form the key leaves out and
// which it covers only as a hash.
type bodyRules struct {
	// KeyField is the field that will carry the idempotency key.
	KeyField string
	// Volatile are the fields whose value changes on every load of the
	// boundary page (detected) or that the task lists (commit.volatile).
	Volatile []string
	// Secrets are values that must never appear in clear (the task's
	// secret inputs): a field holding one is covered as a hash.
	Secrets []string
}

// Dropped says why a form field is not part of the key's form body.
type Dropped struct {
	Name   string `json:"name"`
	Reason string `json:"reason"` // key_field, volatile, nonce_name
}

// hashedPrefix starts a form value the payload covers only as a hash.
const hashedPrefix = "sha256:"

// canonicalBody turns the fields a form would submit into the form body
// the idempotency key covers: name -> values in submission order, minus
// the key's own field, volatile fields and hidden fields whose name marks
// a nonce (nonceWords). A password field, a field that declares personal
// data (scrub.SensitiveField) and a field holding a secret are covered by
// a salted sha256 of name and value (hashedPrefix), never in clear: two
// different values still make two keys, and the ledger keeps no personal
// value of the form. It is a pure function of its inputs: the same form
// makes the same body in every run.
func canonicalBody(fields []browser.FormField, r bodyRules) (map[string][]string, []Dropped) {
	body := map[string][]string{}
	var dropped []Dropped
	seen := map[string]bool{}
	drop := func(name, why string) {
		if !seen[name] {
			seen[name] = true
			dropped = append(dropped, Dropped{Name: name, Reason: why})
		}
	}
	for _, f := range fields {
		switch {
		case r.KeyField != "" && f.Name == r.KeyField:
			drop(f.Name, "key_field")
			continue
		case slices.Contains(r.Volatile, f.Name):
			drop(f.Name, "volatile")
			continue
		case strings.EqualFold(f.Type, "hidden") && nonceName(f.Name):
			drop(f.Name, "nonce_name")
			continue
		}
		v := f.Value
		if hiddenValue(f, r.Secrets) {
			v = hashValue(f.Name, v)
		}
		body[f.Name] = append(body[f.Name], v)
	}
	return body, dropped
}

// hiddenValue reports whether a field's value may only be kept as a hash.
func hiddenValue(f browser.FormField, secrets []string) bool {
	if f.Value == "" {
		return false
	}
	if scrub.SensitiveField(f.Type, f.Name, f.ID, f.Autocomplete) {
		return true
	}
	for _, s := range secrets {
		if s != "" && strings.Contains(f.Value, s) {
			return true
		}
	}
	return false
}

// hashValue is the salted sha256 a hidden field's value is covered by.
func hashValue(name, value string) string {
	h := sha256.Sum256([]byte("multiverse/commit/form-value\x00" + name + "\x00" + value))
	return hashedPrefix + hex.EncodeToString(h[:])
}
