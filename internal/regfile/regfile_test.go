package regfile_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/internal/regfile"
)

// within runs f and fails the test when it does not return in time: a
// reader that blocks on a FIFO would otherwise hang the test binary.
func within(t *testing.T, d time.Duration, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("did not return within %s", d)
		return nil
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	if err := os.WriteFile(small, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, bytes.Repeat([]byte("x"), 101), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.json")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	exact := filepath.Join(dir, "exact.json")
	if err := os.WriteFile(exact, bytes.Repeat([]byte("y"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(small, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	sock := filepath.Join(dir, "s.sock")
	if l, err := net.Listen("unix", sock); err == nil {
		t.Cleanup(func() { l.Close() })
	} else {
		sock = ""
	}
	tests := []struct {
		name    string
		path    string
		want    string // content, when no error
		wantIs  error
		wantMsg string
	}{
		{name: "regular", path: small, want: `{"a":1}`},
		{name: "empty", path: empty, want: ""},
		{name: "at the limit", path: exact, want: strings.Repeat("y", 100)},
		{name: "symlink to regular", path: link, want: `{"a":1}`},
		{name: "over the limit", path: big, wantIs: regfile.ErrTooLarge, wantMsg: big + " is larger than 100 bytes (101 bytes)"},
		{name: "FIFO", path: fifo, wantIs: regfile.ErrNotRegular, wantMsg: fifo + " is not a regular file (a FIFO)"},
		{name: "/dev/zero", path: "/dev/zero", wantIs: regfile.ErrNotRegular, wantMsg: "/dev/zero is not a regular file (a character device)"},
		{name: "directory", path: dir, wantIs: regfile.ErrNotRegular, wantMsg: dir + " is not a regular file (a directory)"},
		{name: "socket", path: sock, wantIs: regfile.ErrNotRegular, wantMsg: " is not a regular file (a socket)"},
		{name: "missing", path: filepath.Join(dir, "none.json"), wantIs: fs.ErrNotExist, wantMsg: "none.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.path == "" {
				t.Skip("no unix socket here")
			}
			var got []byte
			err := within(t, 2*time.Second, func() error {
				var err error
				got, err = regfile.ReadFile(context.Background(), tc.path, 100)
				return err
			})
			if tc.wantIs == nil {
				if err != nil {
					t.Fatalf("ReadFile: %v", err)
				}
				if string(got) != tc.want {
					t.Fatalf("ReadFile = %q, want %q", got, tc.want)
				}
				return
			}
			if !errors.Is(err, tc.wantIs) {
				t.Fatalf("ReadFile error %v, want one matching %v", err, tc.wantIs)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Fatalf("ReadFile error %q, want it to contain %q", err, tc.wantMsg)
			}
		})
	}
}

func TestReadFileTypedErrors(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(big, make([]byte, 10), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := regfile.ReadFile(context.Background(), big, 4)
	var tl *regfile.TooLargeError
	if !errors.As(err, &tl) || tl.Path != big || tl.Limit != 4 || tl.Size != 10 {
		t.Fatalf("ReadFile error %#v, want a *TooLargeError{%s, 4, 10}", err, big)
	}
	_, err = regfile.ReadFile(context.Background(), "/dev/null", 4)
	var nr *regfile.NotRegularError
	if !errors.As(err, &nr) || nr.Path != "/dev/null" || nr.Mode&fs.ModeCharDevice == 0 {
		t.Fatalf("ReadFile error %#v, want a *NotRegularError for a character device", err)
	}
	if nr.Reason() != "not a regular file (a character device)" {
		t.Fatalf("Reason() = %q", nr.Reason())
	}
	if _, err := regfile.ReadFile(context.Background(), big, 0); err == nil {
		t.Fatal("ReadFile with limit 0 succeeded")
	}
}

func TestReadFileCancelled(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := regfile.ReadFile(ctx, p, 100)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), p) {
		t.Fatalf("ReadFile with a cancelled context: %v, want context.Canceled naming %s", err, p)
	}
}

// A FIFO that has a writer still is refused: the kind decides, not
// whether a read would block.
func TestReadFileFIFOWithWriter(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Write([]byte("endless"))
	err = within(t, 2*time.Second, func() error {
		_, err := regfile.ReadFile(context.Background(), fifo, 1<<20)
		return err
	})
	if !errors.Is(err, regfile.ErrNotRegular) {
		t.Fatalf("ReadFile of a FIFO with a writer: %v", err)
	}
}

// A file of several read chunks comes back whole.
func TestReadFileLarge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "large")
	want := bytes.Repeat([]byte("0123456789abcdef"), 40000) // 640000 bytes
	if err := os.WriteFile(p, want, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := regfile.ReadFile(context.Background(), p, 1<<20)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("ReadFile: %d bytes, %v; want %d bytes", len(got), err, len(want))
	}
}
