package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "entry.json")
	if err := Write(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(b) != "two" || st.Mode().Perm() != 0o644 {
		t.Fatalf("content %q, mode %v", b, st.Mode())
	}
	// A write that cannot rename (the path is a directory) leaves the
	// directory as it was and no temporary file.
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "keep"), []byte("x"), 0o644)
	if err := Write(sub, []byte("three"), 0o644); err == nil {
		t.Fatal("wrote over a directory")
	}
	names, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(names) != 0 {
		t.Fatalf("left %v", names)
	}
	if err := Write(filepath.Join(dir, "missing", "x"), []byte("x"), 0o644); err == nil {
		t.Fatal("wrote into a directory that does not exist")
	}
}
