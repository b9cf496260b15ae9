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
	f.Add("jane&#43;x&#x40;example&period;com \\u002b49 30 1234 5678 x%2By%40z.example")
	s := New([]byte("k"), []string{"sekret"})
	f.Fuzz(func(t *testing.T, in string) {
		out := s.Text(in)
		if strings.Contains(out, "sekret") {
			t.Fatalf("secret survived: %q", out)
		}
		if again := s.Text(out); again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", in, out, again)
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

// TestPlusEmail: an address with a "+" is scrubbed whole, with the same
// token, in every spelling a page or request carries it: plain, in a
// link's query (%2B, %40), in a Referer, and as a query parameter.
func TestPlusEmail(t *testing.T) {
	s := New([]byte("k"), nil)
	const email = "buyer+test@example.com"
	tok := s.Token(email)
	cases := []struct{ name, got string }{
		{"text", s.Text("<dd>" + email + "</dd>")},
		{"link", s.Text(`<a href="/checkout/review?plan=team&email=buyer%2Btest%40example.com&seats=10">`)},
		{"aria link", s.Aria("- link \"Edit\":\n  - /url: /x?email=buyer%2btest%40example.com\n", nil)},
		{"referer", s.Header("Referer", "http://h/checkout/review?note=buyer%2Btest%40example.com&seats=10")},
		{"url", s.URL("http://h/checkout/review?email=buyer%2Btest%40example.com&seats=10")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if strings.Contains(c.got, "buyer") || strings.Contains(c.got, "example.com") {
				t.Fatalf("the local part or domain survived: %s", c.got)
			}
			bare := strings.TrimSuffix(tok, "@scrubbed.invalid")
			if !strings.Contains(c.got, bare) {
				t.Fatalf("%s does not carry the address's token %s", c.got, tok)
			}
		})
	}
}

// TestURLCredentials: the user info of a URL inside any text (an error
// message naming the start URL) becomes a token; the host stays.
func TestURLCredentials(t *testing.T) {
	s := New([]byte("k"), nil)
	for _, in := range []string{
		`site unreachable: start URL http://user:pass@127.0.0.1:1/: dial tcp 127.0.0.1:1: connect: connection refused`,
		`Get "https://alice:s3cr3t@shop.example.com/": EOF`,
		`Get "http://user:***@127.0.0.1:1/": EOF`,
	} {
		out := s.Text(in)
		for _, g := range []string{"user:", "pass@", "alice", "s3cr3t", ":***"} {
			if strings.Contains(out, g) {
				t.Fatalf("%q survived in %q", g, out)
			}
		}
		if !strings.Contains(out, "127.0.0.1") && !strings.Contains(out, "shop.example.com") {
			t.Fatalf("the host was lost: %q", out)
		}
		if s.Text(out) != out {
			t.Fatalf("not idempotent: %q -> %q", out, s.Text(out))
		}
	}
}

// TestShortSecrets: a secret of one or two characters is replaced where
// it is a whole value (a field value in the canonical DOM, an
// accessibility scalar, a form or JSON value, a whole text), never inside
// unrelated words and numbers.
func TestShortSecrets(t *testing.T) {
	s := New([]byte("k"), []string{"ab", "7"})
	ab, seven := s.Token("ab"), s.Token("7")
	cases := []struct{ name, in, want string }{
		{"dom field", `<input ::value="ab" name="password" type="password"></input>`, `<input ::value="` + ab + `" name="password" type="password"></input>`},
		{"dom text", `<dd>"ab"</dd><p>"about abc"</p>`, `<dd>"` + ab + `"</dd><p>"about abc"</p>`},
		{"html text", "<dd>\n  ab\n</dd>", "<dd>\n  " + ab + "\n</dd>"},
		{"aria", "- textbox \"Pw\": ab\n- paragraph: cab\n", "- textbox \"Pw\": " + ab + "\n- paragraph: cab\n"},
		{"form", "pin=7&seats=17&pw=ab", "pin=" + seven + "&seats=17&pw=" + ab},
		{"json", `{"pin":"7","seats":17,"note":"7 days"}`, `{"pin":"` + seven + `","seats":17,"note":"7 days"}`},
		{"whole", "ab", ab},
		{"untouched", "table tab 77 1.7", "table tab 77 1.7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := s.Text(c.in); got != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
		})
	}
	if got := string(s.Body("application/x-www-form-urlencoded", []byte("password=ab&seats=10"))); strings.Contains(got, "=ab") {
		t.Fatalf("a short secret survived in a form body: %s", got)
	}
	if got := string(s.JSON([]byte(`{"code":"ab"}`))); strings.Contains(got, `"ab"`) {
		t.Fatalf("a short secret survived in JSON: %s", got)
	}
}

