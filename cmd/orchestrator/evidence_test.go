package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/multiverse-orchestrator/multiverse/commit/evidence"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
)

// TestInvoiceSealedAtRest commits once and checks the invoice PDF, which
// carries the billing e-mail, is kept only sealed: no file under the data
// dir (bundles decompressed) holds the e-mail; ledger verify decrypts the
// invoice to the digest the ledger records; `ledger evidence` returns the
// original PDF; a flipped byte of the sealed artifact is named by verify
// with the key and without it, and a foreign key is named as such.
func TestInvoiceSealedAtRest(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	const email = "procurement@example.com" // the task's billing e-mail, printed on the invoice
	dir, sum := sharedCopy(t)
	arts := sum.Commit.Artifacts
	plainDigest, sealedDigest := arts["invoice"], arts[evidence.SealedName("invoice")]
	if plainDigest == "" || sealedDigest == "" {
		t.Fatalf("the ledger row records no sealed invoice: %v", arts)
	}
	// No plaintext of the invoice anywhere under the data dir.
	files := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(p, ".bundle") {
			data = unzstd(t, data)
		}
		files++
		if bytes.Contains(data, []byte(email)) {
			t.Errorf("%s holds the billing e-mail in clear", p)
		}
		if hex.EncodeToString(sha(data)) == plainDigest {
			t.Errorf("%s is the invoice in clear", p)
		}
		return nil
	})
	if files < 10 {
		t.Fatalf("walked only %d files under the data dir", files)
	}
	// The commit bundle carries the invoice as it is kept: sealed.
	cb, err := bundle.ReadFile(sum.Paths.Bundle, bundle.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cb.Files[bundle.BodyPath(sealedDigest)]; !ok {
		t.Errorf("the commit bundle does not carry the sealed invoice %s", sealedDigest)
	}
	if st, err := os.Stat(evidence.KeyPath(dir)); err != nil {
		t.Errorf("no evidence key: %v", err)
	} else if st.Mode().Perm() != 0o600 {
		t.Errorf("evidence key mode %v, want 0600", st.Mode().Perm())
	}
	run := func(args ...string) (int, string) {
		var o, e bytes.Buffer
		c := runCLI(append(args, "--data-dir", dir), &o, &e)
		return c, o.String() + e.String()
	}
	if c, o := run("ledger", "verify"); c != 0 || !strings.Contains(o, "sealed evidence: 1 of 1 decrypt") {
		t.Fatalf("verify of a good ledger: exit %d\n%s", c, o)
	}
	// The explicit command returns the original PDF.
	pdf := filepath.Join(t.TempDir(), "invoice.pdf")
	if c, o := run("ledger", "evidence", sum.Commit.EntryID, "invoice", "-o", pdf); c != 0 {
		t.Fatalf("ledger evidence: exit %d\n%s", c, o)
	}
	data, err := os.ReadFile(pdf)
	if err != nil {
		t.Fatal(err)
	}
	if hex.EncodeToString(sha(data)) != plainDigest || !bytes.HasPrefix(data, []byte("%PDF-")) || !bytes.Contains(data, []byte(email)) {
		t.Fatalf("ledger evidence wrote %d bytes (sha256 %x) that are not the invoice %s", len(data), sha(data), plainDigest)
	}
	if st, _ := os.Stat(pdf); st.Mode().Perm() != 0o600 {
		t.Errorf("the decrypted invoice is written with mode %v, want 0600", st.Mode().Perm())
	}
	// A flipped byte of the sealed invoice is named, with the key and
	// without it.
	sealed := filepath.Join(dir, "artifacts", "sha256", sealedDigest[:2], sealedDigest)
	flip(t, sealed, 100)
	if c, o := run("ledger", "verify"); c != orchestrator.ExitVerify || !strings.Contains(o, "artifact invoice.sealed") || !strings.Contains(o, sealed) {
		t.Fatalf("verify after flipping a byte of the sealed invoice: exit %d\n%s", c, o)
	}
	if c, o := run("ledger", "evidence", sum.Commit.EntryID, "invoice", "-o", pdf+"2"); c != orchestrator.ExitVerify {
		t.Fatalf("ledger evidence of a tampered invoice: exit %d\n%s", c, o)
	}
	keyPath := evidence.KeyPath(dir)
	if err := os.Rename(keyPath, keyPath+".away"); err != nil {
		t.Fatal(err)
	}
	if c, o := run("ledger", "verify"); c != orchestrator.ExitVerify || !strings.Contains(o, "artifact invoice.sealed") {
		t.Fatalf("verify without the key after flipping a byte: exit %d\n%s", c, o)
	}
	flip(t, sealed, 100) // restore
	if c, o := run("ledger", "verify"); c != 0 || !strings.Contains(o, "no evidence key") {
		t.Fatalf("verify without the key of an intact ledger: exit %d\n%s", c, o)
	}
	// Another data dir's key does not open it: named, not mistaken for
	// the plaintext.
	other := t.TempDir()
	if _, err := evidence.CreateKey(other); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(keyPath), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(evidence.KeyPath(other), keyPath); err != nil {
		t.Fatal(err)
	}
	if c, o := run("ledger", "verify"); c != orchestrator.ExitVerify || !strings.Contains(o, "another key") {
		t.Fatalf("verify with a foreign key: exit %d\n%s", c, o)
	}
}

func sha(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}

func unzstd(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := zstd.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
