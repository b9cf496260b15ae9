package scrub

import (
	"html"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// decoded is a text read through the encodings a page or a request
// writes a value in: HTML character references (decimal &#43;, hex
// &#x2B;, named &plus; &commat; &period; &amp;, as html.UnescapeString
// reads them), JSON and JavaScript \uXXXX escapes (surrogate pairs
// joined), and percent-encoding (%2B, %40). The rules of what is personal
// run on its text, so "jane&#43;x&#64;example.com" is the address
// "jane+x@example.com" whole, and is replaced whole in the original.
//
// Decoding is one level deep: "&amp;#43;" reads as "&#43;", which is what
// a browser shows for it.
type decoded struct {
	text string
	// units are the encoded stretches of the original, in order: the
	// bytes [at, at+n) of text were decoded from [from, to) of the
	// original. A byte outside every unit is itself, shifted.
	units []unit
}

type unit struct{ at, n, from, to int }

// encodingMarks are the bytes every encoding starts with: a text
// holding none of them reads as itself.
const encodingMarks = "&%\\"

// decode reads t through its encodings (see decoded).
func decode(t string) decoded {
	if !strings.ContainsAny(t, encodingMarks) {
		return decoded{text: t}
	}
	var b strings.Builder
	b.Grow(len(t))
	var units []unit
	for i := 0; i < len(t); {
		j := strings.IndexAny(t[i:], encodingMarks)
		if j < 0 {
			b.WriteString(t[i:])
			break
		}
		b.WriteString(t[i : i+j])
		i += j
		dec, n := decodeUnit(t[i:])
		if n == 0 {
			b.WriteByte(t[i])
			i++
			continue
		}
		units = append(units, unit{at: b.Len(), n: len(dec), from: i, to: i + n})
		b.WriteString(dec)
		i += n
	}
	return decoded{text: b.String(), units: units}
}

// decodeUnit decodes the encoded unit t starts with: what it stands for
// and its length in t, 0 when t does not start with one.
func decodeUnit(t string) (string, int) {
	switch t[0] {
	case '&':
		if m := numericRef(t); m != "" {
			return html.UnescapeString(m), len(m)
		}
		if m := namedRef(t); m != "" {
			// A reference html knows decodes to one or two runes; one it
			// reads only a prefix of ("&ampx;" -> "&x;") leaves more.
			if r := html.UnescapeString(m); r != m && utf8.RuneCountInString(r) <= 2 {
				return r, len(m)
			}
		}
	case '%':
		if len(t) >= 3 && isHex(t[1]) && isHex(t[2]) {
			v, _ := strconv.ParseUint(t[1:3], 16, 8)
			return string([]byte{byte(v)}), 3
		}
	case '\\':
		if !jsonEscape(t) {
			break
		}
		r1 := hex4(t[2:6])
		if utf16.IsSurrogate(r1) {
			if jsonEscape(t[6:]) {
				if r := utf16.DecodeRune(r1, hex4(t[8:12])); r != utf8.RuneError {
					return string(r), 12
				}
			}
			return "", 0 // a lone surrogate stands for nothing
		}
		return string(r1), 6
	}
	return "", 0
}

// numericRef is the numeric character reference t starts with ("&#43;",
// "&#x2B;", "&#43" without its ";"), "" when none.
func numericRef(t string) string {
	if len(t) < 3 || t[1] != '#' {
		return ""
	}
	i, digit := 2, isDigit
	if t[2] == 'x' || t[2] == 'X' {
		i, digit = 3, isHex
	}
	j := i
	for j < len(t) && j-i < 8 && digit(t[j]) {
		j++
	}
	if j == i {
		return ""
	}
	if j < len(t) && t[j] == ';' {
		j++
	}
	return t[:j]
}

// namedRef is the named character reference t starts with, its ";"
// included ("&plus;"), "" when none.
func namedRef(t string) string {
	j := 1
	for j < len(t) && j <= 32 && (isLetter(t[j]) || j > 1 && isDigit(t[j])) {
		j++
	}
	if j == 1 || j >= len(t) || t[j] != ';' {
		return ""
	}
	return t[:j+1]
}

// jsonEscape reports whether t starts with a \uXXXX escape.
func jsonEscape(t string) bool {
	return len(t) >= 6 && t[0] == '\\' && t[1] == 'u' && isHex(t[2]) && isHex(t[3]) && isHex(t[4]) && isHex(t[5])
}

func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func hex4(s string) rune {
	v, _ := strconv.ParseUint(s, 16, 16)
	return rune(v)
}

// origin returns the span of the original text that text[i:j] was
// decoded from (i < j); an encoded unit is always taken whole.
func (d decoded) origin(i, j int) (from, to int) {
	return d.start(i), d.start(j-1) + d.width(j-1)
}

// start is where the original spelling of text's byte i starts.
func (d decoded) start(i int) int {
	k := sort.Search(len(d.units), func(k int) bool { return d.units[k].at > i }) - 1
	if k < 0 {
		return i
	}
	u := d.units[k]
	if i < u.at+u.n {
		return u.from
	}
	return u.to + i - (u.at + u.n)
}

// width is the length of the original spelling of text's byte i.
func (d decoded) width(i int) int {
	k := sort.Search(len(d.units), func(k int) bool { return d.units[k].at > i }) - 1
	if k >= 0 && i < d.units[k].at+d.units[k].n {
		return d.units[k].to - d.units[k].from
	}
	return 1
}

// plain is v read through its encodings: the form a personal value is
// tokenized in, so that every spelling of it has one token.
func plain(v string) string { return decode(v).text }

// replaceDecoded replaces the matches of re in t's decoded text, each
// with what repl returns for the match (decoded) and its original
// spelling, in the original: a value written partly or wholly encoded is
// replaced whole. need, when set, must be in the decoded text for
// anything to match (a cheap test before the pattern).
func replaceDecoded(t, need string, re *regexp.Regexp, repl func(dec, orig string) string) string {
	d := decode(t)
	if need != "" && !strings.Contains(d.text, need) {
		return t
	}
	return d.replace(t, re.FindAllStringIndex(d.text, -1), repl)
}

// replaceValue replaces every spelling of the values vs in t (each
// found in t's decoded text) with tok.
func replaceValue(t string, vs []string, tok string) string {
	d := decode(t)
	var ms [][]int
	for _, v := range vs {
		if v == "" {
			continue
		}
		for off := 0; ; {
			k := strings.Index(d.text[off:], v)
			if k < 0 {
				break
			}
			ms = append(ms, []int{off + k, off + k + len(v)})
			off += k + len(v)
		}
	}
	if len(ms) == 0 {
		return t
	}
	sort.Slice(ms, func(a, b int) bool { return ms[a][0] < ms[b][0] || ms[a][0] == ms[b][0] && ms[a][1] > ms[b][1] })
	return d.replace(t, ms, func(_, orig string) string { return spelledLike(orig, tok) })
}

// spelledLike writes a token where orig was: with its "@" as "%40" when
// orig's was (in a URL), so the capture of a page and the replay of the
// page the capture served write it alike; as it is otherwise.
func spelledLike(orig, tok string) string {
	if strings.Contains(orig, "%40") {
		return strings.Replace(tok, "@", "%40", 1)
	}
	return tok
}

// replace writes t with each match of the decoded text (ordered by
// start) replaced in its original spelling; a match overlapping an
// earlier one's spelling is skipped.
func (d decoded) replace(t string, ms [][]int, repl func(dec, orig string) string) string {
	if len(ms) == 0 {
		return t
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		if m[0] >= m[1] {
			continue
		}
		from, to := m[0], m[1]
		if len(d.units) > 0 {
			from, to = d.origin(m[0], m[1])
		}
		if from < last {
			continue
		}
		b.WriteString(t[last:from])
		b.WriteString(repl(d.text[m[0]:m[1]], t[from:to]))
		last = to
	}
	b.WriteString(t[last:])
	return b.String()
}
