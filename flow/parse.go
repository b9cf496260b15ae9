package flow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/internal/regfile"
)

// ErrInvalid is wrapped by every error about the content of a flow file.
var ErrInvalid = errors.New("flow: invalid flow file")

// MaxFileSize bounds a flow file.
const MaxFileSize = 4 << 20

// Load reads and parses the flow file at path. The file must be a regular
// file of at most MaxFileSize bytes: a FIFO, a device or a directory is
// refused at once, never read (an error matching regfile.ErrNotRegular or
// regfile.ErrTooLarge, naming the path). The read stops when ctx ends.
func Load(ctx context.Context, path string) (*Flow, error) {
	data, err := regfile.ReadFile(ctx, path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("flow: %w", err)
	}
	return Parse(path, data)
}

// Parse reads a flow file (YAML or JSON). file names it in errors. Unknown
// fields, a schema version other than SchemaVersion and actions the
// executor cannot run are errors naming the line and field.
func Parse(file string, data []byte) (*Flow, error) {
	if len(data) > MaxFileSize {
		return nil, &Error{File: file, Msg: fmt.Sprintf("flow file is larger than %d bytes", MaxFileSize)}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlError(file, err)
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, &Error{File: file, Msg: "flow file is empty"}
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return nil, &Error{File: file, Line: doc.Line, Msg: "a flow file is a mapping with schema_version and actions"}
	}
	if err := checkVersion(file, doc); err != nil {
		return nil, err
	}
	var f Flow
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, yamlError(file, err)
	}
	if err := validate(file, &f, lines(doc)); err != nil {
		return nil, err
	}
	return &f, nil
}

// checkVersion refuses a flow of another schema version before its fields
// are read: they may mean something else there.
func checkVersion(file string, doc *yaml.Node) error {
	v := child(doc, "schema_version")
	if v == nil {
		return &Error{File: file, Line: doc.Line, Field: "schema_version", Msg: fmt.Sprintf("missing; this reader reads schema version %d", SchemaVersion)}
	}
	n, err := strconv.Atoi(v.Value)
	if err != nil || n != SchemaVersion {
		return &Error{File: file, Line: v.Line, Field: "schema_version",
			Msg: fmt.Sprintf("%q is not supported; this reader reads schema version %d", v.Value, SchemaVersion)}
	}
	return nil
}

// lines maps the fields validate checks to their lines in the file.
type lineMap struct {
	actions []int // line of each action
	guard   []int
	env     int
}

func lines(doc *yaml.Node) lineMap {
	var m lineMap
	if a := child(doc, "actions"); a != nil {
		for _, n := range a.Content {
			m.actions = append(m.actions, n.Line)
		}
	}
	if g := child(doc, "guard"); g != nil {
		for _, n := range g.Content {
			m.guard = append(m.guard, n.Line)
		}
	}
	if e := child(doc, "environment"); e != nil {
		m.env = e.Line
	}
	return m
}

func child(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func at(ls []int, i int) int {
	if i < len(ls) {
		return ls[i]
	}
	return 0
}

var lineRE = regexp.MustCompile(`line (\d+): (.*)`)

// yamlError turns a YAML decoding error into an Error with its line.
func yamlError(file string, err error) error {
	var te *yaml.TypeError
	msg := err.Error()
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &Error{File: file, Line: n, Msg: m[2]}
	}
	return &Error{File: file, Msg: msg}
}

// targetKinds are the kinds that act on an element.
var targetKinds = map[string]bool{branch.KindClick: true, branch.KindType: true, branch.KindSelect: true,
	branch.KindCheck: true, branch.KindFocus: true, branch.KindHover: true, branch.KindSet: true}

