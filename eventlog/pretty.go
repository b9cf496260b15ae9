package eventlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// prettyKeys are payload fields shown first, in this order, when present.
var prettyKeys = []string{
	"status", "outcome", "reason", "code", "error", "message", "type", "action",
	"method", "url", "title", "score", "progress", "budget", "amount", "cost", "key", "parent_id",
}

const (
	prettyMaxFields = 6
	prettyMaxValue  = 60 // runes
)

// Pretty renders e as one human-readable line for the CLI:
//
//	2026-03-01T10:00:00.123Z #12 action_end    br:…c3d4e5f6 vt=1500ms status=ok action=click [2 artifacts]
//
// time in UTC with milliseconds, seq, kind, the last 8 characters of the
// branch id, the virtual time when set, and up to six payload fields (well
// known ones such as status, reason and url first; nested values shown as
// {n} or [n]). Values are quoted when they contain spaces or special
// characters and shortened when long. The result never contains a newline.
func Pretty(e Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s #%d %-13s", e.Time.UTC().Format("2006-01-02T15:04:05.000Z07:00"), e.Seq, sanitize(e.Kind))
	if e.BranchID != "" {
		b.WriteString(" br:" + sanitize(ShortID(e.BranchID)))
	}
	if e.VirtualTime != 0 {
		fmt.Fprintf(&b, " vt=%dms", e.VirtualTime)
	}
	if p := prettyPayload(e.Payload); p != "" {
		b.WriteString(" " + p)
	}
	switch n := len(e.Artifacts); n {
	case 0:
	case 1:
		b.WriteString(" [1 artifact]")
	default:
		fmt.Fprintf(&b, " [%d artifacts]", n)
	}
	return strings.TrimRight(b.String(), " ")
}

// ShortID is how people read branch ids: "…" and the last 8 characters
// (ULIDs differ at the end within a run).
func ShortID(id string) string {
	if utf8.RuneCountInString(id) > 8 {
		r := []rune(id)
		return "…" + string(r[len(r)-8:])
	}
	return id
}

// prettyPayload summarizes a payload; objects become key=value pairs.
func prettyPayload(p json.RawMessage) string {
	if len(bytes.TrimSpace(p)) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(p))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "payload=" + prettyValue(string(p))
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return "payload=" + prettyValue(v)
	}
	keys := make([]string, 0, len(obj))
	seen := map[string]bool{}
	for _, k := range prettyKeys {
		if _, ok := obj[k]; ok {
			keys = append(keys, k)
			seen[k] = true
		}
	}
	var rest []string
	for k := range obj {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	keys = append(keys, rest...)
	var parts []string
	for i, k := range keys {
		if i == prettyMaxFields {
			parts = append(parts, fmt.Sprintf("…+%d", len(keys)-i))
			break
		}
		parts = append(parts, prettyString(k)+"="+prettyValue(obj[k]))
	}
	return strings.Join(parts, " ")
}

func prettyValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return prettyString(v)
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	case map[string]any:
		return fmt.Sprintf("{%d}", len(v))
	case []any:
		return fmt.Sprintf("[%d]", len(v))
	default:
		return prettyString(fmt.Sprint(v))
	}
}

// prettyString shortens s and quotes it if it would not read as one token.
func prettyString(s string) string {
	if utf8.RuneCountInString(s) > prettyMaxValue {
		s = string([]rune(s)[:prettyMaxValue]) + "…"
	}
	plain := s != ""
	for _, r := range s {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) || r == '"' || r == '=' || r == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return strconv.Quote(s)
}

// sanitize keeps a field on one line.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return '?'
		}
		return r
	}, s)
}
