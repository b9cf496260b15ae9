package task

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/internal/regfile/regfiletest"
)

// A storage-state file that is a FIFO, a device or a directory is refused
// at once (never read), one over MaxStorageStateSize unread.
func TestResolveStorageStateNotRegular(t *testing.T) {
	for _, c := range regfiletest.Hostile(t, "state.json", MaxStorageStateSize) {
		c.Is = ErrSecretMissing // the task says which secret is missing, and why
		t.Run(c.Name, func(t *testing.T) {
			regfiletest.Refuses(t, c, func(path string) error {
				_, err := ResolveStorageState(Input{SecretFile: path})
				return err
			})
		})
	}
	good := filepath.Join(t.TempDir(), "good.json")
	os.WriteFile(good, []byte(`{"cookies":[{"name":"sid","value":"s3cr3t","domain":"a.test","path":"/"}],"origins":[]}`), 0o600)
	if _, err := ResolveStorageState(Input{SecretFile: good}); err != nil {
		t.Fatalf("ResolveStorageState(a regular file): %v", err)
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
