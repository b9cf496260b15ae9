package flow_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/flow"
	"github.com/multiverse-orchestrator/multiverse/internal/regfile"
)

// Load reads a regular flow file and refuses, at once, a FIFO (which
// used to block `play` forever), a device (/dev/zero used to be read
// until the process died), a directory and a file over MaxFileSize.
func TestLoadRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "flow.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	huge := filepath.Join(dir, "huge.yaml")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(flow.MaxFileSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	tests := []struct {
		name, path string
		is         error
		want       string
	}{
		{"FIFO", fifo, regfile.ErrNotRegular, fifo + " is not a regular file (a FIFO)"},
		{"/dev/zero", "/dev/zero", regfile.ErrNotRegular, "/dev/zero is not a regular file (a character device)"},
		{"directory", dir, regfile.ErrNotRegular, dir + " is not a regular file (a directory)"},
		{"too large", huge, regfile.ErrTooLarge, huge + " is larger than 4194304 bytes (4194305 bytes)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := flow.Load(context.Background(), tc.path)
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Load: %v, want %v saying %q", err, tc.is, tc.want)
				}
			case <-time.After(2 * time.Second):
				t.Fatal("Load did not return within 2s")
			}
		})
	}
	t.Run("regular", func(t *testing.T) {
		got, err := flow.Load(context.Background(), "testdata/good.yaml")
		if err != nil || len(got.Actions) != 6 {
			t.Fatalf("Load(good.yaml) = %+v, %v", got, err)
		}
	})
}

// FuzzParse: a flow file never panics the parser, a refusal wraps
// ErrInvalid, and a flow that parses is written (Write) to a file that
// parses and writes back to the same bytes.
func FuzzParse(f *testing.F) {
	for _, p := range []string{"testdata/good.yaml", "testdata/good.json"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	bad, _ := filepath.Glob("testdata/bad/*.yaml")
	for _, p := range bad {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("schema_version: 1\nactions: [{kind: navigate, url: 'http://a.test/'}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := flow.Parse("fuzz.yaml", data)
		if err != nil {
			if !errors.Is(err, flow.ErrInvalid) {
				t.Fatalf("Parse: %v does not wrap ErrInvalid", err)
			}
			return
		}
		var once bytes.Buffer
		if err := flow.Write(&once, fl); err != nil {
			t.Fatalf("Write of a parsed flow: %v", err)
		}
		again, err := flow.Parse("written.yaml", once.Bytes())
		if err != nil {
			t.Fatalf("what Write wrote does not parse: %v\n%s", err, once.String())
		}
		var twice bytes.Buffer
		if err := flow.Write(&twice, again); err != nil {
			t.Fatal(err)
		}
		if once.String() != twice.String() {
			t.Fatalf("round trip changed the flow:\n%s\n---\n%s", once.String(), twice.String())
		}
	})
}
