package scrub

import (
	"regexp"
	"strings"
	"unicode"
)

// credentialName matches the names of cookies and stored entries that
// hold credentials.
var credentialName = regexp.MustCompile(`(?i)(sess|sid|auth|token|login|logged|jwt|csrf|xsrf|remember|secret|passw|api.?key|access|refresh|bearer)`)

// Credential reports whether a cookie or stored entry is a credential: a
// value of at least 8 characters under a credential's name, or a value
// of at least 16 characters that looks random (letters and digits mixed,
// no spaces), whatever its name.
func Credential(name, value string) bool {
	v := strings.TrimSpace(value)
	if len(v) >= 8 && credentialName.MatchString(name) {
		return true
	}
	if len(v) < 16 || strings.ContainsAny(v, " \t") {
		return false
	}
	letters, digits := false, false
	for _, r := range v {
		switch {
		case r >= '0' && r <= '9':
			digits = true
		case unicode.IsLetter(r):
			letters = true
		}
	}
	return letters && digits
}

// HoldsToken reports whether v holds a token anywhere (a value scrubbed
// whole or in part).
func HoldsToken(v string) bool { return tokenInTextRE.MatchString(v) }
