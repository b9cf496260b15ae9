package evidence

import (
	"bytes"
	"context"
	"errors"
	"os"
	"sync"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
)

// TestCreateKeyOnce: concurrent creators agree on one 0600 key, and a
// later load reads the same key.
func TestCreateKeyOnce(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadKey(dir); !errors.Is(err, ErrNoKey) {
		t.Fatalf("LoadKey of an empty data dir: %v, want ErrNoKey", err)
	}
	ids := make([]string, 8)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			k, err := CreateKey(dir)
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = k.ID()
		}(i)
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("creators disagree on the key: %v", ids)
		}
	}
	st, err := os.Stat(KeyPath(dir))
	if err != nil || st.Mode().Perm() != 0o600 || st.Size() != keySize {
		t.Fatalf("key file %v: %v", st, err)
	}
	if k, err := LoadKey(dir); err != nil || k.ID() != ids[0] {
		t.Fatalf("LoadKey: %v", err)
	}
}

// TestSealOpen: sealing round-trips, is never the plaintext, and every
// flipped byte, truncation or foreign key is refused with its own error.
func TestSealOpen(t *testing.T) {
	k, err := CreateKey(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	other, _ := CreateKey(t.TempDir())
	plain := []byte("%PDF-1.4 Billed to: buyer@example.com VAT ID: 4111 1111 1111 1111")
	sealed, err := k.Seal(plain)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("buyer@example.com")) {
		t.Fatal("the sealed bytes hold the plaintext")
	}
	if got, err := k.Open(sealed); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("Open: %q, %v", got, err)
	}
	for i := range sealed {
		b := bytes.Clone(sealed)
		b[i] ^= 1
		if _, err := k.Open(b); err == nil {
			t.Fatalf("a flipped byte at %d opened", i)
		}
	}
	cases := []struct {
		name string
		key  *Key
		data []byte
		want error
	}{
		{"truncated", k, sealed[:20], ErrNotSealed},
		{"plaintext", k, plain, ErrNotSealed},
		{"foreign key", other, sealed, ErrWrongKey},
		{"tampered body", k, append(bytes.Clone(sealed[:len(sealed)-1]), sealed[len(sealed)-1]^0x80), ErrTampered},
	}
	for _, c := range cases {
		if _, err := c.key.Open(c.data); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// TestPutReadVerify: Put stores only sealed bytes and records both
// digests; Read returns the plaintext; Verify names a flipped byte with
// and without the key.
func TestPutReadVerify(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store, err := artifacts.OpenFS(dir + "/artifacts")
	if err != nil {
		t.Fatal(err)
	}
	k, _ := CreateKey(dir)
	plain := []byte("%PDF-1.4 invoice for buyer@example.com")
	arts := map[string]string{}
	if err := Put(ctx, store, nil, arts, "invoice", plain); !errors.Is(err, ErrNoKey) || len(arts) != 0 {
		t.Fatalf("Put without a key: %v, %v", err, arts)
	}
	if err := Put(ctx, store, k, arts, "invoice", plain); err != nil {
		t.Fatal(err)
	}
	if arts["invoice"] != string(artifacts.Sum(plain)) || arts["invoice.sealed"] == "" {
		t.Fatalf("recorded %v", arts)
	}
	if ok, _ := store.Has(ctx, artifacts.Sum(plain)); ok {
		t.Fatal("the plaintext is in the store")
	}
	if got, err := Read(ctx, store, k, arts, "invoice"); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("Read: %v", err)
	}
	if _, err := Read(ctx, store, k, arts, "receipt"); !errors.Is(err, ErrNoEvidence) {
		t.Fatalf("Read of a missing name: %v", err)
	}
	var rep Report
	if err := Verify(ctx, store, k, arts, &rep); err != nil || rep.Decrypted != 1 {
		t.Fatalf("Verify: %v %+v", err, rep)
	}
	// The ledger's plaintext digest is wrong: decryption names it.
	bad := map[string]string{"invoice": string(artifacts.Sum([]byte("other"))), "invoice.sealed": arts["invoice.sealed"]}
	if err := Verify(ctx, store, k, bad, &rep); !errors.Is(err, ErrMismatch) {
		t.Fatalf("Verify of a wrong plaintext digest: %v", err)
	}
	p := store.Path(artifacts.Digest(arts["invoice.sealed"]))
	os.Chmod(p, 0o644)
	b, _ := os.ReadFile(p)
	b[30] ^= 1
	os.WriteFile(p, b, 0o444)
	for _, key := range []*Key{k, nil} {
		if err := Verify(ctx, store, key, arts, &rep); err == nil || !bytes.Contains([]byte(err.Error()), []byte("artifact invoice.sealed ("+p+")")) {
			t.Fatalf("Verify (key %v) of a flipped byte: %v", key != nil, err)
		}
	}
}
