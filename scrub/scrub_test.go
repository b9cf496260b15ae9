package scrub

import (
	"strings"
	"testing"
)

func TestScrub(t *testing.T) {
	s := New([]byte("k"), []string{"hunter2-secret"})
	cases := []struct {
		name, in string
		gone     []string
	}{
		{"email", "mail me at buyer.one@example.com today", []string{"buyer.one@example.com"}},
		{"encoded email", `<a href="/checkout?email=buyer.one%40example.com&seats=10">`, []string{"buyer.one%40example.com", "buyer.one"}},
		{"card", "card 4111 1111 1111 1111 ok", []string{"4111 1111 1111 1111"}},
		{"not a card", "order 1234567890123", nil},
		{"phone", "call +49 30 1234 5678", []string{"+49 30 1234 5678"}},
		{"secret", "token=hunter2-secret;", []string{"hunter2-secret"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := s.Text(c.in)
			for _, g := range c.gone {
				if strings.Contains(out, g) {
					t.Fatalf("%q still in %q", g, out)
				}
			}
			if len(c.gone) == 0 && out != c.in {
				t.Fatalf("changed %q to %q", c.in, out)
			}
		})
	}
	if s.Token("a") != s.Token("a") || s.Token("a") == New([]byte("other"), nil).Token("a") {
		t.Fatal("tokens must be stable within a key and differ across keys")
	}
	u := s.URL("http://h/checkout/review?plan=team&email=a%40b.example&seats=10&full_name=Jo")
	if strings.Contains(u, "b.example") || strings.Contains(u, "Jo") || !strings.Contains(u, "plan=team") || !strings.Contains(u, "seats=10") {
		t.Fatalf("url = %s", u)
	}
	if h := s.Header("Authorization", "Bearer abc"); strings.Contains(h, "abc") {
		t.Fatalf("header = %s", h)
	}
	j := string(s.JSON([]byte(`{"email":"x@y.example","seats":10,"card":{"number":"4111111111111111"},"note":"hunter2-secret"}`)))
	for _, g := range []string{"x@y.example", "4111111111111111", "hunter2-secret"} {
		if strings.Contains(j, g) {
			t.Fatalf("%q in %s", g, j)
		}
	}
	if !strings.Contains(j, `"seats":10`) {
		t.Fatalf("seats lost: %s", j)
	}
}

func FuzzText(f *testing.F) {
	f.Add("a@b.example 4111111111111111 +1 555 123 4567")
	s := New([]byte("k"), []string{"sekret"})
	f.Fuzz(func(t *testing.T, in string) {
		out := s.Text(in)
		if strings.Contains(out, "sekret") {
			t.Fatalf("secret survived: %q", out)
		}
	})
}

func TestIdempotent(t *testing.T) {
	a := New([]byte("one"), []string{"s3cret-value"})
	b := New([]byte("two"), nil)
	in := "mail x@y.example card 4111111111111111 secret s3cret-value http://h/p?email=x%40y.example"
	once := a.Text(in)
	if b.Text(once) != once || a.Text(once) != once {
		t.Fatalf("scrubbing is not idempotent: %q -> %q", once, b.Text(once))
	}
	u := a.URL("http://h/review?email=x%40y.example&full_name=Jo&seats=10")
	if b.URL(u) != u {
		t.Fatalf("URL scrubbing is not idempotent: %q -> %q", u, b.URL(u))
	}
	if tok := a.Token("x@y.example"); !strings.HasSuffix(tok, "@scrubbed.invalid") || !IsToken(tok) {
		t.Fatalf("an e-mail's token must stay an e-mail address: %s", tok)
	}
	if got := a.TextWith("<input ::value=\"Jane Doe\">", []string{"Jane Doe"}); strings.Contains(got, "Jane") {
		t.Fatalf("extra value survived: %s", got)
	}
}

func TestBodySniffing(t *testing.T) {
	s := New([]byte("k"), nil)
	form := []byte("plan=team&email=a%40b.example&client_reference=commit%3Ax")
	if a, b := s.Body("", form), s.Body("application/x-www-form-urlencoded", form); string(a) != string(b) {
		t.Fatalf("a missing content type changes the scrub: %s vs %s", a, b)
	}
	if strings.Contains(string(s.Body("", form)), "b.example") {
		t.Fatal("form e-mail survived")
	}
}
