package task

import (
	"encoding/json"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/scoring"
)

// Schema is a JSON Schema (draft 2020-12) node: the subset of keywords
// the task file's schema uses.
type Schema struct {
	SchemaURI            string              `json:"$schema,omitempty"`
	Ref                  string              `json:"$ref,omitempty"`
	Title                string              `json:"title,omitempty"`
	Description          string              `json:"description,omitempty"`
	Type                 any                 `json:"type,omitempty"`
	Enum                 []any               `json:"enum,omitempty"`
	Pattern              string              `json:"pattern,omitempty"`
	Minimum              *float64            `json:"minimum,omitempty"`
	Maximum              *float64            `json:"maximum,omitempty"`
	ExclusiveMinimum     *float64            `json:"exclusiveMinimum,omitempty"`
	ExclusiveMaximum     *float64            `json:"exclusiveMaximum,omitempty"`
	Properties           map[string]*Schema  `json:"properties,omitempty"`
	Required             []string            `json:"required,omitempty"`
	DependentRequired    map[string][]string `json:"dependentRequired,omitempty"`
	MinProperties        *int                `json:"minProperties,omitempty"`
	MaxProperties        *int                `json:"maxProperties,omitempty"`
	AdditionalProperties any                 `json:"additionalProperties,omitempty"`
	Items                *Schema             `json:"items,omitempty"`
	AnyOf                []*Schema           `json:"anyOf,omitempty"`
	OneOf                []*Schema           `json:"oneOf,omitempty"`
	AllOf                []*Schema           `json:"allOf,omitempty"`
	If                   *Schema             `json:"if,omitempty"`
	Then                 *Schema             `json:"then,omitempty"`
	Not                  *Schema             `json:"not,omitempty"`
	Defs                 map[string]*Schema  `json:"$defs,omitempty"`
}

// JSONSchema returns the JSON Schema of task files, for editors
// (completion, hover, underlining) and other tools. It is generated from
// the parser itself: the decoder walks its own field tables in schema
// mode, so a field the parser reads is a field the schema knows, with the
// type the parser wants. Value rules the validator checks (allowed
// values, ranges, required fields) come from schemaRules. The schema
// accepts every file Parse accepts; Parse checks more than a schema can
// say (regular expressions compile, names are unique, a URL parses).
func JSONSchema() *Schema {
	root := &Schema{}
	g := &schemaGen{cur: root, defs: map[string]*Schema{}}
	d := &decoder{file: "schema", schema: g}
	d.task(probeMap, &Task{})
	schemaRules[""](root)
	root.SchemaURI = "https://json-schema.org/draft/2020-12/schema"
	root.Title = "Multiverse task file"
	root.Description = "A Multiverse task (version 1): where to start, what counts as progress and success, and how to commit the side effect once."
	root.Defs = g.defs
	return root
}

// JSONSchemaBytes is JSONSchema as indented JSON with a final newline:
// the content of task.schema.json.
func JSONSchemaBytes() []byte {
	b, err := json.MarshalIndent(JSONSchema(), "", "  ")
	if err != nil {
		panic(err) // the schema is plain data
	}
	return append(b, '\n')
}

// schemaGen is the decoder's state in schema mode: the node the current
// handler describes, and the shared definitions (predicates refer to
// themselves).
type schemaGen struct {
	cur  *Schema
	defs map[string]*Schema
}

// Probe nodes stand in for a value in schema mode: a handler that reads
// a scalar and a mapping differently is called with both.
var (
	probeScalar = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str"}
	probeMap    = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
)

// capture runs f with a fresh current node and returns what it described.
func (g *schemaGen) capture(f func()) *Schema {
	saved := g.cur
	g.cur = &Schema{}
	f()
	out := g.cur
	g.cur = saved
	return out
}

// probe describes what handler h accepts at path: it is called with a
// scalar and with a mapping; when the two differ, either is allowed.
func (g *schemaGen) probe(path string, h func(*yaml.Node, string)) *Schema {
	a := g.capture(func() { h(probeScalar, path) })
	b := g.capture(func() { h(probeMap, path) })
	out := a
	if !reflect.DeepEqual(a, b) {
		out = &Schema{AnyOf: []*Schema{a, b}}
	}
	if rule, ok := schemaRules[path]; ok {
		rule(out)
	}
	return out
}

// object describes a mapping with the keys of handlers.
func (g *schemaGen) object(path string, handlers map[string]func(*yaml.Node, string)) {
	s := g.cur
	s.Type = "object"
	s.AdditionalProperties = false
	s.Properties = map[string]*Schema{}
	for key, h := range handlers {
		s.Properties[key] = g.probe(joinPath(path, key), h)
	}
}

