package scrub

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"html"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Scrubber replaces sensitive values with tokens. Safe for concurrent use.
type Scrubber struct {
	key     []byte
	secrets []string // MinSubstring characters or more, longest first
	// short are the secrets shorter than MinSubstring, each with the
	// pattern that finds it where it is a whole value.
	short []shortSecret
	// mint notes the values a Minter view tokenizes; recall gives
	// recalled values their recorded tokens (WithRecall). Both nil on a
	// plain scrubber.
	mint   *minted
	recall *recaller
}

// MinSubstring is the length from which a secret is replaced wherever it
// occurs, inside any text. A shorter secret (a one- or two-character
// password, a PIN digit) would destroy unrelated text that way, so it is
// replaced only where it is a whole value: a whole quoted string (a JSON
// value, an HTML attribute, a canonical DOM text node or field value), a
// whole HTML text node, a whole query or form parameter value, a whole
// accessibility-snapshot scalar, or the whole text scrubbed. Those are
// the places a typed value travels: the field it was typed into, the
// request that sends it, the page that echoes it.
const MinSubstring = 3

type shortSecret struct {
	value string
	re    *regexp.Regexp
}

// NewKey returns a fresh random run key.
func NewKey() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
}

// New returns a scrubber with the run key and the task's secret values.
func New(key []byte, secrets []string) *Scrubber {
	s := &Scrubber{key: append([]byte{}, key...)}
	seen := map[string]bool{}
	for _, v := range secrets {
		switch {
		case v == "" || seen[v] || IsToken(v):
		case len(v) >= MinSubstring:
			s.secrets = append(s.secrets, v)
		default:
			s.short = append(s.short, shortSecret{value: v, re: wholeValueRE(v)})
		}
		seen[v] = true
	}
	sort.Slice(s.secrets, func(i, j int) bool { return len(s.secrets[i]) > len(s.secrets[j]) })
	return s
}

// wholeValueRE finds v where it is a whole value (see MinSubstring): in
// any of its spellings (raw, JSON-, HTML- and query-escaped), between a
// value's opening delimiter (the start of the text or of a line, a quote,
// the end of a tag, an "=", a YAML ": ") and its closing one (the end of
// the text or of a line, a quote, the start of a tag, an "&"), blanks
// around it allowed.
func wholeValueRE(v string) *regexp.Regexp {
	var alts []string
	for _, f := range spellings(v) {
		alts = append(alts, regexp.QuoteMeta(validRunes(f)))
	}
	return regexp.MustCompile(`(^|["'>=\n]|: )([ \t]*)(` + strings.Join(alts, "|") + `)([ \t]*)($|["'<&\r\n])`)
}

// spelled reports whether a match is one of the secret's spellings, byte
// for byte: a pattern reads every byte that is not UTF-8 as U+FFFD, so a
// secret holding such a byte matches others as well.
func (sh shortSecret) spelled(m string) bool {
	if utf8.ValidString(sh.value) {
		return true
	}
	for _, f := range spellings(sh.value) {
		if m == f {
			return true
		}
	}
	return false
}

// validRunes spells each byte of s that is not UTF-8 as U+FFFD, the rune
// a regexp reads it as: a secret holding such bytes still compiles into a
// pattern, and the pattern still finds it.
func validRunes(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r) // utf8.RuneError for a byte that is not UTF-8
		i += n
	}
	return b.String()
}

