package simweb

import (
	"testing"

	"github.com/multiverse-orchestrator/multiverse/scrub"
)

// The scrubber's fast paths must agree with the scrub package.

func TestScrubberURLsAgree(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		s := Generate(seed, DefaultConfig())
		spec := mustSpec(t, s)
		x := newScrubber(s, spec)
		sc := scrub.New(spec.ScrubKey, nil)
		for _, path := range s.Paths() {
			for _, l := range s.Pages[path].Links {
				u := s.Origin + l.Href
				if got, want := x.url(u), sc.URL(u); got != want {
					t.Fatalf("site %d: %s scrubs to %s, want %s", seed, u, got, want)
				}
			}
		}
	}
}

func FuzzScrubberText(f *testing.F) {
	for _, s := range []string{"Plans & pricing", "ops@example.com", "+49 30 1234567", "4111 1111 1111 1111", "Seats: 10",
		"Call +1 (555) 010-9999", "tok_0123456789abcdef", "abc"} {
		f.Add(s, "secret-value", "abc")
	}
	f.Fuzz(func(t *testing.T, text, secret, pii string) {
		x := &scrubber{sc: scrub.New([]byte("k"), []string{secret}), pii: []string{pii}, known: []string{secret, pii}}
		if got, want := x.text(text), x.sc.TextWith(text, x.pii); got != want {
			t.Fatalf("%q scrubs to %q, want %q", text, got, want)
		}
	})
}
