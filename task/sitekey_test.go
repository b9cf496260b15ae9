package task

import "testing"

// TestSiteKey: a loopback site is one site on any port; a site on a real
// host keeps its port; RelativeURL and AbsoluteURL are inverses on the
// site.
func TestSiteKey(t *testing.T) {
	cases := []struct{ origin, want string }{
		{"http://127.0.0.1:8555", "http://127.0.0.1"},
		{"http://127.0.0.1", "http://127.0.0.1"},
		{"https://localhost:8443", "https://localhost"},
		{"http://[::1]:9000", "http://[::1]"},
		{"http://127.0.0.2:9000", "http://127.0.0.2"},
		{"https://shop.example.com:8443", "https://shop.example.com:8443"},
		{"https://shop.example.com", "https://shop.example.com"},
		{"http://10.0.0.5:8080", "http://10.0.0.5:8080"},
		{"", ""},
	}
	for _, c := range cases {
		if got := SiteKey(c.origin); got != c.want {
			t.Errorf("SiteKey(%q) = %q, want %q", c.origin, got, c.want)
		}
	}
	tk := &Task{StartURL: "http://127.0.0.1:8555/shop"}
	for _, u := range []string{"http://127.0.0.1:8555/checkout?plan=team", "http://127.0.0.1:8555", "https://elsewhere.test/x"} {
		if back := tk.AbsoluteURL(tk.RelativeURL(u)); back != u {
			t.Errorf("%q -> %q -> %q", u, tk.RelativeURL(u), back)
		}
	}
	if got := tk.RelativeURL("http://127.0.0.1:8555/checkout"); got != "{origin}/checkout" {
		t.Errorf("RelativeURL = %q", got)
	}
}
