package browser

import "testing"

func TestParseResolve(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"shop.multiverse.test=127.0.0.1", true},
		{"Shop.Example.test=::1", true},
		{"shop.multiverse.test", false},
		{"=127.0.0.1", false},
		{"shop.multiverse.test=localhost", false},
		{"shop.test:443=127.0.0.1", false},
		{"a,MAP b=127.0.0.1", false},
	} {
		m := map[string]string{}
		if err := ParseResolve(m, tc.in); (err == nil) != tc.ok {
			t.Errorf("ParseResolve(%q) = %v, want ok %v", tc.in, err, tc.ok)
		}
	}
	m := map[string]string{}
	ParseResolve(m, "b.test=127.0.0.2")
	ParseResolve(m, "A.test=127.0.0.1")
	if got, want := hostResolverRules(m), "--host-resolver-rules=MAP a.test 127.0.0.1,MAP b.test 127.0.0.2"; got != want {
		t.Errorf("rules = %q, want %q", got, want)
	}
	if hostResolverRules(nil) != "" {
		t.Error("no hosts must add no flag")
	}
}
