package task

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A storage-state file that is a FIFO, a device or a directory is refused
// at once (never read), one over MaxStorageStateSize unread.
func TestResolveStorageStateNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "state.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(MaxStorageStateSize + 1)
	f.Close()
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(`{"cookies":[{"name":"sid","value":"s3cr3t","domain":"a.test","path":"/"}],"origins":[]}`), 0o600)
	cases := []struct{ file, want string }{
		{fifo, "storage-state file " + fifo + " is not a regular file (a FIFO)"},
		{"/dev/zero", "storage-state file /dev/zero is not a regular file (a character device)"},
		{dir, "is not a regular file (a directory)"},
		{big, "is larger than 1048576 bytes (1048577 bytes)"},
		{good, ""},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := ResolveStorageState(Input{SecretFile: c.file})
				done <- err
			}()
			select {
			case err := <-done:
				if c.want == "" {
					if err != nil {
						t.Fatalf("ResolveStorageState: %v", err)
					}
					return
				}
				if !errors.Is(err, ErrSecretMissing) || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("ResolveStorageState: %v, want ErrSecretMissing saying %q", err, c.want)
				}
			case <-time.After(2 * time.Second):
				t.Fatal("ResolveStorageState did not return within 2s")
			}
		})
	}
}

// FuzzParseStorageState: a storage-state document never panics the
// parser, and one that parses re-encodes to JSON that parses to the same
// state.
func FuzzParseStorageState(f *testing.F) {
	f.Add([]byte(`{"cookies":[{"name":"sid","value":"v","domain":"a.test","path":"/","expires":-1,"httpOnly":true,"secure":false,"sameSite":"Lax"}],
		"origins":[{"origin":"http://a.test","localStorage":[{"name":"k","value":"v"}]}]}`))
	f.Add([]byte(`{"cookies":[{"name":"","domain":"a.test"}]}`))
	f.Add([]byte(`{"origins":[{"origin":"ftp://a.test"}]}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := ParseStorageState(data)
		if err != nil {
			return
		}
		once, err := json.Marshal(st)
		if err != nil {
			t.Fatalf("encoding a parsed state: %v", err)
		}
		again, err := ParseStorageState(once)
		if err != nil {
			t.Fatalf("the re-encoded state does not parse: %v\n%s", err, once)
		}
		twice, err := json.Marshal(again)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once, twice) {
			t.Fatalf("round trip changed the state:\n%s\n%s", once, twice)
		}
	})
}
