// Package regfiletest makes the hostile inputs every bounded reader of
// the product is tested against: a FIFO with no writer (which used to
// block a reader forever), a character device (/dev/zero, which used to
// be read until the process died), a directory, and a file one byte
// over the reader's limit.
package regfiletest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/internal/regfile"
)

// Case is one hostile input: the path to read, the error it must be
// refused with and what the message must say.
type Case struct {
	Name string
	Path string
	Is   error
	Says string
}

// Hostile creates the hostile inputs for a reader whose limit is limit
// bytes, in a temporary directory of t, named name (a FIFO called
// "flow.yaml", say). It skips t where FIFOs cannot be made.
func Hostile(t testing.TB, name string, limit int64) []Case {
	t.Helper()
	dir := t.TempDir()
	fifo := filepath.Join(dir, name)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	huge := filepath.Join(dir, "huge-"+name)
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(limit + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return []Case{
		{"FIFO", fifo, regfile.ErrNotRegular, fifo + " is not a regular file (a FIFO)"},
		{"/dev/zero", "/dev/zero", regfile.ErrNotRegular, "/dev/zero is not a regular file (a character device)"},
		{"directory", dir, regfile.ErrNotRegular, dir + " is not a regular file (a directory)"},
		{"too large", huge, regfile.ErrTooLarge, fmt.Sprintf("%s is larger than %d bytes (%d bytes)", huge, limit, limit+1)},
	}
}

// Refuses fails t unless read returns at once (within two seconds) an
// error that is c.Is and says c.Says.
func Refuses(t testing.TB, c Case, read func(path string) error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- read(c.Path) }()
	select {
	case err := <-done:
		if !errors.Is(err, c.Is) || !strings.Contains(err.Error(), c.Says) {
			t.Fatalf("reading %s: %v, want %v saying %q", c.Name, err, c.Is, c.Says)
		}
	case <-time.After(2 * time.Second):
		t.Fatalf("reading %s did not return within 2s", c.Name)
	}
}
