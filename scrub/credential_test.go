package scrub

import "testing"

// TestCredential: session and auth cookies and stored tokens are
// credentials by name or by the shape of a long random value; a user id,
// a user name, a language or a consent flag is not.
func TestCredential(t *testing.T) {
	cases := []struct {
		name, value string
		want        bool
	}{
		{"PHPSESSID", "k3l9f0a8d7s6", true},
		{"connect.sid", "s%3Aabc123def456", true},
		{"wordpress_logged_in_5c1f", "admin|1767258000|Xk3Q9lZ|6f1e0b2c", true},
		{"auth_token", "eyJhbGciOi", true},
		{"prefs", "a81f0c2e9b7d4c1a9e3f", true}, // long and random, whatever its name
		{"uid", "42", false},
		{"user", "admin", false},
		{"lang", "en", false},
		{"cookie_consent", "accepted", false},
		{"session_theme", "dark", false}, // a credential's name, too short a value
		{"greeting", "hello there my friend", false},
		{"tracking_id", "1234567890123456", false}, // digits only: no letters
	}
	for _, c := range cases {
		if got := Credential(c.name, c.value); got != c.want {
			t.Errorf("Credential(%q, %q) = %v, want %v", c.name, c.value, got, c.want)
		}
	}
}

// TestHoldsToken: a value scrubbed whole or in part holds a token; one
// that only looks like a word with "tok" in it does not.
func TestHoldsToken(t *testing.T) {
	sc := New(NewKey(), nil)
	for v, want := range map[string]bool{
		sc.Token("x"):                         true,
		"mail " + sc.Text("jane@example.org"): true,
		"10":                                  false,
		"stock_tokens":                        false,
	} {
		if got := HoldsToken(v); got != want {
			t.Errorf("HoldsToken(%q) = %v, want %v", v, got, want)
		}
	}
}