// mapOf describes a mapping of free names to values each handler reads.
func (g *schemaGen) mapOf(path string, each func(*yaml.Node, string)) {
	g.cur.Type = "object"
	g.cur.AdditionalProperties = g.probe(path+".*", each)
}

// listOf describes a list whose items each reads.
func (g *schemaGen) listOf(path string, each func(i int, v *yaml.Node, p string)) {
	g.cur.Type = "array"
	g.cur.Items = g.probe(path+"[]", func(v *yaml.Node, p string) { each(0, v, p) })
}

// define makes the current node a reference to the shared definition
// name, building it with body the first time.
func (g *schemaGen) define(name string, body func()) {
	ref := &Schema{Ref: "#/$defs/" + name}
	if _, ok := g.defs[name]; !ok {
		def := &Schema{}
		g.defs[name] = def // before body: a definition may refer to itself
		saved := g.cur
		g.cur = def
		body()
		if rule, ok := schemaRules["$defs."+name]; ok {
			rule(def)
		}
		g.cur = saved
	}
	*g.cur = *ref
}

// scalar types as the parser reads them: a string field takes any
// scalar (seats: 12 is the string "12").
var (
	schemaString   = func(s *Schema) { s.Type = []string{"string", "number", "boolean"} }
	schemaInteger  = func(s *Schema) { s.Type = "integer" }
	schemaUnsigned = func(s *Schema) { s.Type = "integer"; s.Minimum = ptr(0.0) }
	schemaNumber   = func(s *Schema) { s.Type = "number" }
	schemaBoolean  = func(s *Schema) {
		s.Type = []string{"boolean", "string"}
		s.Enum = []any{true, false, "true", "false", "yes", "no", "on", "off"}
	}
	// A Go duration (90s, 2m, 1h30m); the number 0 is one too.
	schemaDuration = func(s *Schema) {
		s.Type = []string{"string", "integer"}
		s.Pattern = `^(0|([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|ms|s|m|h))+$`
		s.Minimum, s.Maximum = ptr(0.0), ptr(0.0)
	}
)

func ptr[T any](v T) *T { return &v }

