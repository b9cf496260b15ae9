package evidence

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/multiverse-orchestrator/multiverse/internal/regfile"
)

// KeyFile is where a data dir keeps its evidence key, relative to the data
// dir: next to the per-run scrubbing keys.
const KeyFile = "keys/evidence.key"

const keySize = 32 // AES-256

// Key seals and opens evidence with AES-256-GCM. Its ID names it in every
// sealed artifact, so an artifact sealed under another data dir's key is
// reported as such instead of as tampering.
type Key struct {
	aead cipher.AEAD
	id   [8]byte
}

// KeyPath is the evidence key file of a data dir.
func KeyPath(dataDir string) string { return filepath.Join(dataDir, filepath.FromSlash(KeyFile)) }

// CreateKey returns the data dir's evidence key, creating it on first use:
// 32 random bytes in DATA_DIR/keys/evidence.key, mode 0600, in a 0700
// directory. Concurrent creators agree on one key.
func CreateKey(dataDir string) (*Key, error) {
	p := KeyPath(dataDir)
	if k, err := LoadKey(dataDir); !errors.Is(err, ErrNoKey) {
		return k, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, fmt.Errorf("evidence: key dir: %w", err)
	}
	raw := make([]byte, keySize)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("evidence: new key: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".evidence-*.key")
	if err != nil {
		return nil, fmt.Errorf("evidence: new key: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("evidence: new key: %w", err)
	}
	if _, err := tmp.Write(raw); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("evidence: new key: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("evidence: new key: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("evidence: new key: %w", err)
	}
	// Link fails if another process created the key first: then its key
	// is the data dir's.
	if err := os.Link(tmp.Name(), p); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("evidence: new key %s: %w", p, err)
	}
	return LoadKey(dataDir)
}

// maxKeyFile bounds what LoadKey reads of a key file: more than a key
// holds, far less than a device would give.
const maxKeyFile = 4 << 10

// LoadKey reads the data dir's evidence key. It returns an error matching
// ErrNoKey when the data dir has none.
func LoadKey(dataDir string) (*Key, error) {
	p := KeyPath(dataDir)
	raw, err := regfile.ReadFile(context.Background(), p, maxKeyFile) // a FIFO or a device is refused, never read
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNoKey, p)
	}
	if err != nil {
		return nil, fmt.Errorf("evidence: key %s: %w", p, err)
	}
	if len(raw) != keySize {
		return nil, fmt.Errorf("evidence: key %s: %d bytes, want %d", p, len(raw), keySize)
	}
	return newKey(raw)
}

func newKey(raw []byte) (*Key, error) {
	block, err := aes.NewCipher(raw)
	if err != nil {
		return nil, fmt.Errorf("evidence: key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("evidence: key: %w", err)
	}
	k := &Key{aead: aead}
	id := sha256.Sum256(append([]byte("multiverse evidence key id\x00"), raw...))
	copy(k.id[:], id[:])
	return k, nil
}

// ID is the key's public identifier (16 hex digits), derived from it one
// way.
func (k *Key) ID() string { return hex.EncodeToString(k.id[:]) }