func validate(file string, f *Flow, ls lineMap) error {
	if len(f.Actions) == 0 {
		return &Error{File: file, Field: "actions", Msg: "a flow needs at least one action"}
	}
	if err := validateEnv(f.Environment); err != "" {
		return &Error{File: file, Line: ls.env, Field: "environment", Msg: err}
	}
	for i, g := range f.Guard {
		field := fmt.Sprintf("guard[%d]", i)
		if strings.TrimSpace(g.Method) == "" {
			return &Error{File: file, Line: at(ls.guard, i), Field: field + ".method", Msg: "is empty"}
		}
		if _, err := regexp.Compile(g.URL); err != nil {
			return &Error{File: file, Line: at(ls.guard, i), Field: field + ".url", Msg: "is not a regular expression: " + err.Error()}
		}
	}
	for i, g := range f.Allow {
		if _, err := regexp.Compile(g.URL); err != nil {
			return &Error{File: file, Field: fmt.Sprintf("allow[%d].url", i), Msg: "is not a regular expression: " + err.Error()}
		}
	}
	for i, a := range f.Actions {
		if msg := validateAction(a); msg != "" {
			field, text := splitField(fmt.Sprintf("actions[%d]", i), msg)
			return &Error{File: file, Line: at(ls.actions, i), Field: field, Msg: text}
		}
	}
	return nil
}

// splitField moves a "field: message" prefix of msg onto the field path.
func splitField(field, msg string) (string, string) {
	if k, rest, ok := strings.Cut(msg, ": "); ok && !strings.Contains(k, " ") {
		return field + "." + k, rest
	}
	return field, msg
}

func validateEnv(e Environment) string {
	switch {
	case e.Width < 0 || e.Height < 0:
		return fmt.Sprintf("viewport %dx%d is negative", e.Width, e.Height)
	case e.DeviceScaleFactor < 0:
		return "device_scale_factor is negative"
	}
	if e.Seed != "" {
		if _, err := strconv.ParseUint(e.Seed, 10, 64); err != nil {
			return fmt.Sprintf("seed %q is not a whole number below 2^64", e.Seed)
		}
	}
	return ""
}

func validateAction(a Action) string {
	if strings.TrimSpace(a.Kind) == "" {
		return "kind: is empty (navigate, click, type, select, check, set, focus, key_press, hover, scroll, wait_for, screenshot)"
	}
	if a.TimeoutMS < 0 {
		return "timeout_ms: is negative"
	}
	if a.Tab != nil && *a.Tab < 0 {
		return "tab: is negative"
	}
	if a.Source != "" && a.Source != SourcePerson && a.Source != SourcePlanner {
		return fmt.Sprintf("source: %q is neither person nor planner", a.Source)
	}
	if !a.Supported() {
		return "" // played as skipped: unsupported_action_type
	}
	if a.Kind == branch.KindEval {
		return "kind: eval is not played back: a flow runs what a person could do"
	}
	if targetKinds[a.Kind] && (a.Target == nil || *a.Target == (Target{})) {
		return "target: a " + a.Kind + " action needs a target"
	}
	if t := a.Target; t != nil && t.Box != nil && (t.Box.W < 0 || t.Box.H < 0) {
		return "target: box has a negative size"
	}
	if a.Kind == branch.KindNavigate {
		u, err := url.Parse(a.URL)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return fmt.Sprintf("url: %q is not an absolute URL", a.URL)
		}
	}
	if a.Kind == branch.KindType && a.Value == "" && !a.Redacted && a.Input == "" {
		return "value: a type action needs a value (or redacted: true and a value supplied at play time)"
	}
	if a.Kind == branch.KindSet && a.Value == "" && !a.Redacted && a.Input == "" {
		return "value: a set action needs the value its control is to hold"
	}
	if a.Redacted && a.Value != "" && a.Value != branch.RedactedPlaceholder {
		return "value: a redacted action holds no value in the file"
	}
	if a.Dialog != "" && a.Dialog != branch.DialogAccept && a.Dialog != branch.DialogDismiss {
		return fmt.Sprintf("dialog: %q is neither accept nor dismiss", a.Dialog)
	}
	if a.AtMS < 0 {
		return "at_ms: is negative"
	}
	return ""
}

// Write writes f as YAML.
func Write(w io.Writer, f *Flow) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(f); err != nil {
		return fmt.Errorf("flow: writing: %w", err)
	}
	return enc.Close()
}
