package payload_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOnlyPayloadDecodesEvents: no package but this one unmarshals an
// event's payload itself. Writers and readers share the types here
// (Decode); a private copy of a payload's keys elsewhere goes quiet the
// day the writer renames one. The check reads every non-test Go file of
// the module that imports the event log and flags json.Unmarshal (or a
// JSON decoder) fed with a .Payload field.
func TestOnlyPayloadDecodesEvents(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n != "." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if strings.HasPrefix(rel, filepath.Join("eventlog", "payload")+string(filepath.Separator)) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if !importsEventlog(f) {
			return nil
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			if name := callName(call); name == "json.Unmarshal" || name == "bytes.NewReader" {
				if sel, ok := call.Args[0].(*ast.SelectorExpr); ok && sel.Sel.Name == "Payload" {
					t.Errorf("%s: %s(%s.Payload): decode events with payload.Decode and the kind's type", fset.Position(call.Pos()), name, exprString(sel.X))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("only %d files import the event log: the walk missed the module", checked)
	}
}

func importsEventlog(f *ast.File) bool {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "github.com/multiverse-orchestrator/multiverse/eventlog" {
			return true
		}
	}
	return false
}

func callName(c *ast.CallExpr) string {
	if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
		if id, ok := sel.X.(*ast.Ident); ok {
			return id.Name + "." + sel.Sel.Name
		}
	}
	return ""
}

func exprString(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return "…"
}