// spellings are v raw, JSON-, HTML- and query-escaped, each once.
func spellings(v string) []string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	js := strings.TrimSuffix(strings.TrimSpace(b.String()), `"`)
	js = strings.TrimPrefix(js, `"`)
	var out []string
	seen := map[string]bool{}
	for _, f := range []string{v, js, html.EscapeString(v), url.QueryEscape(v)} {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

// replaceShort replaces the short secrets where they are whole values.
func (s *Scrubber) replaceShort(t string) string {
	for _, sh := range s.short {
		ms := sh.re.FindAllStringSubmatchIndex(t, -1)
		if len(ms) == 0 {
			continue
		}
		var b strings.Builder
		last := 0
		tok := s.Token(sh.value)
		for _, m := range ms {
			if !sh.spelled(t[m[6]:m[7]]) {
				continue // other bytes that are not UTF-8 read as the same rune
			}
			b.WriteString(t[last:m[6]])
			b.WriteString(tok)
			last = m[7]
		}
		b.WriteString(t[last:])
		t = b.String()
	}
	return t
}

var (
	tokenRE = regexp.MustCompile(`^tok_[0-9a-f]{16}(@scrubbed\.invalid)?$`)
	// tokenInTextRE finds tokens inside text, e-mail tokens also in their
	// URL-encoded form.
	tokenInTextRE = regexp.MustCompile(`tok_[0-9a-f]{16}(?:@scrubbed\.invalid|%40scrubbed\.invalid)?`)
	// quotedTokenRE is a token quoted as a YAML scalar of its own.
	quotedTokenRE = regexp.MustCompile(`"(tok_[0-9a-f]{16}(?:@scrubbed\.invalid)?)"`)
)

// tokenDomain keeps tokens of e-mail addresses valid e-mail addresses, so
// a replay that types them still passes a form's type=email validation.
const tokenDomain = "@scrubbed.invalid"

// IsToken reports whether v is already a token.
func IsToken(v string) bool { return tokenRE.MatchString(v) }

// KeyCheck is a token that tells this scrubber's key from another
// without revealing it: a run manifest records it, and whoever matches
// the run's tokens later (a rerun's recorded world) checks its key by it.
func (s *Scrubber) KeyCheck() string { return s.Token("multiverse/scrub-key-check") }

// Token returns the token for a value. Tokens are left as they are, so
// scrubbing is idempotent: what was scrubbed once (a recorded body, a
// typed token during replay) scrubs to itself under any key.
func (s *Scrubber) Token(v string) string {
	if IsToken(v) {
		return v
	}
	if s.recall != nil {
		if tok, ok := s.recall.token(v); ok {
			return tok
		}
	}
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(v))
	tok := "tok_" + hex.EncodeToString(m.Sum(nil))[:16]
	if emailRE.MatchString(v) && emailRE.FindString(v) == v {
		tok += tokenDomain
	}
	s.note(v, tok)
	return tok
}

var sensitiveHeaders = map[string]bool{"authorization": true, "proxy-authorization": true, "cookie": true,
	"set-cookie": true, "x-csrf-token": true, "x-xsrf-token": true, "csrf-token": true, "x-api-key": true,
	"api-key": true, "x-auth-token": true}

// Header scrubs one header value. Cookies keep their names and
// attributes and lose their values, so a replay still sets and sends
// cookies of the same shape.
func (s *Scrubber) Header(name, value string) string {
	switch strings.ToLower(name) {
	case "set-cookie":
		lines := strings.Split(value, "\n")
		for i, l := range lines {
			parts := strings.Split(l, ";")
			if k, v, ok := strings.Cut(parts[0], "="); ok {
				parts[0] = k + "=" + s.Stored(k, v)
			}
			lines[i] = strings.Join(parts, ";")
		}
		return strings.Join(lines, "\n")
	case "cookie":
		parts := strings.Split(value, ";")
		for i, p := range parts {
			if k, v, ok := strings.Cut(p, "="); ok {
				parts[i] = k + "=" + s.Stored(strings.TrimSpace(k), v)
			}
		}
		return strings.Join(parts, ";")
	}
	if sensitiveHeaders[strings.ToLower(name)] {
		return s.Token(value)
	}
	if urlHeaders[strings.ToLower(name)] {
		return s.URL(value)
	}
	return s.Text(value)
}

// urlHeaders carry a URL, scrubbed as one (parameters by key too): a
// Referer repeats the query of the page before.
var urlHeaders = map[string]bool{"referer": true, "location": true, "content-location": true}

// Stored scrubs a value a browser stores under a name (a cookie, a local
// storage entry): a credential (Credential) becomes its token, any other
// value is scrubbed as text. A user id, a language or a variant stays as
// the page's scripts read it, in the recorded cookie headers and in the
// state a replay starts from alike.
func (s *Scrubber) Stored(name, v string) string {
	if Credential(name, v) {
		return s.Token(v)
	}
	return s.Text(v)
}

