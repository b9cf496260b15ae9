package task

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// decoder walks a YAML node tree with the file name and field path at hand,
// so every error says where it is. It stops at the first error.
type decoder struct {
	file string
	err  *Error
	// schema is set in schema mode: the decoder describes what it would
	// read instead of reading (see JSONSchema).
	schema *schemaGen
}

func (d *decoder) fail(n *yaml.Node, path, format string, args ...any) {
	if d.err != nil || d.schema != nil {
		return
	}
	line := 0
	if n != nil {
		line = n.Line
	}
	d.err = &Error{File: d.file, Line: line, Field: path, Msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) ok() bool { return d.err == nil }

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "empty"
		}
		return fmt.Sprintf("the value %q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "something else"
}

func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// fields decodes a mapping: each key must be one of handlers; duplicate
// keys are errors.
func (d *decoder) fields(n *yaml.Node, path string, handlers map[string]func(v *yaml.Node, p string)) {
	if d.schema != nil {
		d.schema.object(path, handlers)
		return
	}
	n = resolve(n)
	if !d.ok() || n == nil {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "must be a mapping, found %s", kindName(n))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content) && d.ok(); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		p := joinPath(path, key)
		if seen[key] {
			d.fail(k, p, "duplicate field")
			return
		}
		seen[key] = true
		h, known := handlers[key]
		if !known {
			d.fail(k, p, "unknown field (known: %s)", knownList(handlers))
			return
		}
		h(resolve(v), p)
	}
}

func knownList(handlers map[string]func(*yaml.Node, string)) string {
	keys := make([]string, 0, len(handlers))
	for k := range handlers {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return strings.Join(keys, ", ")
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (d *decoder) scalar(n *yaml.Node, path string) (string, bool) {
	if !d.ok() {
		return "", false
	}
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		d.fail(n, path, "must be a value, found %s", kindName(n))
		return "", false
	}
	return n.Value, true
}

func (d *decoder) str(n *yaml.Node, path string, dst *string) {
	if d.schemaScalar(schemaString) {
		return
	}
	if s, ok := d.scalar(n, path); ok {
		*dst = s
	}
}

func (d *decoder) integer(n *yaml.Node, path string, dst *int) {
	if d.schemaScalar(schemaInteger) {
		return
	}
	s, ok := d.scalar(n, path)
	if !ok {
		return
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		d.fail(n, path, "must be a whole number, found %q", s)
		return
	}
	*dst = v
}

func (d *decoder) uint64(n *yaml.Node, path string, dst *uint64) {
	if d.schemaScalar(schemaUnsigned) {
		return
	}
	s, ok := d.scalar(n, path)
	if !ok {
		return
	}
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		d.fail(n, path, "must be a non-negative whole number, found %q", s)
		return
	}
	*dst = v
}

func (d *decoder) float(n *yaml.Node, path string, dst *float64) {
	if d.schemaScalar(schemaNumber) {
		return
	}
	s, ok := d.scalar(n, path)
	if !ok {
		return
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		d.fail(n, path, "must be a number, found %q", s)
		return
	}
	*dst = v
}

func (d *decoder) boolean(n *yaml.Node, path string, dst *bool) {
	if d.schemaScalar(schemaBoolean) {
		return
	}
	s, ok := d.scalar(n, path)
	if !ok {
		return
	}
	switch strings.ToLower(s) {
	case "true", "yes", "on":
		*dst = true
	case "false", "no", "off":
		*dst = false
	default:
		d.fail(n, path, "must be true or false, found %q", s)
	}
}

func (d *decoder) duration(n *yaml.Node, path string, dst *Duration) {
	if d.schemaScalar(schemaDuration) {
		return
	}
	s, ok := d.scalar(n, path)
	if !ok {
		return
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		d.fail(n, path, "must be a duration such as 90s or 2m, found %q", s)
		return
	}
	if v < 0 {
		d.fail(n, path, "must not be negative")
		return
	}
	*dst = Duration(v)
}

func (d *decoder) list(n *yaml.Node, path string, each func(i int, v *yaml.Node, p string)) {
	if d.schema != nil {
		d.schema.listOf(path, each)
		return
	}
	if !d.ok() {
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.fail(n, path, "must be a list, found %s", kindName(n))
		return
	}
	for i, v := range n.Content {
		if !d.ok() {
			return
		}
		each(i, resolve(v), fmt.Sprintf("%s[%d]", path, i))
	}
}

func (d *decoder) strings(n *yaml.Node, path string, dst *[]string) {
	var out []string
	d.list(n, path, func(_ int, v *yaml.Node, p string) {
		var s string
		d.str(v, p, &s)
		out = append(out, s)
	})
	if d.ok() {
		*dst = out
	}
}