// schemaRules are the value rules the validator checks that a schema can
// say, by field path ("[]" stands for any list index, "*" for any name).
var schemaRules = map[string]func(*Schema){
	"version":                         func(s *Schema) { s.Enum = []any{SchemaVersion} },
	"start_url":                       func(s *Schema) { s.Type, s.Pattern = "string", `^[hH][tT][tT][pP][sS]?://[^/?#]+` },
	"search.strategy":                 enum(Strategies),
	"search.selection":                enum(Selections),
	"search.diversity":                func(s *Schema) { s.Minimum, s.ExclusiveMaximum = ptr(0.0), ptr(1.0) },
	"search.workers":                  between(1, MaxWorkers),
	"search.beam_width":               between(1, 0),
	"search.min_beam_width":           between(1, 0),
	"search.max_children":             between(1, 0),
	"search.stall_limit":              between(1, 0),
	"budgets.steps_per_branch":        between(1, 0),
	"budgets.total_branches":          between(1, 0),
	"budgets.cost":                    func(s *Schema) { s.Minimum = ptr(0.0) },
	"capture.screenshots":             enum(ScreenshotPolicies),
	"environment.viewport.width":      between(1, MaxViewport),
	"environment.viewport.height":     between(1, MaxViewport),
	"environment.device_scale_factor": func(s *Schema) { s.ExclusiveMinimum, s.Maximum = ptr(0.0), ptr(4.0) },
	"environment.clock":               func(s *Schema) { s.Type, s.Pattern = "string", `^[0-9]{4}-[0-9]{2}-[0-9]{2}T` },
	"planner.proposer":                enum([]string{ProposerHeuristic, ProposerLLM}),
	"planner": func(s *Schema) {
		llm := map[string]*Schema{"proposer": {Enum: []any{ProposerLLM}}}
		var modelFields []*Schema
		for _, f := range []string{"model", "base_url", "api_key", "fallback"} {
			modelFields = append(modelFields, &Schema{Required: []string{f}})
		}
		s.AllOf = []*Schema{
			// A model planner names its model and endpoint ...
			{If: &Schema{Required: []string{"proposer"}, Properties: llm}, Then: &Schema{Required: []string{"model", "base_url"}}},
			// ... and only a model planner takes them.
			{If: &Schema{AnyOf: modelFields}, Then: &Schema{Required: []string{"proposer"}, Properties: llm}},
		}
	},
	"planner.fallback":    enum([]string{FallbackNone, FallbackHeuristic}),
	"planner.profiles[]":  enum(PlannerProfiles),
	"planner.temperature": func(s *Schema) { s.Minimum, s.Maximum = ptr(0.0), ptr(2.0) },
	"planner.max_tokens":  func(s *Schema) { s.Minimum = ptr(0.0) },
	"planner.base_url":    func(s *Schema) { s.Type, s.Pattern = "string", `^[hH][tT][tT][pP][sS]?://[^/?#@]+` },
	"prices": func(s *Schema) {
		for _, p := range s.Properties {
			p.Minimum = ptr(0.0)
		}
	},
	"extract.*": func(s *Schema) {
		// {attr} alone reads nothing: a mapping needs its selector.
		if len(s.AnyOf) == 2 {
			s.AnyOf[1].Required = []string{"selector"}
		}
	},
	"commit": func(s *Schema) {
		s.Required = []string{"boundary", "intent", "action", "idempotency", "confirm"}
		s.DependentRequired = map[string][]string{"postcheck": {"compensate"}}
	},
	"commit.compensate":             func(s *Schema) { s.Required = []string{"navigate", "action", "confirm"} },
	"commit.compensate.idempotency": func(s *Schema) { s.MinProperties, s.MaxProperties = ptr(1), ptr(1) },
	"commit.intent":                 func(s *Schema) { s.MinProperties = ptr(1) },
	"commit.idempotency":            func(s *Schema) { s.MinProperties, s.MaxProperties = ptr(1), ptr(1) },
	"commit.confirm":                func(s *Schema) { s.Required = []string{"success", "token"} },
	"commit.cas":                    func(s *Schema) { s.Required = []string{"selector"} },
	"auth.storage_state":            func(s *Schema) { s.MinProperties, s.MaxProperties = ptr(1), ptr(1) },
	"planner.api_key":               func(s *Schema) { s.MinProperties, s.MaxProperties = ptr(1), ptr(1) },
	// A predicate names one kind; a goal's also its name (and a weight).
	"$defs.predicate": oneKind,
	"$defs.goal_predicate": func(s *Schema) {
		oneKind(s)
		s.Required = []string{"name"}
	},
	"": func(s *Schema) {
		s.Required = []string{"start_url", "goal"}
		// A task without commit ends on its success predicates.
		s.If = &Schema{Not: &Schema{Required: []string{"commit"}}}
		s.Then = &Schema{Properties: map[string]*Schema{"goal": {Required: []string{"success"}}}}
	},
}

// oneKind: a predicate holds exactly one of the predicate kinds.
func oneKind(s *Schema) {
	for _, k := range scoring.Kinds {
		s.OneOf = append(s.OneOf, &Schema{Required: []string{k}})
	}
}

func enum(values []string) func(*Schema) {
	return func(s *Schema) {
		s.Type = "string"
		s.Enum = make([]any, len(values))
		for i, v := range values {
			s.Enum[i] = v
		}
	}
}

// between bounds an integer field; hi 0 means no upper bound.
func between(lo, hi int) func(*Schema) {
	return func(s *Schema) {
		s.Minimum = ptr(float64(lo))
		if hi > 0 {
			s.Maximum = ptr(float64(hi))
		}
	}
}

// schemaScalar sets the current node's type in schema mode and reports
// whether the decoder is in schema mode (the caller then reads nothing).
func (d *decoder) schemaScalar(set func(*Schema)) bool {
	if d.schema == nil {
		return false
	}
	set(d.schema.cur)
	return true
}

// actionSchema describes an action: a mapping with exactly one key, the
// action's kind.
func (d *decoder) actionSchema() {
	d.schema.define("action", d.actionBodySchema)
}

func (d *decoder) actionBodySchema() {
	const path = "action"
	g := d.schema
	s := g.cur
	s.Type = "object"
	s.AdditionalProperties = false
	s.MinProperties, s.MaxProperties = ptr(1), ptr(1)
	s.Properties = map[string]*Schema{}
	for _, kind := range actionKinds {
		s.Properties[kind] = g.probe(joinPath(path, kind), func(v *yaml.Node, p string) {
			var a branch.Action
			d.actionValue(kind, v, p, &a)
		})
	}
	s.Description = "One action, named by its kind: " + strings.Join(actionKinds, ", ")
}