// The patterns of what is personal, as regular expression sources that
// mean the same in Go (RE2) and in a page's JavaScript: the scrubber
// compiles them here, and the browser hands the same sources to the
// script that finds what a screenshot must mask (see PagePatterns).
const (
	// keySource matches keys whose values are personal data or
	// credentials (case-insensitive). A bare "name" is left out on
	// purpose: in structured data it names plans, products and fields far
	// more often than people.
	keySource = `(e-?mail|phone|mobile|tel$|first_?name|last_?name|full_?name|address|street|postcode|zip|card|^cc|cvc|cvv|iban|passw|secret|token|ssn|birth)`
	// fieldSource matches the name, id or autocomplete hint of a form
	// field holding personal data or credentials (case-insensitive): the
	// keys above, a field named just "name", and the autocomplete tokens
	// of names, phones, addresses, cards and birthdays.
	fieldSource = keySource + `|^name$|(^|\s)(name|given-name|additional-name|family-name|nickname|username|tel|tel-[a-z-]+|postal-code|cc-[a-z-]+|bday|bday-[a-z]+|one-time-code)$`
	emailSource = `[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}`
	// encodedEmailSource finds e-mail addresses URL-encoded in links and
	// query strings (name%40example.com, first%2Blast%40example.com).
	encodedEmailSource = `(?:[A-Za-z0-9._+\-]|%2[Bb])+%40[A-Za-z0-9.\-]+\.[A-Za-z]{2,}`
	cardSource         = `\b(?:\d[ -]?){12,18}\d\b`
	phoneSource        = `\+\d[\d ().\-]{7,}\d`
	// userinfoSource finds the credentials of a URL written in text
	// (scheme://user:password@host): the first group is the user info.
	userinfoSource = `\b[A-Za-z][A-Za-z0-9+.\-]*://([^\s/?#@"'<>]+)@`
)

var (
	piiKey   = regexp.MustCompile(`(?i)` + keySource)
	piiField = regexp.MustCompile(`(?i)` + fieldSource)
)

// cardMinDigits and cardMaxDigits bound the digit count of a card number.
const (
	cardMinDigits = 13
	cardMaxDigits = 19
)

// Patterns are the scrubber's rules of what is personal, as regular
// expression sources valid in Go and JavaScript alike (flags apart: Field
// is case-insensitive, the others match as written). A page
// script given them finds exactly what Text and SensitiveField find.
type Patterns struct {
	Field        string   `json:"field"`
	FieldTypes   []string `json:"field_types"`
	Email        string   `json:"email"`
	EncodedEmail string   `json:"encoded_email"`
	Card         string   `json:"card"`
	Phone        string   `json:"phone"`
	Userinfo     string   `json:"userinfo"`
	// CardMinDigits and CardMaxDigits bound a card number's digit count;
	// its digits must also pass the Luhn check.
	CardMinDigits int `json:"card_min_digits"`
	CardMaxDigits int `json:"card_max_digits"`
	// MinSubstring: known values this long or longer count anywhere in a
	// text, shorter ones only as a whole (trimmed) value.
	MinSubstring int `json:"min_substring"`
}

// PagePatterns returns the patterns for a page script.
func PagePatterns() Patterns {
	return Patterns{Field: fieldSource, FieldTypes: append([]string(nil), fieldTypes...),
		Email: emailSource, EncodedEmail: encodedEmailSource, Card: cardSource, Phone: phoneSource,
		Userinfo: userinfoSource, CardMinDigits: cardMinDigits, CardMaxDigits: cardMaxDigits, MinSubstring: MinSubstring}
}

// fieldTypes are the input types that always hold personal data or
// credentials.
var fieldTypes = []string{"email", "tel", "password"}

// SensitiveKey reports whether a field or parameter name names personal
// data or credentials.
func SensitiveKey(k string) bool { return piiKey.MatchString(k) }

// SensitiveField reports whether a form field holds personal data or
// credentials by what it declares: its input type (email, tel,
// password), or a name, id or autocomplete hint that names personal data
// (email, tel, cc-number, name, street-address, ...).
func SensitiveField(typ, name, id, autocomplete string) bool {
	typ = strings.ToLower(typ)
	for _, t := range fieldTypes {
		if typ == t {
			return true
		}
	}
	for _, v := range []string{name, id, autocomplete} {
		if v != "" && piiField.MatchString(v) {
			return true
		}
	}
	return false
}

