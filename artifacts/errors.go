package artifacts

import (
	"errors"
	"fmt"
)

var (
	// ErrNotFound reports that no artifact with the requested digest is stored.
	ErrNotFound = errors.New("artifacts: not found")
	// ErrBadDigest reports a malformed digest: not 64 hex digits with an
	// optional "sha256:" prefix.
	ErrBadDigest = errors.New("artifacts: bad digest")
)

// CorruptError reports that the bytes stored under Digest do not hash to it:
// the file at Path was modified, truncated or damaged after it was written.
// The store never repairs such a file by itself; a later Put of the right
// content replaces it.
type CorruptError struct {
	Digest Digest // the name the artifact is stored under
	Got    Digest // the digest of the bytes actually on disk
	Path   string // the file holding those bytes
}

// Error implements error.
func (e *CorruptError) Error() string {
	return fmt.Sprintf("artifacts: corrupt artifact %s at %s: content hashes to %s", e.Digest, e.Path, e.Got)
}
