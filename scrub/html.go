package scrub

import (
	"bytes"
	"html"
	"io"
	"strings"

	xhtml "golang.org/x/net/html"
)

// htmlValues scrubs an HTML document: the values a page renders into
// its form fields and meta tags under a sensitive name become their
// tokens in place, then the whole text is scrubbed as Text does. It
// returns the values it replaced because of their name: the page shows
// them raw, so whoever hashes the page scrubs them there too.
//
// A field is sensitive as SensitiveField says (its type, name, id or
// autocomplete hint): a server-rendered form's hidden authenticity token,
// an e-mail or a name it fills in. A meta tag is sensitive when its
// content is a Credential under its name (a csrf-token meta). Values
// shorter than MinSubstring stay, as they stay in the page's scrubbed DOM.
//
// Scrubbing the body the same way as the DOM keeps a recording
// consistent with itself under any key: a strict replay's page renders
// the token the capture's DOM hash holds, and the form it submits sends
// the token the recorded request's scrubbed URL holds.
func (s *Scrubber) htmlValues(b []byte) ([]byte, []string) {
	var out bytes.Buffer
	var byKey []string
	z := xhtml.NewTokenizer(bytes.NewReader(b))
	pos, copied := 0, 0 // bytes read, bytes copied to out
	sensitiveText := false
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			if z.Err() != io.EOF {
				return []byte(s.Text(string(b))), nil
			}
			break
		}
		raw := z.Raw()
		start := pos
		pos += len(raw)
		var repl []byte
		switch tt {
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			// Only these three can hold a value: no other tag's
			// attributes are read.
			name := tagName(raw)
			if name != "input" && name != "meta" && name != "textarea" {
				sensitiveText = false
				break
			}
			attrs := tagAttrs(raw)
			if name == "textarea" {
				sensitiveText = tt == xhtml.StartTagToken && SensitiveField("", attrs.get("name"), attrs.get("id"), attrs.get("autocomplete"))
				break
			}
			var vals []string
			repl, vals = s.htmlTag(raw, name, attrs)
			byKey = append(byKey, vals...)
			sensitiveText = false
		case xhtml.TextToken:
			if sensitiveText {
				if v := html.UnescapeString(string(raw)); len(strings.TrimSpace(v)) >= MinSubstring && !IsToken(v) {
					byKey = append(byKey, v)
					repl = []byte(s.valueToken(v))
				}
			}
			sensitiveText = false
		default:
			sensitiveText = false
		}
		if repl != nil {
			out.Write(b[copied:start])
			out.Write(repl)
			copied = pos
		}
	}
	if len(byKey) == 0 {
		return []byte(s.Text(string(b))), nil
	}
	out.Write(b[copied:])
	return []byte(s.Text(out.String())), byKey
}

// htmlTag returns raw (an input or meta start tag, its attributes
// attrs) with its sensitive value replaced by its token, and the value;
// nil when nothing in it is sensitive.
func (s *Scrubber) htmlTag(raw []byte, name string, attrs tagAttrList) ([]byte, []string) {
	var target string
	switch name {
	case "input":
		if SensitiveField(attrs.get("type"), attrs.get("name"), attrs.get("id"), attrs.get("autocomplete")) {
			target = "value"
		}
	case "meta":
		if Credential(attrs.get("name"), attrs.get("content")) {
			target = "content"
		}
	}
	a, ok := attrs.find(target)
	if target == "" || !ok {
		return nil, nil
	}
	v := html.UnescapeString(string(raw[a.start:a.end]))
	if len(strings.TrimSpace(v)) < MinSubstring || IsToken(v) {
		return nil, nil
	}
	tok := s.valueToken(v)
	out := make([]byte, 0, len(raw)+len(tok))
	out = append(out, raw[:a.start]...)
	if !a.quoted {
		out = append(out, '"')
	}
	out = append(out, tok...)
	if !a.quoted {
		out = append(out, '"')
	}
	return append(out, raw[a.end:]...), []string{v}
}

// tagAttr is one attribute of a raw tag: its lower-cased name, its value
// and where the value is in the tag.
type tagAttr struct {
	name       string
	raw        string // the value, character references decoded
	start, end int
	quoted     bool
}

type tagAttrList []tagAttr

// find returns the first attribute named name (the one a browser keeps).
func (l tagAttrList) find(name string) (tagAttr, bool) {
	for _, a := range l {
		if a.name == name {
			return a, true
		}
	}
	return tagAttr{}, false
}

// get is the decoded value of the attribute named name, "" when absent.
func (l tagAttrList) get(name string) string {
	a, ok := l.find(name)
	if !ok {
		return ""
	}
	return a.raw
}

// tagName is the lower-cased name of a raw start tag.
func tagName(raw []byte) string {
	return strings.ToLower(string(raw[1:nameEnd(raw)]))
}

// nameEnd is where a raw start tag's name ends.
func nameEnd(raw []byte) int {
	i := 1
	for i < len(raw) && !isTagSpace(raw[i]) && raw[i] != '/' && raw[i] != '>' {
		i++
	}
	return i
}

// tagAttrs reads the attributes of a raw start tag ("<input type=hidden
// name='t' value=x>") as the HTML tokenizer reads them: names end at white
// space, "/", "=" or ">", values are double-quoted, single-quoted or end
// at white space or ">".
func tagAttrs(raw []byte) tagAttrList {
	i, n := nameEnd(raw), len(raw)
	var out tagAttrList
	for i < n {
		for i < n && (isTagSpace(raw[i]) || raw[i] == '/') {
			i++
		}
		if i >= n || raw[i] == '>' {
			break
		}
		k := i
		for i < n && !isTagSpace(raw[i]) && raw[i] != '/' && raw[i] != '=' && raw[i] != '>' {
			i++
		}
		if i == k { // a stray "=": skip it
			i++
			continue
		}
		a := tagAttr{name: strings.ToLower(string(raw[k:i]))}
		for i < n && isTagSpace(raw[i]) {
			i++
		}
		if i < n && raw[i] == '=' {
			i++
			for i < n && isTagSpace(raw[i]) {
				i++
			}
			if i < n && (raw[i] == '"' || raw[i] == '\'') {
				q := raw[i]
				i++
				a.start, a.quoted = i, true
				for i < n && raw[i] != q {
					i++
				}
				a.end = i
				if i < n {
					i++
				}
			} else {
				a.start = i
				for i < n && !isTagSpace(raw[i]) && raw[i] != '>' {
					i++
				}
				a.end = i
			}
		} else {
			a.start, a.end = i, i
		}
		out = append(out, a)
	}
	for j := range out {
		out[j].raw = html.UnescapeString(string(raw[out[j].start:out[j].end]))
	}
	return out
}

func isTagSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
