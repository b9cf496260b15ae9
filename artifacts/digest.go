package artifacts

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// digestPrefix is the algorithm prefix of a Digest's String form.
const digestPrefix = "sha256:"

// digestLen is the length of a hex sha256.
const digestLen = sha256.Size * 2

// Digest is the lowercase hex sha256 (64 characters, no prefix) of an
// artifact's bytes. Obtain one from [Sum], [ParseDigest] or the store; a
// Digest built by conversion from an arbitrary string is checked by every
// store method and rejected with [ErrBadDigest] if malformed.
type Digest string

// Sum returns the digest of data.
func Sum(data []byte) Digest {
	s := sha256.Sum256(data)
	return Digest(hex.EncodeToString(s[:]))
}

// ParseDigest parses a digest written as "<hex>" or "sha256:<hex>", where hex
// is 64 hex digits in either case; the result is lowercase. Anything else
// returns an error matching [ErrBadDigest].
func ParseDigest(s string) (Digest, error) {
	h := strings.TrimPrefix(s, digestPrefix)
	if len(h) != digestLen {
		return "", fmt.Errorf("%w: %q: want 64 hex digits, optionally prefixed by %q", ErrBadDigest, s, digestPrefix)
	}
	for i := 0; i < len(h); i++ {
		if !isHex(h[i]) {
			return "", fmt.Errorf("%w: %q: %q at offset %d is not a hex digit", ErrBadDigest, s, h[i], i)
		}
	}
	return Digest(strings.ToLower(h)), nil
}

// String returns the digest in its prefixed form, "sha256:<hex>".
func (d Digest) String() string { return digestPrefix + string(d) }

// Hex returns the bare lowercase hex form, the same as string(d).
func (d Digest) Hex() string { return string(d) }

// Validate reports whether d is exactly 64 lowercase hex digits, returning an
// error matching [ErrBadDigest] if not.
func (d Digest) Validate() error {
	if len(d) != digestLen || !isLowerHex(string(d)) {
		return fmt.Errorf("%w: %q: want 64 lowercase hex digits", ErrBadDigest, string(d))
	}
	return nil
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
