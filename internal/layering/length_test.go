package layering_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines bounds a function of the control plane and the planner:
// a reader should not have to scroll through a decision.
const maxFuncLines = 80

// TestNoLongFunctions: no function in orchestrator/ or planner/ (tests
// aside) is longer than maxFuncLines, counted from its signature to its
// closing brace.
func TestNoLongFunctions(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	checked := 0
	for _, dir := range []string{"orchestrator", "planner"} {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range af.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				checked++
				if n := fset.Position(fd.Body.Rbrace).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
					t.Errorf("%s: %s is %d lines (at most %d)", filepath.Join(dir, filepath.Base(f)), fd.Name.Name, n, maxFuncLines)
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("checked %d functions: the walk missed the packages", checked)
	}
}
