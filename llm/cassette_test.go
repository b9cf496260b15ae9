package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/internal/regfile"
)

// A cassette entry that is a FIFO (which used to block a replay forever),
// a device (/dev/zero used to be read until the process died) or a
// directory is refused at once: Get fails with ErrCassette naming it, and
// Entries lists it with that error instead of hanging.
func TestCassetteNonRegularEntries(t *testing.T) {
	fp := strings.Repeat("ab", 32)
	cases := []struct {
		name string
		make func(string) error
		want string
	}{
		{"FIFO", func(p string) error { return syscall.Mkfifo(p, 0o600) }, "is not a regular file (a FIFO)"},
		{"/dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }, "is not a regular file (a character device)"},
		{"directory", func(p string) error { return os.Mkdir(p, 0o755) }, "is not a regular file (a directory)"},
		{"too large", func(p string) error {
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(MaxEntrySize + 1)
		}, "is larger than 16777216 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cas, err := OpenCassette(t.TempDir(), false)
			if err != nil {
				t.Fatal(err)
			}
			path := cas.path(fp)
			if err := c.make(path); err != nil {
				t.Skipf("cannot make %s: %v", c.name, err)
			}
			done := make(chan error, 1)
			var infos []EntryInfo
			go func() {
				_, _, err := cas.Get(context.Background(), fp)
				infos, _ = cas.Entries(context.Background())
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, ErrCassette) || !strings.Contains(err.Error(), path+" "+c.want) {
					t.Fatalf("Get: %v, want ErrCassette saying %q", err, path+" "+c.want)
				}
				if !errors.Is(err, regfile.ErrNotRegular) && !errors.Is(err, regfile.ErrTooLarge) {
					t.Fatalf("Get: %v matches neither regfile error", err)
				}
				if len(infos) != 1 || !strings.Contains(infos[0].Err, c.want) {
					t.Fatalf("Entries = %+v, want the entry listed with %q", infos, c.want)
				}
			case <-time.After(2 * time.Second):
				t.Fatal("Get and Entries did not return within 2s")
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		cas, err := OpenCassette(t.TempDir(), false)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(cas.path(fp), []byte("{}"), 0o644)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, _, err := cas.Get(ctx, fp); !errors.Is(err, context.Canceled) {
			t.Fatalf("Get with a cancelled context: %v", err)
		}
		if _, err := cas.Entries(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("Entries with a cancelled context: %v", err)
		}
	})
}

// FuzzDecodeEntry: a cassette entry never panics the reader, and one
// that reads re-encodes to JSON that reads back to the same entry.
func FuzzDecodeEntry(f *testing.F) {
	f.Add([]byte(`{"format": "multiverse.cassette.v1", "fingerprint": "` + strings.Repeat("ab", 32) + `", "prompt_version": "p1",
		"model": "m-1", "request": {"model": "m-1", "messages": []}, "response": "eyJjaG9pY2VzIjpbXX0="}`))
	f.Add([]byte(`{"format": "multiverse.cassette.v2", "response": "eA=="}`))
	f.Add([]byte(`{"format": "multiverse.cassette.v1"}`))
	f.Add([]byte(`{"format": "multiverse.cassette.v1", "response": "!!"}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := decodeEntry(data)
		if err != nil {
			return
		}
		if e.Format != CassetteFormat || len(e.Response) == 0 {
			t.Fatalf("decodeEntry accepted %+v", e)
		}
		once, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("encoding a decoded entry: %v", err)
		}
		again, err := decodeEntry(once)
		if err != nil {
			t.Fatalf("the re-encoded entry does not decode: %v\n%s", err, once)
		}
		twice, err := json.Marshal(again)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once, twice) || !bytes.Equal(e.Response, again.Response) {
			t.Fatalf("round trip changed the entry:\n%s\n%s", once, twice)
		}
	})
}

// An entry Put writes is what Get reads.
func TestCassettePutGet(t *testing.T) {
	cas, err := OpenCassette(filepath.Join(t.TempDir(), "cas"), true)
	if err != nil {
		t.Fatal(err)
	}
	fp := strings.Repeat("cd", 32)
	want := Entry{Fingerprint: fp, PromptVersion: "p", Model: "m", Request: json.RawMessage(`{"a":1}`), Response: []byte(`{"choices":[]}`)}
	if err := cas.Put(want); err != nil {
		t.Fatal(err)
	}
	got, ok, err := cas.Get(context.Background(), fp)
	if err != nil || !ok || got.Model != "m" || !bytes.Equal(got.Response, want.Response) {
		t.Fatalf("Get = %+v, %v, %v", got, ok, err)
	}
}
