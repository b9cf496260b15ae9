package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// MaxDepth is the deepest nesting of JSON arrays and objects that Canonical
// accepts. Business intents are shallow; deeper input is refused rather than
// recursed into.
const MaxDepth = 128

var (
	errDuplicateKey = errors.New("duplicate object key")
	errTooDeep      = errors.New("nesting deeper than MaxDepth")
	errTrailing     = errors.New("trailing data after the value")
)

// Canonical returns the canonical form of one JSON value: no insignificant
// whitespace, object members sorted by the UTF-8 bytes of their keys, numbers
// kept exactly as written (decoded with UseNumber, never through float64, so
// 10 and 10.0 stay different), strings re-encoded with only '"', '\\' and
// control characters escaped (\b \f \n \r \t or \u00xx) and invalid UTF-8
// replaced by U+FFFD. Canonical is idempotent: Canonical(Canonical(x)) equals
// Canonical(x).
//
// It fails with an error wrapping ErrInvalidJSON when raw is not exactly one
// JSON value (empty input, syntax errors, trailing data), when an object has
// the same key twice (an ambiguous business intent), or when nesting exceeds
// MaxDepth.
func Canonical(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var buf bytes.Buffer
	buf.Grow(len(raw))
	if err := canonValue(dec, &buf, 0); err != nil {
		if errors.Is(err, io.EOF) {
			err = errors.New("empty input")
		}
		return nil, fmt.Errorf("%w: %w", ErrInvalidJSON, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: %w", ErrInvalidJSON, errTrailing)
	}
	return buf.Bytes(), nil
}

// Digest returns the canonical form of payload and the lowercase hex sha256
// of that canonical form. Errors are those of Canonical.
func Digest(payload []byte) (canonical []byte, sha string, err error) {
	canonical, err = Canonical(payload)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(canonical)
	return canonical, hex.EncodeToString(sum[:]), nil
}

// IdempotencyKey returns "commit:<site>:<flow>:<payload_sha256>", the key
// under which the committer records a purchase. The key depends only on the
// business intent, never on the path that reached it; a user who wants a
// second identical purchase puts a nonce in the payload. It fails with
// ErrInvalid for an empty site or flow and with ErrInvalidJSON for a payload
// Canonical refuses.
func IdempotencyKey(site, flow string, payload json.RawMessage) (string, error) {
	if site == "" || flow == "" {
		return "", fmt.Errorf("%w: site and flow must not be empty", ErrInvalid)
	}
	_, sha, err := Digest(payload)
	if err != nil {
		return "", err
	}
	return "commit:" + site + ":" + flow + ":" + sha, nil
}

type member struct {
	key string
	val []byte
}

func canonValue(dec *json.Decoder, buf *bytes.Buffer, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= MaxDepth {
			return errTooDeep
		}
		switch t {
		case '{':
			return canonObject(dec, buf, depth)
		case '[':
			return canonArray(dec, buf, depth)
		default:
			return fmt.Errorf("unexpected %q", rune(t))
		}
	case string:
		writeString(buf, t)
	case json.Number:
		buf.WriteString(t.String())
	case bool:
		if t {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
	case nil:
		buf.WriteString("null")
	default:
		return fmt.Errorf("unexpected token %T", tok)
	}
	return nil
}

func canonObject(dec *json.Decoder, buf *bytes.Buffer, depth int) error {
	var members []member
	seen := make(map[string]struct{})
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("object key is %T, not a string", tok)
		}
		if _, dup := seen[key]; dup {
			return fmt.Errorf("%w %q", errDuplicateKey, key)
		}
		seen[key] = struct{}{}
		var val bytes.Buffer
		if err := canonValue(dec, &val, depth+1); err != nil {
			return err
		}
		members = append(members, member{key: key, val: val.Bytes()})
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return err
	}
	slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
	buf.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeString(buf, m.key)
		buf.WriteByte(':')
		buf.Write(m.val)
	}
	buf.WriteByte('}')
	return nil
}

func canonArray(dec *json.Decoder, buf *bytes.Buffer, depth int) error {
	buf.WriteByte('[')
	for i := 0; dec.More(); i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := canonValue(dec, buf, depth+1); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing ']'
		return err
	}
	buf.WriteByte(']')
	return nil
}

const hexDigits = "0123456789abcdef"

// writeString writes s as a canonical JSON string. s comes from the decoder,
// so it is valid UTF-8 (invalid bytes were replaced by U+FFFD).
func writeString(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			buf.WriteString(`\"`)
		case c == '\\':
			buf.WriteString(`\\`)
		case c == '\b':
			buf.WriteString(`\b`)
		case c == '\f':
			buf.WriteString(`\f`)
		case c == '\n':
			buf.WriteString(`\n`)
		case c == '\r':
			buf.WriteString(`\r`)
		case c == '\t':
			buf.WriteString(`\t`)
		case c < 0x20:
			buf.WriteString(`\u00`)
			buf.WriteByte(hexDigits[c>>4])
			buf.WriteByte(hexDigits[c&0xf])
		default:
			buf.WriteByte(c)
		}
	}
	buf.WriteByte('"')
}

// quote returns s as a canonical JSON string. s must be valid UTF-8; all
// strings the ledger quotes itself (ids, keys, states, times, hashes) are.
func quote(s string) string {
	var b bytes.Buffer
	writeString(&b, strings.ToValidUTF8(s, "\uFFFD"))
	return b.String()
}
