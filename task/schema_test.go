package task

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"gopkg.in/yaml.v3"
)

var update = flag.Bool("update", false, "rewrite task.schema.json from the parser")

// TestSchemaFileIsCurrent: the shipped task.schema.json is what the
// parser generates (go test ./task -run TestSchemaFile -update rewrites it).
func TestSchemaFileIsCurrent(t *testing.T) {
	want := JSONSchemaBytes()
	if *update {
		if err := os.WriteFile("task.schema.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("task.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("task.schema.json is stale: run go test ./task -run TestSchemaFile -update")
	}
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(JSONSchemaBytes()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("task.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("task.schema.json")
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	return s
}

// yamlInstance reads a YAML file as the JSON value a schema validates.
func yamlInstance(t *testing.T, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

// TestSchemaAcceptsExamples: every example task and every good fixture
// the parser loads validates against the schema, and each example names
// the schema for editors.
func TestSchemaAcceptsExamples(t *testing.T) {
	s := compileSchema(t)
	examples, _ := filepath.Glob("../examples/*.yaml")
	good, _ := filepath.Glob("testdata/good-*.yaml")
	files := append(examples, good...)
	files = append(files, "testdata/selectors.yaml")
	if len(examples) == 0 {
		t.Fatal("no examples found")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if _, err := Load(f); err != nil {
				t.Fatalf("the parser refuses it: %v", err)
			}
			if err := s.Validate(yamlInstance(t, f)); err != nil {
				t.Fatalf("the schema refuses what the parser loads:\n%v", err)
			}
		})
	}
	for _, f := range examples {
		data, _ := os.ReadFile(f)
		if !bytes.Contains(data, []byte("# yaml-language-server: $schema=../task/task.schema.json")) {
			t.Errorf("%s does not name the schema for editors", f)
		}
	}
}

// beyondSchema are the bad fixtures a JSON Schema cannot refuse, and why:
// what they break is in the YAML or across fields, which only the parser
// sees.
var beyondSchema = map[string]string{
	"bad-alias-bomb.yaml":          "an alias expansion bound: the schema sees the expanded value",
	"bad-alias-cycle.yaml":         "an alias cycle: the YAML does not expand",
	"bad-yaml-syntax.yaml":         "not YAML",
	"bad-duplicate-name.yaml":      "names unique across lists",
	"bad-failure-name-reused.yaml": "names unique across lists",
	"bad-regex.yaml":               "a regular expression that does not compile",
}

// TestSchemaRefusesBadFixtures: every bad fixture the parser refuses, the
// schema refuses too, naming the same field, unless beyondSchema says why
// it cannot.
func TestSchemaRefusesBadFixtures(t *testing.T) {
	s := compileSchema(t)
	files, _ := filepath.Glob("testdata/bad-*.yaml")
	for _, f := range files {
		base := filepath.Base(f)
		t.Run(base, func(t *testing.T) {
			_, perr := Load(f)
			var te *Error
			if !errors.As(perr, &te) {
				t.Fatalf("the parser does not refuse it: %v", perr)
			}
			why, beyond := beyondSchema[base]
			if beyond && base != "bad-yaml-syntax.yaml" && base != "bad-alias-cycle.yaml" && base != "bad-alias-bomb.yaml" {
				var ve *jsonschema.ValidationError
				if errors.As(s.Validate(yamlInstance(t, f)), &ve) && slices.Contains(schemaFields(ve), te.Field) {
					t.Fatalf("the schema refuses it at %s: take it out of beyondSchema", te.Field)
				}
			}
			if beyond {
				t.Skipf("beyond a schema: %s", why)
			}
			err := s.Validate(yamlInstance(t, f))
			var ve *jsonschema.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("the schema accepts what the parser refuses at %s: %v", te.Field, err)
			}
			named := schemaFields(ve)
			if !slices.Contains(named, te.Field) {
				t.Fatalf("the parser names %q, the schema %q:\n%v", te.Field, named, err)
			}
		})
	}
	for base := range beyondSchema {
		if _, err := os.Stat(filepath.Join("testdata", base)); err != nil {
			t.Errorf("beyondSchema names %s, which is not a fixture", base)
		}
	}
}

// schemaFields lists the task fields a validation error names, in the
// parser's path form (goal.success[0].name): each leaf error's place, and
// for a missing or unknown property the property under it too.
func schemaFields(ve *jsonschema.ValidationError) []string {
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		at := fieldPath(e.InstanceLocation)
		out = append(out, at)
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			for _, m := range k.Missing {
				out = append(out, joinPath(at, m))
			}
		case *kind.DependentRequired:
			for _, m := range k.Missing {
				out = append(out, joinPath(at, m))
			}
		case *kind.AdditionalProperties:
			for _, p := range k.Properties {
				out = append(out, joinPath(at, p))
			}
		}
	}
	walk(ve)
	return out
}

func fieldPath(loc []string) string {
	var b strings.Builder
	for _, seg := range loc {
		if _, err := fmt.Sscanf(seg, "%d", new(int)); err == nil && !strings.ContainsAny(seg, ".") {
			fmt.Fprintf(&b, "[%s]", seg)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
}