// URL scrubs query parameters by key and by content.
func (s *Scrubber) URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return s.Text(raw)
	}
	if u.User != nil {
		u.User = url.User(s.Token(u.User.String()))
	}
	if u.RawQuery != "" {
		q := u.Query()
		keys := make([]string, 0, len(q))
		for k := range q {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		// Keep the original parameter order.
		for _, kv := range strings.Split(u.RawQuery, "&") {
			k, v, _ := strings.Cut(kv, "=")
			dk, err1 := url.QueryUnescape(k)
			dv, err2 := url.QueryUnescape(v)
			if err1 != nil || err2 != nil {
				parts = append(parts, s.Text(kv))
				continue
			}
			if SensitiveKey(dk) && dv != "" {
				dv = s.valueToken(dv)
			} else {
				dv = s.Text(dv)
			}
			parts = append(parts, url.QueryEscape(dk)+"="+url.QueryEscape(dv))
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	u.Path = s.Text(u.Path)
	u.RawPath = ""
	return u.String()
}

var (
	emailRE    = regexp.MustCompile(emailSource)
	cardRE     = regexp.MustCompile(cardSource)
	phoneRE    = regexp.MustCompile(phoneSource)
	userinfoRE = regexp.MustCompile(userinfoSource)
)

// Text scrubs free text: secrets, e-mail addresses, Luhn-valid card
// numbers, international phone numbers and the credentials of URLs.
func (s *Scrubber) Text(t string) string { return s.TextWith(t, nil) }

// TextWith scrubs text like Text and also replaces the extra values (form
// field values found under sensitive names, say) with their tokens.
//
// Each rule works on the text between the tokens already in it, so a
// later rule never rewrites part of a token (a three-digit secret inside
// a token's hex digits, a token's "@" read as an e-mail address). Secrets,
// extra values, e-mail addresses, card and phone numbers are found in the
// text read through its encodings (HTML character references, \uXXXX
// escapes, percent-encoding; see decoded) and replaced whole, with the
// token of their plain form: "jane&#43;x@example.com" and
// "jane+x@example.com" are one address with one token, and nothing of
// it stays.
func (s *Scrubber) TextWith(t string, extra []string) string {
	t = s.replaceShort(t)
	encoded := strings.ContainsAny(t, encodingMarks)
	for _, v := range extra {
		pv := plain(v)
		if len(v) >= MinSubstring && !IsToken(v) && (encoded || strings.Contains(t, v) || strings.Contains(t, pv)) {
			tok := s.Token(pv)
			t = outsideTokens(t, func(g string) string { return replaceValue(strings.ReplaceAll(g, v, tok), []string{v, pv}, tok) })
		}
	}
	for _, sec := range s.secrets {
		if encoded || strings.Contains(t, sec) {
			tok := s.Token(sec)
			t = outsideTokens(t, func(g string) string { return replaceValue(strings.ReplaceAll(g, sec, tok), []string{sec}, tok) })
		}
	}
	if strings.Contains(t, "://") {
		t = outsideTokens(t, func(g string) string {
			return replaceSubmatch(userinfoRE, g, func(ui string) string { return s.Token(ui) })
		})
	}
	t = outsideTokens(t, func(g string) string {
		return replaceDecoded(g, "@", emailRE, func(dec, orig string) string { return spelledLike(orig, s.Token(dec)) })
	})
	t = outsideTokens(t, func(g string) string {
		return replaceDecoded(g, "", cardRE, func(dec, orig string) string {
			if digits := CardDigits(dec); digits != "" {
				return s.Token(digits)
			}
			return orig
		})
	})
	t = outsideTokens(t, func(g string) string {
		return replaceDecoded(g, "+", phoneRE, func(dec, _ string) string { return s.Token(dec) })
	})
	return t
}

// valueToken is the token of a value found by its key or given as an
// extra value: the token of its plain form (see plain), so that a value
// a page wrote encoded and the same value written plain have one token.
func (s *Scrubber) valueToken(v string) string { return s.Token(plain(v)) }

// CardDigits returns the digits of a card-like match when they make a
// card number (13 to 19 digits passing the Luhn check), else "".
func CardDigits(m string) string {
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, m)
	if len(digits) >= cardMinDigits && len(digits) <= cardMaxDigits && Luhn(digits) {
		return digits
	}
	return ""
}

// outsideTokens applies f to the stretches of t between tokens.
func outsideTokens(t string, f func(string) string) string {
	locs := tokenInTextRE.FindAllStringIndex(t, -1)
	if len(locs) == 0 {
		return f(t)
	}
	var b strings.Builder
	last := 0
	for _, l := range locs {
		b.WriteString(f(t[last:l[0]]))
		b.WriteString(t[l[0]:l[1]])
		last = l[1]
	}
	b.WriteString(f(t[last:]))
	return b.String()
}

// replaceSubmatch replaces the first group of each match of re in t.
func replaceSubmatch(re *regexp.Regexp, t string, f func(string) string) string {
	ms := re.FindAllStringSubmatchIndex(t, -1)
	if len(ms) == 0 {
		return t
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(t[last:m[2]])
		b.WriteString(f(t[m[2]:m[3]]))
		last = m[3]
	}
	b.WriteString(t[last:])
	return b.String()
}

// Aria scrubs an accessibility snapshot (Playwright's YAML) like TextWith
// and then writes every scalar that is a token alone unquoted. YAML quotes
// a value by its shape ("48291" is quoted, being a number; a token never
// is), so without this a recorded snapshot that scrubbed a quoted value
// and a replay that typed the token would differ in quotes only.
func (s *Scrubber) Aria(t string, extra []string) string {
	t = s.TextWith(t, extra)
	if strings.Contains(t, `"tok_`) {
		t = quotedTokenRE.ReplaceAllString(t, "$1")
	}
	return t
}

// Body scrubs an HTTP body by its content type: JSON by key and content,
// form data like a query string, HTML by its form fields and meta tags
// (htmlValues) and as text, other text as text; binary bodies (images,
// fonts, PDFs) are returned unchanged.
//
// When the content type is missing (browsers do not always report it for
// a request body) the body is sniffed, so the capture and a replay treat
// the same bytes the same way.
func (s *Scrubber) Body(contentType string, b []byte) []byte {
	out, _ := s.BodyValues(contentType, b)
	return out
}

// BodyValues scrubs a body like Body and also returns the values it
// replaced because of their key (not their shape): a page that renders
// them shows them raw, so whoever hashes that page must scrub them there
// too.
func (s *Scrubber) BodyValues(contentType string, b []byte) ([]byte, []string) {
	ct := strings.ToLower(contentType)
	if ct == "" || strings.HasPrefix(ct, "text/plain") {
		ct = sniff(b)
	}
	switch {
	case strings.Contains(ct, "json"):
		return s.jsonValues(b)
	case strings.Contains(ct, "x-www-form-urlencoded"):
		u := s.URL("http://form/?" + string(b))
		if i := strings.IndexByte(u, '?'); i >= 0 {
			return []byte(u[i+1:]), nil
		}
		return []byte(s.Text(string(b))), nil
	case strings.Contains(ct, "html"):
		return s.htmlValues(b)
	case strings.HasPrefix(ct, "text/"), strings.Contains(ct, "javascript"), strings.Contains(ct, "xml"), ct == "":
		return []byte(s.Text(string(b))), nil
	}
	return b, nil
}

var formRE = regexp.MustCompile(`^[^=&\s]+=[^&\s]*(&[^=&\s]+=[^&\s]*)*$`)

func sniff(b []byte) string {
	t := strings.TrimSpace(string(b))
	switch {
	case strings.HasPrefix(t, "{") || strings.HasPrefix(t, "["):
		return "application/json"
	case formRE.MatchString(t):
		return "application/x-www-form-urlencoded"
	}
	return "text/plain"
}

// Luhn reports whether a digit string passes the Luhn checksum.
func Luhn(digits string) bool {
	sum, double := 0, false
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if d < 0 || d > 9 {
			return false
		}
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// JSON scrubs a JSON document: values under sensitive keys become tokens,
// every other string is scrubbed as text. Invalid JSON is scrubbed as text.
func (s *Scrubber) JSON(b []byte) []byte {
	out, _ := s.jsonValues(b)
	return out
}

func (s *Scrubber) jsonValues(b []byte) ([]byte, []string) {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return []byte(s.Text(string(b))), nil
	}
	var byKey []string
	out, err := json.Marshal(s.value(v, false, &byKey))
	if err != nil {
		return []byte(s.Text(string(b))), nil
	}
	return out, byKey
}

func (s *Scrubber) value(v any, sensitive bool, byKey *[]string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = s.value(e, sensitive || SensitiveKey(k), byKey)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = s.value(e, sensitive, byKey)
		}
		return x
	case string:
		if sensitive && x != "" {
			if !IsToken(x) {
				*byKey = append(*byKey, x)
			}
			return s.valueToken(x)
		}
		return s.Text(x)
	case json.Number:
		if sensitive {
			*byKey = append(*byKey, x.String())
			return s.Token(x.String())
		}
		return x
	}
	return v
}
