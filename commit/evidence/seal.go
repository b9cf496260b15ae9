package evidence

import (
	"bytes"
	"crypto/rand"
	"fmt"
)

var magic = []byte("MVSEAL1\n")

const (
	idSize    = 8
	nonceSize = 12
	header    = len("MVSEAL1\n") + idSize
)

// Seal encrypts plain under k. Every call draws a fresh random nonce.
func (k *Key) Seal(plain []byte) ([]byte, error) {
	out := make([]byte, header+nonceSize, header+nonceSize+len(plain)+k.aead.Overhead())
	copy(out, magic)
	copy(out[len(magic):], k.id[:])
	nonce := out[header : header+nonceSize]
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("evidence: nonce: %w", err)
	}
	return k.aead.Seal(out, nonce, plain, out[:header]), nil
}

// Open decrypts what Seal produced. It returns errors matching
// ErrNotSealed, ErrWrongKey or ErrTampered.
func (k *Key) Open(sealed []byte) ([]byte, error) {
	if len(sealed) < header+nonceSize+k.aead.Overhead() || !bytes.Equal(sealed[:len(magic)], magic) {
		return nil, ErrNotSealed
	}
	if id := sealed[len(magic):header]; !bytes.Equal(id, k.id[:]) {
		return nil, fmt.Errorf("%w: key id %x, this data dir's key is %s", ErrWrongKey, id, k.ID())
	}
	plain, err := k.aead.Open(nil, sealed[header:header+nonceSize], sealed[header+nonceSize:], sealed[:header])
	if err != nil {
		return nil, ErrTampered
	}
	return plain, nil
}