// TestTokensStayWhole: a secret whose characters occur inside a token
// (three hex digits) does not rewrite the token.
func TestTokensStayWhole(t *testing.T) {
	base := New([]byte("k"), nil)
	tok := base.Token("x@y.example")
	digits := ""
	for _, r := range strings.TrimPrefix(strings.TrimSuffix(tok, "@scrubbed.invalid"), "tok_") {
		if r >= '0' && r <= '9' {
			digits += string(r)
		} else {
			digits = ""
		}
		if len(digits) == 3 {
			break
		}
	}
	if len(digits) < 3 {
		t.Skip("the token has no run of three digits under this key")
	}
	s := New([]byte("k"), []string{digits})
	if got := s.Text("mail " + tok); got != "mail "+tok {
		t.Fatalf("the secret %q rewrote a token: %s", digits, got)
	}
}

// TestAriaQuoting: the recorded snapshot of a field holding an all-digit
// secret (YAML quotes it) and the replayed one holding its token (never
// quoted) scrub to the same text.
func TestAriaQuoting(t *testing.T) {
	capture := New([]byte("k"), []string{"48291"})
	tok := capture.Token("48291")
	rec := capture.Aria("- textbox \"PIN\": \"48291\"\n- paragraph: \"48291\"\n", nil)
	rep := New(NewKey(), nil).Aria("- textbox \"PIN\": "+tok+"\n- paragraph: "+tok+"\n", nil)
	if rec != rep {
		t.Fatalf("recorded %q\nreplayed %q", rec, rep)
	}
}

func TestSensitiveField(t *testing.T) {
	cases := []struct {
		typ, name, id, ac string
		want              bool
	}{
		{"email", "", "", "", true},
		{"tel", "x", "", "", true},
		{"password", "", "", "", true},
		{"text", "name", "", "", true},
		{"text", "", "", "cc-number", true},
		{"text", "", "", "shipping street-address", true},
		{"text", "", "", "given-name", true},
		{"text", "", "", "tel-national", true},
		{"text", "q", "full_name", "", true},
		{"text", "plan", "plan-name", "", false},
		{"number", "seats", "seats", "", false},
		{"text", "vat_id", "vat_id", "off", false},
	}
	for _, c := range cases {
		if got := SensitiveField(c.typ, c.name, c.id, c.ac); got != c.want {
			t.Errorf("SensitiveField(%q, %q, %q, %q) = %v", c.typ, c.name, c.id, c.ac, got)
		}
	}
}

// TestSecretNotUTF8: a secret holding bytes that are not UTF-8 (read from
// a binary secret file, say) never panics the scrubber, and is still
// scrubbed where it is a whole value (found by the fuzzer: "\xd8").
func TestSecretNotUTF8(t *testing.T) {
	for _, secret := range []string{"\xd8", "a\xffb", "\xd8\xd9"} {
		s := New([]byte("k"), []string{secret})
		in := `{"pin":"` + secret + `"}`
		if got := s.Text(in); strings.Contains(got, secret) {
			t.Errorf("secret %q stays in %q", secret, got)
		}
	}
}

