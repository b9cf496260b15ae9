package task

import (
	"strconv"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// FormatAction writes an action in the task file's flow form, the form
// ParseAction reads: `{click: {role: button, name: "Add New User"}}`. A
// target's strategies are written in cascade order; a typed value that
// came from an input is written as its input's name, never its value.
func FormatAction(a branch.Action) string {
	switch a.Kind {
	case branch.KindNavigate:
		return "{" + a.Kind + ": " + yamlScalar(a.URL) + "}"
	case branch.KindKeyPress, branch.KindEval, branch.KindScroll:
		if a.Target == nil {
			return "{" + a.Kind + ": " + yamlScalar(a.Value) + "}"
		}
	}
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+": "+yamlScalar(v))
		}
	}
	if t := a.Target; t != nil {
		add("testid", t.TestID)
		add("aria_label", t.AriaLabel)
		if t.Role != "" && t.Name != "" {
			add("role", t.Role)
			add("name", t.Name)
		}
		add("id", t.ID)
		add("field", t.Field)
		if t.Name == "" || t.Role == "" {
			add("text", t.Text)
		}
		if len(parts) == 0 {
			add("css", t.CSS)
		}
	}
	if a.Input != "" {
		add("input", a.Input)
	} else {
		add("value", a.Value)
	}
	return "{" + a.Kind + ": {" + strings.Join(parts, ", ") + "}}"
}

// yamlScalar quotes s when YAML would read it as something else than
// the plain string.
func yamlScalar(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == ' ' || r == '-' || r == '_' || r == '.' || r == '/') {
			plain = false
			break
		}
	}
	if plain && strings.TrimSpace(s) == s {
		switch strings.ToLower(s) {
		case "true", "false", "yes", "no", "on", "off", "null", "~":
			plain = false
		}
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			plain = false
		}
	}
	if plain {
		return s
	}
	return strconv.Quote(s)
}
