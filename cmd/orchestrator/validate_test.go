package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// TestValidate: every example task and the flow fixtures check OK without
// running anything; every bad task fixture is bad input naming its file,
// line and field, as run would say.
func TestValidate(t *testing.T) {
	good, _ := filepath.Glob("../../examples/*.yaml")
	good = append(good, "../../flow/testdata/good.yaml", "../../flow/testdata/vocabulary.yaml")
	var out, errb bytes.Buffer
	if code := run(context.Background(), append([]string{"validate"}, good...), &out, &errb); code != 0 {
		t.Fatalf("validate examples: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if n := strings.Count(out.String(), ": OK: "); n != len(good) {
		t.Errorf("%d OK lines for %d files:\n%s", n, len(good), out.String())
	}
	bad, _ := filepath.Glob("../../task/testdata/bad-*.yaml")
	if len(bad) < 10 {
		t.Fatalf("only %d bad task fixtures", len(bad))
	}
	for _, path := range bad {
		out.Reset()
		errb.Reset()
		code := run(context.Background(), []string{"validate", path}, &out, &errb)
		if code != orchestrator.ExitBadInput || !strings.Contains(errb.String(), filepath.Base(path)) {
			t.Errorf("validate %s: exit %d, stderr %q; want exit 2 naming the file", filepath.Base(path), code, errb.String())
		}
	}
}

// TestValidateSchema: validate --schema prints the shipped task.schema.json
// byte for byte, and refuses a file beside it.
func TestValidateSchema(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"validate", "--schema"}, &out, &errb); code != 0 {
		t.Fatalf("validate --schema: exit %d: %s", code, errb.String())
	}
	shipped, err := os.ReadFile("../../task/task.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), shipped) {
		t.Fatal("validate --schema differs from task/task.schema.json")
	}
	out.Reset()
	errb.Reset()
	if code := run(context.Background(), []string{"validate", "--schema", "x.yaml"}, &out, &errb); code != orchestrator.ExitBadInput {
		t.Fatalf("validate --schema x.yaml: exit %d, want %d", code, orchestrator.ExitBadInput)
	}
}
