package scrub

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// Scrubber replaces sensitive values with tokens. Safe for concurrent use.
type Scrubber struct {
	key     []byte
	secrets []string // longest first
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
	for _, v := range secrets {
		if len(v) >= 3 {
			s.secrets = append(s.secrets, v)
		}
	}
	sort.Slice(s.secrets, func(i, j int) bool { return len(s.secrets[i]) > len(s.secrets[j]) })
	return s
}

var tokenRE = regexp.MustCompile(`^tok_[0-9a-f]{16}(@scrubbed\.invalid)?$`)

// tokenDomain keeps tokens of e-mail addresses valid e-mail addresses, so
// a replay that types them still passes a form's type=email validation.
const tokenDomain = "@scrubbed.invalid"

// IsToken reports whether v is already a token.
func IsToken(v string) bool { return tokenRE.MatchString(v) }

// Token returns the token for a value. Tokens are left as they are, so
// scrubbing is idempotent: what was scrubbed once (a recorded body, a
// typed token during replay) scrubs to itself under any key.
func (s *Scrubber) Token(v string) string {
	if IsToken(v) {
		return v
	}
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(v))
	tok := "tok_" + hex.EncodeToString(m.Sum(nil))[:16]
	if emailRE.MatchString(v) && emailRE.FindString(v) == v {
		tok += tokenDomain
	}
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
				parts[0] = k + "=" + s.cookieValue(v)
			}
			lines[i] = strings.Join(parts, ";")
		}
		return strings.Join(lines, "\n")
	case "cookie":
		parts := strings.Split(value, ";")
		for i, p := range parts {
			if k, v, ok := strings.Cut(p, "="); ok {
				parts[i] = k + "=" + s.cookieValue(v)
			}
		}
		return strings.Join(parts, ";")
	}
	if sensitiveHeaders[strings.ToLower(name)] {
		return s.Token(value)
	}
	return s.Text(value)
}

// cookieValue tokenizes a cookie value, keeping short flag-like values
// (A/B variants, "1") that carry no identity.
func (s *Scrubber) cookieValue(v string) string {
	if len(strings.TrimSpace(v)) <= 2 {
		return v
	}
	return s.Token(v)
}

// piiKey matches keys whose values are personal data or credentials. A
// bare "name" is left out on purpose: in structured data it names plans,
// products and fields far more often than people.
var piiKey = regexp.MustCompile(`(?i)(e-?mail|phone|mobile|tel$|first_?name|last_?name|full_?name|address|street|postcode|zip|card|^cc|cvc|cvv|iban|passw|secret|token|ssn|birth)`)

// SensitiveKey reports whether a field or parameter name names personal
// data or credentials.
func SensitiveKey(k string) bool { return piiKey.MatchString(k) }

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
				dv = s.Token(dv)
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
	emailRE = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}`)
	// encodedEmailRE finds e-mail addresses URL-encoded in links and
	// query strings (name%40example.com).
	encodedEmailRE = regexp.MustCompile(`(?i)[A-Za-z0-9._+\-]+%40[A-Za-z0-9.\-]+\.[A-Za-z]{2,}`)
	cardRE         = regexp.MustCompile(`\b(?:\d[ -]?){12,18}\d\b`)
	phoneRE        = regexp.MustCompile(`\+\d[\d ().\-]{7,}\d`)
)

// Text scrubs free text: secrets, e-mail addresses, Luhn-valid card
// numbers and international phone numbers.
func (s *Scrubber) Text(t string) string { return s.TextWith(t, nil) }

// TextWith scrubs text like Text and also replaces the extra values (form
// field values found under sensitive names, say) with their tokens.
func (s *Scrubber) TextWith(t string, extra []string) string {
	for _, v := range extra {
		if len(v) >= 3 && !IsToken(v) && strings.Contains(t, v) {
			t = strings.ReplaceAll(t, v, s.Token(v))
		}
	}
	for _, sec := range s.secrets {
		if strings.Contains(t, sec) {
			t = strings.ReplaceAll(t, sec, s.Token(sec))
		}
	}
	t = emailRE.ReplaceAllStringFunc(t, s.Token)
	t = encodedEmailRE.ReplaceAllStringFunc(t, func(m string) string {
		dec := strings.Replace(m, "%40", "@", 1)
		return strings.Replace(s.Token(dec), "@", "%40", 1)
	})
	t = cardRE.ReplaceAllStringFunc(t, func(m string) string {
		digits := strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, m)
		if len(digits) >= 13 && len(digits) <= 19 && Luhn(digits) {
			return s.Token(digits)
		}
		return m
	})
	t = phoneRE.ReplaceAllStringFunc(t, s.Token)
	return t
}

// Body scrubs an HTTP body by its content type: JSON by key and content,
// form data like a query string, other text as text; binary bodies (images,
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
			return s.Token(x)
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
