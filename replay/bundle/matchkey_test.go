package bundle

import (
	"strings"
	"testing"
)

func TestNormalizeURL(t *testing.T) {
	const o = "http://127.0.0.1:8555"
	cases := []struct {
		raw, origin, want string
	}{
		{"http://127.0.0.1:8555/pricing", o, "{origin}/pricing"},
		{"HTTP://127.0.0.1:8555/Pricing", o, "{origin}/Pricing"},
		{"http://127.0.0.1:8555/pricing#plans", o, "{origin}/pricing"},
		{"http://127.0.0.1:8555/p?b=2&a=1&a=0", o, "{origin}/p?a=0&a=1&b=2"},
		{"http://127.0.0.1:8555/p?a=1&b=2#x?y", o, "{origin}/p?a=1&b=2"},
		{"http://127.0.0.1:8555/p?", o, "{origin}/p"},
		{"http://127.0.0.1:8555/p?&&a=1&", o, "{origin}/p?a=1"},
		{"http://127.0.0.1:8555/p?q=a+b&q=a%20b", o, "{origin}/p?q=a+b&q=a+b"},
		{"http://127.0.0.1:8555/p?flag&x=", o, "{origin}/p?flag&x="},
		{"http://127.0.0.1:8555/p?bad=%zz&a=1", o, "{origin}/p?a=1&bad=%zz"},
		{"http://127.0.0.1:8555/a%2Fb/./c//d", o, "{origin}/a%2Fb/./c//d"},
		{"http://127.0.0.1:8555", o, "{origin}"},
		{"http://127.0.0.1:8555/x", o + "/", "{origin}/x"},
		{"http://127.0.0.1:9999/x", o, "http://127.0.0.1:9999/x"},
		{"https://127.0.0.1:8555/x", o, "https://127.0.0.1:8555/x"},
		{"http://Example.COM:80/A?Z=1", "", "http://example.com/A?Z=1"},
		{"https://example.com:443/", "https://EXAMPLE.com", "{origin}/"},
		{"https://example.com:8443/", "https://example.com", "https://example.com:8443/"},
		{"http://User:PW@Example.com/", "", "http://User:PW@example.com/"},
		{"http://[::1]:80/x", "http://[::1]", "{origin}/x"},
		{"/api/quote?b=1&a=2", o, "/api/quote?a=2&b=1"},
		{"{origin}/p?b&a", o, "{origin}/p?a&b"},
		{"data:text/plain,hi#frag", o, "data:text/plain,hi"},
		{"", o, ""},
	}
	for _, tc := range cases {
		t.Run(tc.raw, func(t *testing.T) {
			got := NormalizeURL(tc.raw, tc.origin)
			require(t, got == tc.want, "NormalizeURL(%q, %q) = %q, want %q", tc.raw, tc.origin, got, tc.want)
			require(t, NormalizeURL(got, tc.origin) == got, "not idempotent: %q -> %q", got, NormalizeURL(got, tc.origin))
		})
	}
}

func TestMatchKeyOccurrences(t *testing.T) {
	const o = "http://127.0.0.1:8555"
	body := strings.Repeat("ab", 32)
	type req struct{ method, url, body string }
	cases := []struct {
		name string
		reqs []req
		want []string
	}{
		{"distinct requests", []req{{"GET", o + "/a", ""}, {"GET", o + "/b", ""}},
			[]string{"GET {origin}/a - #0", "GET {origin}/b - #0"}},
		{"repeats count per triple", []req{{"GET", o + "/a", ""}, {"GET", o + "/a#x", ""}, {"GET", o + "/b", ""}, {"GET", o + "/a", ""}},
			[]string{"GET {origin}/a - #0", "GET {origin}/a - #1", "GET {origin}/b - #0", "GET {origin}/a - #2"}},
		{"body and method separate triples", []req{{"POST", o + "/q", body}, {"POST", o + "/q", ""}, {"PUT", o + "/q", body}, {"POST", o + "/q", body}},
			[]string{"POST {origin}/q " + body + " #0", "POST {origin}/q - #0", "PUT {origin}/q " + body + " #0", "POST {origin}/q " + body + " #1"}},
		{"query order does not matter", []req{{"GET", o + "/s?a=1&b=2", ""}, {"GET", o + "/s?b=2&a=1", ""}},
			[]string{"GET {origin}/s?a=1&b=2 - #0", "GET {origin}/s?a=1&b=2 - #1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMatcher(o)
			b := &Bundle{Manifest: Manifest{Origin: o}}
			for i, r := range tc.reqs {
				got := m.Next(r.method, r.url, r.body)
				require(t, got == tc.want[i], "request %d: key %q, want %q", i, got, tc.want[i])
				b.Network = append(b.Network, Entry{Seq: i + 1, Method: r.method, URL: r.url, RequestBodySHA256: r.body})
			}
			idx := b.Index()
			require(t, len(idx) == len(tc.reqs), "Index has %d keys for %d requests", len(idx), len(tc.reqs))
			for i, k := range tc.want {
				require(t, idx[k] == &b.Network[i], "Index[%q] is not entry %d", k, i)
			}
		})
	}
	require(t, MatchKey("GET", "{origin}/", "", 3) == "GET {origin}/ - #3", "MatchKey format changed")
}

func TestIndexOfSmallBundle(t *testing.T) {
	b := smallBundle(t)
	idx := b.Index()
	e := idx["POST {origin}/api/quote "+b.Network[3].RequestBodySHA256+" #1"]
	require(t, e != nil && e.Seq == 6, "second identical POST: %+v", e)
	e = idx["GET {origin}/pricing?a=1&b=2 - #0"]
	require(t, e != nil && e.Status == 302, "redirect entry: %+v", e)
	body, ok := b.Body(idx["GET {origin}/ - #0"].BodySHA256)
	require(t, ok && strings.Contains(string(body), "<h1>Team</h1>"), "body of the document: %q", body)
}

func FuzzNormalizeURL(f *testing.F) {
	for _, s := range []string{
		"http://127.0.0.1:8555/p?b=2&a=1#f", "HTTPS://Example.com:443/A?x=%zz&y=1", "/rel?q=a+b", "{origin}/x?&", "http://a:80:80/",
		"http://[::1]:80/", "ws://h:80", "a://b://c", "http://u@h@H:80/?#", "data:,x?y#z", "http://h/%2e%2e/?=&=", "",
	} {
		f.Add(s, "http://127.0.0.1:8555")
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, raw, origin string) {
		got := NormalizeURL(raw, origin)
		if again := NormalizeURL(got, origin); again != got {
			t.Fatalf("not idempotent: %q -> %q -> %q", raw, got, again)
		}
		if strings.Contains(got, "#") {
			t.Fatalf("fragment kept: %q -> %q", raw, got)
		}
		if got != NormalizeURL(raw, origin) {
			t.Fatalf("not deterministic: %q", raw)
		}
	})
}
