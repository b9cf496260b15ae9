package learn

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/multiverse-orchestrator/multiverse/internal/atomicfile"
	"github.com/multiverse-orchestrator/multiverse/internal/regfile"
)

// Store is a data dir's learn/ directory.
type Store struct{ dir string }

// Open returns the store in dir; the directory is made on the first Put.
func Open(dir string) *Store { return &Store{dir: dir} }

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// Name is the file name of a site's snapshot.
func Name(site string) string {
	h := sha256.Sum256([]byte(site))
	return hex.EncodeToString(h[:12]) + ".json"
}

// Path is the file of a site's snapshot.
func (s *Store) Path(site string) string { return filepath.Join(s.dir, Name(site)) }

// Get returns the site's latest snapshot, or Empty(site) when no run
// taught one yet. A file that does not read is an error naming it
// (wrapping ErrInvalid, or regfile.ErrNotRegular or regfile.ErrTooLarge).
func (s *Store) Get(ctx context.Context, site string) (*Snapshot, error) {
	path := s.Path(site)
	b, err := regfile.ReadFile(ctx, path, MaxFileSize)
	if errors.Is(err, os.ErrNotExist) {
		return Empty(site), nil
	}
	if err != nil {
		return nil, fmt.Errorf("learn: %w", err)
	}
	snap, err := Decode(path, b)
	if err != nil {
		return nil, err
	}
	if snap.Site != site {
		return nil, fmt.Errorf("%w: %s: site %s, not %s", ErrInvalid, path, snap.Site, site)
	}
	return snap, nil
}

// Put stores snap as its site's latest snapshot.
func (s *Store) Put(snap *Snapshot) error {
	if err := snap.validate(); err != nil {
		return err
	}
	b, err := snap.Encode()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return fmt.Errorf("learn: %w", err)
	}
	if err := atomicfile.Write(s.Path(snap.Site), b, 0o644); err != nil {
		return fmt.Errorf("learn: %w", err)
	}
	return nil
}
