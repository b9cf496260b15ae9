package task

import (
	"reflect"
	"testing"
)

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
	st := StorageState{Cookies: []StateCookie{{Name: "uid", Value: "42"}, {Name: "sid", Value: "9f8e7d6c5b4a"}},
		Origins: []StateOrigin{{Origin: "https://app.test", LocalStorage: []StateKeyValue{{Name: "theme", Value: "dark"}, {Name: "access_token", Value: "tok-12345678"}}}}}
	if got, want := st.Secrets(), []string{"9f8e7d6c5b4a", "tok-12345678"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Secrets() = %q, want %q", got, want)
	}
}
