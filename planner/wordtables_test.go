package planner

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// wordTableLimit is how many English words a literal in the planner's
// code may list before it is a word table that belongs in words.json.
const wordTableLimit = 8

// notWords are literals of the planner's code that list words of another
// vocabulary than English: they stay code.
var notWords = map[string]string{
	"clickKinds": "affordance kinds as the browser reports them",
}

// englishWord is what a word-table entry looks like: lower-case letters,
// an apostrophe, spaces between the words of a phrase.
var englishWord = regexp.MustCompile(`^\p{Ll}+(['’ ]\p{Ll}+)*$`)

// TestNoWordTablesInCode: no map or slice literal in the planner's code
// (tests aside) lists more than wordTableLimit English words: word
// tables live in words.json, where each says what it serves, so they do
// not creep back into code. CSS selectors, input types and regular
// expressions are no English words and are not counted.
func TestNoWordTablesInCode(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		named := map[*ast.CompositeLit]string{}
		ast.Inspect(f, func(n ast.Node) bool {
			if spec, ok := n.(*ast.ValueSpec); ok {
				for i, v := range spec.Values {
					ast.Inspect(v, func(m ast.Node) bool {
						if lit, ok := m.(*ast.CompositeLit); ok && i < len(spec.Names) {
							named[lit] = spec.Names[i].Name
						}
						return true
					})
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if _, ok := notWords[named[lit]]; ok {
				return true
			}
			if n := wordEntries(lit); n > wordTableLimit {
				t.Errorf("%s: %s lists %d English words: move the table to words.json (with what it serves) and read it from there",
					fset.Position(lit.Pos()), orLiteral(named[lit]), n)
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no Go files checked")
	}
}

// wordEntries counts the entries of a map or slice literal that are
// English words: a map's keys, a slice's elements.
func wordEntries(lit *ast.CompositeLit) int {
	n := 0
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			e = kv.Key
		}
		if englishWord.MatchString(literalWords(e)) {
			n++
		}
	}
	return n
}

// literalWords is a string literal's text, or the words of a composite
// key of string literals ({"log", "in"}) joined by spaces; "" otherwise.
func literalWords(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind == token.STRING {
			s, err := strconv.Unquote(x.Value)
			if err == nil {
				return s
			}
		}
	case *ast.CompositeLit:
		var ws []string
		for _, el := range x.Elts {
			w := literalWords(el)
			if w == "" {
				return ""
			}
			ws = append(ws, w)
		}
		return strings.Join(ws, " ")
	}
	return ""
}

func orLiteral(name string) string {
	if name == "" {
		return "a literal"
	}
	return name
}

// TestGrammarNamesTheTables: the goal grammar in doc.go names every
// table of words.json, and every table name it uses is one.
func TestGrammarNamesTheTables(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string]bool{}
	v := reflect.TypeOf(wordData{})
	for i := 0; i < v.NumField(); i++ {
		name, _, _ := strings.Cut(v.Field(i).Tag.Get("json"), ",")
		tables[name] = true
		if !regexp.MustCompile(`\b` + name + `\b`).Match(doc) {
			t.Errorf("doc.go does not name the table %s", name)
		}
	}
	for _, name := range regexp.MustCompile(`\b[a-z]+(?:_[a-z]+)+\b`).FindAllString(string(doc), -1) {
		if !tables[name] && name != "snake_case" {
			t.Errorf("doc.go names %s, which is no table of words.json", name)
		}
	}
}
