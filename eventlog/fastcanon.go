package eventlog

import (
	"bytes"
	"unicode/utf8"
)

// isCanonical reports whether b is an object or array already in the
// canonical form CanonicalPayload produces, without decoding it. It is
// conservative: false sends the payload through the decode and encode
// path (escaped object keys, for example, always do), but true promises
// that path would return b unchanged.
func isCanonical(b []byte) bool {
	if len(b) == 0 || (b[0] != '{' && b[0] != '[') {
		return false
	}
	c := canonScanner{b: b}
	return c.value(0) && c.i == len(b)
}

// maxCanonDepth bounds the scanner's recursion; deeper payloads take the
// decoding path.
const maxCanonDepth = 64

type canonScanner struct {
	b []byte
	i int
}

func (c *canonScanner) value(depth int) bool {
	if c.i >= len(c.b) || depth > maxCanonDepth {
		return false
	}
	switch ch := c.b[c.i]; {
	case ch == '{':
		return c.object(depth)
	case ch == '[':
		return c.array(depth)
	case ch == '"':
		_, ok := c.str()
		return ok
	case ch == '-' || (ch >= '0' && ch <= '9'):
		return c.number()
	case ch == 't':
		return c.literal("true")
	case ch == 'f':
		return c.literal("false")
	case ch == 'n':
		return c.literal("null")
	}
	return false
}

func (c *canonScanner) literal(lit string) bool {
	if !bytes.HasPrefix(c.b[c.i:], []byte(lit)) {
		return false
	}
	c.i += len(lit)
	return true
}

// skip consumes ch when it is next.
func (c *canonScanner) skip(ch byte) bool {
	if c.i < len(c.b) && c.b[c.i] == ch {
		c.i++
		return true
	}
	return false
}

func (c *canonScanner) object(depth int) bool {
	c.i++ // '{'
	if c.skip('}') {
		return true
	}
	var prev []byte
	for n := 0; ; n++ {
		if c.i >= len(c.b) || c.b[c.i] != '"' {
			return false
		}
		key, ok := c.str()
		// Keys strictly ascending by bytes: sorted, no duplicates. An
		// escaped key's decoded bytes differ from its raw bytes.
		if !ok || bytes.IndexByte(key, '\\') >= 0 || (n > 0 && bytes.Compare(prev, key) >= 0) {
			return false
		}
		prev = key
		if !c.skip(':') || !c.value(depth+1) {
			return false
		}
		if c.skip('}') {
			return true
		}
		if !c.skip(',') {
			return false
		}
	}
}

func (c *canonScanner) array(depth int) bool {
	c.i++ // '['
	if c.skip(']') {
		return true
	}
	for {
		if !c.value(depth + 1) {
			return false
		}
		if c.skip(']') {
			return true
		}
		if !c.skip(',') {
			return false
		}
	}
}

// str scans a string and returns its raw contents (between the quotes).
// It accepts exactly what encoding/json writes with HTML escaping off:
// raw valid UTF-8 except control characters, U+2028 and U+2029; escapes
// \" \\ \b \f \n \r \t, and \u00xx (lower-case hex) for the other
// control characters, \u2028 and \u2029.
func (c *canonScanner) str() ([]byte, bool) {
	c.i++ // opening quote
	start := c.i
	for c.i < len(c.b) {
		ch := c.b[c.i]
		switch {
		case ch == '"':
			raw := c.b[start:c.i]
			c.i++
			return raw, true
		case ch == '\\':
			if c.i+1 >= len(c.b) {
				return nil, false
			}
			switch c.b[c.i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				c.i += 2
			case 'u':
				if c.i+6 > len(c.b) {
					return nil, false
				}
				hex := string(c.b[c.i+2 : c.i+6])
				if hex != "2028" && hex != "2029" && !shortControl(hex) {
					return nil, false
				}
				c.i += 6
			default:
				return nil, false
			}
		case ch < 0x20:
			return nil, false
		case ch < utf8.RuneSelf:
			c.i++
		default:
			r, size := utf8.DecodeRune(c.b[c.i:])
			if r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
				return nil, false
			}
			c.i += size
		}
	}
	return nil, false
}

// shortControl reports whether hex is how encoding/json writes a control
// character that has no short escape: "00" then two lower-case hex digits.
func shortControl(hex string) bool {
	if hex[0] != '0' || hex[1] != '0' {
		return false
	}
	v := 0
	for _, d := range hex[2:] {
		switch {
		case d >= '0' && d <= '9':
			v = v*16 + int(d-'0')
		case d >= 'a' && d <= 'f':
			v = v*16 + int(d-'a'+10)
		default:
			return false
		}
	}
	if v >= 0x20 {
		return false
	}
	switch v {
	case '\b', '\f', '\n', '\r', '\t':
		return false
	}
	return true
}

// number scans a JSON number literal (kept as written by the decoding
// path).
func (c *canonScanner) number() bool {
	b, i := c.b, c.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	c.i = i
	return true
}
