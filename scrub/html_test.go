package scrub

import (
	"bytes"
	"strings"
	"testing"
)

// TestHTMLBodies: a server-rendered page's sensitive field and meta values
// become their tokens in place, the rest of the document stays byte for
// byte, and the values come back for the page's DOM to be scrubbed alike.
func TestHTMLBodies(t *testing.T) {
	s := New([]byte("k"), nil)
	for _, tc := range []struct {
		name, in string
		// gone must not be in the output; kept must be, byte for byte.
		gone, kept []string
		vals       []string
	}{
		{name: "hidden authenticity token",
			in:   `<form><input type="hidden" name="authenticity_token" value="Zm9vYmFyYmF6"><input name="plan" value="Pro"></form>`,
			gone: []string{"Zm9vYmFyYmF6"}, kept: []string{`<input name="plan" value="Pro">`, `name="authenticity_token" value="tok_`},
			vals: []string{"Zm9vYmFyYmF6"}},
		{name: "unquoted and single-quoted values, upper-case names",
			in:   `<INPUT TYPE=hidden NAME=csrfmiddlewaretoken VALUE=abc123def456><input name='_token' value='x9y8z7w6'>`,
			gone: []string{"abc123def456", "x9y8z7w6"}, kept: []string{`VALUE="tok_`, `value='tok_`},
			vals: []string{"abc123def456", "x9y8z7w6"}},
		{name: "character references decoded before tokenizing",
			in:   `<input name="email" value="jane&#43;x@example.org">`,
			gone: []string{"jane", "example.org"}, kept: []string{`@scrubbed.invalid">`},
			vals: []string{"jane+x@example.org"}},
		{name: "a csrf meta tag; an ordinary one stays",
			in:   `<head><meta name="csrf-token" content="q1w2e3r4t5y6"><meta name="viewport" content="width=device-width, initial-scale=1"></head>`,
			gone: []string{"q1w2e3r4t5y6"}, kept: []string{`<meta name="viewport" content="width=device-width, initial-scale=1">`},
			vals: []string{"q1w2e3r4t5y6"}},
		{name: "a prefilled address textarea",
			in:   `<textarea name="street_address">1 Main Road</textarea><textarea name="notes">Leave at door</textarea>`,
			gone: []string{"1 Main Road"}, kept: []string{`<textarea name="notes">Leave at door</textarea>`},
			vals: []string{"1 Main Road"}},
		{name: "a script's markup is text, not a field",
			in:   `<script>const f = '<input name="token" value="keepme12">';</script>`,
			kept: []string{`'<input name="token" value="keepme12">'`}},
		{name: "short and empty values stay, as in the DOM",
			in:   `<input name="token" value="ab"><input name="email" value=""><input name="zip">`,
			kept: []string{`value="ab"`, `value=""`, `<input name="zip">`}},
		{name: "a token stays a token",
			in:   `<input name="token" value="tok_0123456789abcdef">`,
			kept: []string{`value="tok_0123456789abcdef"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, vals := s.BodyValues("text/html; charset=utf-8", []byte(tc.in))
			for _, g := range tc.gone {
				if bytes.Contains(out, []byte(g)) {
					t.Errorf("%q is still in %s", g, out)
				}
			}
			for _, k := range tc.kept {
				if !bytes.Contains(out, []byte(k)) {
					t.Errorf("%q is not in %s", k, out)
				}
			}
			if strings.Join(vals, "|") != strings.Join(tc.vals, "|") {
				t.Errorf("values %q, want %q", vals, tc.vals)
			}
			if again := s.Body("text/html", out); !bytes.Equal(again, out) {
				t.Errorf("not idempotent:\n%s\n%s", out, again)
			}
			// Another key leaves a scrubbed body as it is: a recording
			// replays the same under any key.
			if other := New([]byte("other"), nil).Body("text/html", out); !bytes.Equal(other, out) {
				t.Errorf("another key changed it:\n%s\n%s", out, other)
			}
		})
	}
}

// TestHTMLBodyUnchanged: a document with nothing sensitive comes back
// exactly as it was, whatever its markup's shape.
func TestHTMLBodyUnchanged(t *testing.T) {
	s := New([]byte("k"), nil)
	in := "<!doctype html><html><!-- c --><body a=1 b='2' c><p>Plan &amp; price</p><input name=q value=shoes><br/><img src=x alt=\"<y>\"></body></html><unclosed"
	out, vals := s.BodyValues("text/html", []byte(in))
	if string(out) != in || len(vals) != 0 {
		t.Errorf("changed: %s %q", out, vals)
	}
}