// TestEncodedValues: a personal value a page writes through an encoding
// (HTML character references decimal, hex and named, \uXXXX escapes,
// percent-encoding, or a mix) is found whole, replaced whole, and gets
// the token of its plain form; nothing of it stays in clear.
func TestEncodedValues(t *testing.T) {
	s := New([]byte("k"), []string{"hunter2-secret"})
	const email = "jane+x@example.com"
	emailTok := s.Token(email)
	phoneTok := s.Token("+49 30 1234 5678")
	cardTok := s.Token("4111111111111111")
	cases := []struct {
		name, in, tok string
		gone          []string
	}{
		{"decimal reference", "<dd>jane&#43;x@example.com</dd>", emailTok, []string{"jane", "example"}},
		{"decimal reference, leading zeros", "<dd>jane&#0043;x@example.com</dd>", emailTok, []string{"jane", "example"}},
		{"decimal reference without ;", "<dd>jane&#43x@example.com</dd>", emailTok, []string{"jane", "example"}},
		{"hex reference", "<dd>jane&#x2B;x@example.com</dd>", emailTok, []string{"jane", "example"}},
		{"hex reference, lower case", "<dd>jane&#x2b;x&#x40;example.com</dd>", emailTok, []string{"jane", "example"}},
		{"named references", "<dd>jane&plus;x&commat;example&period;com</dd>", emailTok, []string{"jane", "example"}},
		{"every character a reference", "<a>&#106;&#97;&#110;&#101;&#43;&#120;&#64;&#101;&#120;&#97;&#109;&#112;&#108;&#101;&#46;&#99;&#111;&#109;</a>",
			emailTok, []string{"&#106;&#97;&#110;&#101;"}},
		{"attribute", `<input type="email" value="jane&#43;x@example.com">`, emailTok, []string{"jane", "example"}},
		{"JSON escape", `<script>var u = {"email":"jane\u002bx@example.com"};</script>`, emailTok, []string{"jane", "example"}},
		{"JSON escapes, upper case", `{"note":"jane\u002Bx\u0040example.com"}`, emailTok, []string{"jane", "example"}},
		{"percent-encoded", `<a href="/u?next=jane%2Bx%40example.com">`, strings.Replace(emailTok, "@", "%40", 1), []string{"jane", "example"}},
		{"percent-encoded plus, plain @", `/u?next=jane%2Bx@example.com`, emailTok, []string{"jane", "example"}},
		{"references and percent mixed", `jane&#43;x%40example.com`, strings.Replace(emailTok, "@", "%40", 1), []string{"jane", "example"}},
		{"phone with a reference", "<dd>&#43;49 30 1234 5678</dd>", phoneTok, []string{"1234 5678"}},
		{"card with references", "<dd>4111&#32;1111&#32;1111&#32;1111</dd>", cardTok, []string{"1111"}},
		{"secret as references", "pw=hunter2&#45;secret;", s.Token("hunter2-secret"), []string{"hunter2", "secret;"}},
		{"secret percent-encoded", "pw=hunter2%2Dsecret", s.Token("hunter2-secret"), []string{"hunter2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := s.Text(c.in)
			for _, g := range c.gone {
				if strings.Contains(out, g) {
					t.Fatalf("%q stays in %q", g, out)
				}
			}
			if !strings.Contains(out, c.tok) {
				t.Fatalf("%q does not carry the token of the plain value %s", out, c.tok)
			}
			if again := New([]byte("other"), nil).Text(out); again != out {
				t.Fatalf("not idempotent: %q -> %q", out, again)
			}
		})
	}
}

// TestEncodedLeftAlone: text whose encodings spell nothing personal is
// unchanged, the references included.
func TestEncodedLeftAlone(t *testing.T) {
	s := New([]byte("k"), []string{"hunter2-secret"})
	for _, in := range []string{
		"Fish &amp; chips &#8212; 100% fresh, &copy; 2024, a&ampx;b, 50%2",
		`<a href="/search?q=team%20plan&amp;page=2">next &rarr;</a>`,
		`{"label":"caf\u00e9 \ud83d\ude00","broken":"\ud83d x \u12"}`,
		"price &#36;12.00 &#x20AC;10 &#99999999999; &#xZZ; & &; &#;",
	} {
		if out := s.Text(in); out != in {
			t.Errorf("changed %q to %q", in, out)
		}
	}
}

// TestEncodedBodies: the same address in a body written plain and in one
// written encoded has one token, in every content type a page sends, and
// a sensitive key's value is tokenized in its plain form too.
func TestEncodedBodies(t *testing.T) {
	s := New([]byte("k"), nil)
	tok := s.Token("jane+x@example.com")
	bare := strings.TrimSuffix(tok, "@scrubbed.invalid")
	cases := []struct{ name, ct, plain, encoded string }{
		{"html", "text/html; charset=utf-8", `<p>Signed in as jane+x@example.com</p>`, `<p>Signed in as jane&#43;x@example.com</p>`},
		{"html hex", "text/html", `<td>jane+x@example.com</td>`, `<td>jane&#x2B;x&#x40;example.com</td>`},
		{"javascript", "application/javascript", `window.user="jane+x@example.com";`, `window.user="jane\u002bx\u0040example.com";`},
		{"json by content", "application/json", `{"note":"jane+x@example.com"}`, `{"note":"jane\u002bx@example.com"}`},
		{"json by key", "application/json", `{"email":"jane+x@example.com"}`, `{"email":"jane&#43;x@example.com"}`},
		{"json html inside", "application/json", `{"html":"<b>jane+x@example.com</b>"}`, `{"html":"<b>jane&#43;x@example.com</b>"}`},
		{"form", "application/x-www-form-urlencoded", `email=jane%2Bx%40example.com&seats=10`, `email=jane%26%2343%3Bx%40example.com&seats=10`},
		{"form by content", "application/x-www-form-urlencoded", `note=jane%2Bx%40example.com`, `note=jane%26%2343%3Bx%40example.com`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, e := string(s.Body(c.ct, []byte(c.plain))), string(s.Body(c.ct, []byte(c.encoded)))
			for _, out := range []string{p, e} {
				if strings.Contains(out, "jane") || strings.Contains(out, "example.com") {
					t.Fatalf("the address stays in %q", out)
				}
				if !strings.Contains(out, bare) {
					t.Fatalf("%q does not carry the address's token %s", out, tok)
				}
			}
		})
	}
}

// TestExtraValueEncoded: a value found by its key (an extra value) is
// replaced where a page shows it encoded, with the same token.
func TestExtraValueEncoded(t *testing.T) {
	s := New([]byte("k"), nil)
	tok := s.valueToken("Jane O'Brien")
	for _, in := range []string{"<p>Jane O'Brien</p>", "<p>Jane O&#39;Brien</p>", "<p>Jane O&apos;Brien</p>", `{"n":"Jane O\u0027Brien"}`} {
		out := s.TextWith(in, []string{"Jane O'Brien"})
		if strings.Contains(out, "Brien") || !strings.Contains(out, tok) {
			t.Errorf("%q -> %q, want token %s", in, out, tok)
		}
		if enc := s.TextWith(in, []string{"Jane O&#39;Brien"}); enc != out {
			t.Errorf("the extra value's spelling changes the scrub: %q vs %q", enc, out)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{"jane&#43;x@example.com", "&#x2B;&plus;%2B\\u002b\\ud83d\\ude00", "&ampx; %zz \\u12 &#;", "&#99999999;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		d := decode(in)
		for i := 0; i < len(d.text); i++ {
			for j := i + 1; j <= len(d.text) && j <= i+8; j++ {
				from, to := d.origin(i, j)
				if from < 0 || to > len(in) || from >= to {
					t.Fatalf("origin(%d, %d) = [%d, %d) of %q", i, j, from, to, in)
				}
			}
		}
		if !strings.ContainsAny(in, encodingMarks) && d.text != in {
			t.Fatalf("decoded %q to %q", in, d.text)
		}
	})
}

// TestTypedValueInLink: a typed address (an extra value) that a link
// carries URL-encoded is replaced with its token URL-encoded, as the
// e-mail rule writes it: the page a replay serves (scrubbed) and the
// page the capture saw scrub alike.
func TestTypedValueInLink(t *testing.T) {
	s := New([]byte("k"), nil)
	const email = "procurement@example.com"
	enc := strings.Replace(s.Token(email), "@", "%40", 1)
	link := `<a href="/checkout?plan=team&amp;email=procurement%40example.com&amp;vat_id=">Edit</a>`
	want := strings.Replace(link, "procurement%40example.com", enc, 1)
	for _, got := range []string{s.TextWith(link, []string{email}), s.Text(link), s.TextWith(string(s.Body("text/html", []byte(link))), []string{email})} {
		if got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}
