package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
)

// checksumsAlgorithm is the only algorithm checksums.json may name.
const checksumsAlgorithm = "sha256"

// checksums is checksums.json: the sha256 of every other file of the
// bundle and their Merkle root.
type checksums struct {
	Algorithm  string            `json:"algorithm"`
	Files      map[string]string `json:"files"`
	MerkleRoot string            `json:"merkle_root"`
}

// MerkleRoot returns the Merkle root of a bundle's files given as path to
// hex sha256 of the file (the "files" object of checksums.json). Leaves are
// sha256("leaf\x00" + path + "\x00" + hex) in lexicographic (byte) order of
// path; a parent is sha256("node\x00" + left + right) over the two child
// digests as raw 32-byte values; an odd last node is promoted unchanged to
// the next level; the root of no files is sha256("empty"). The result is
// lowercase hex. The construction is part of the stable bundle format.
func MerkleRoot(files map[string]string) string {
	if len(files) == 0 {
		s := sha256.Sum256([]byte("empty"))
		return hex.EncodeToString(s[:])
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	level := make([][sha256.Size]byte, len(paths))
	for i, p := range paths {
		level[i] = sha256.Sum256([]byte("leaf\x00" + p + "\x00" + files[p]))
	}
	buf := make([]byte, 0, len("node\x00")+2*sha256.Size)
	for len(level) > 1 {
		next := level[:0:0]
		for i := 0; i+1 < len(level); i += 2 {
			buf = append(buf[:0], "node\x00"...)
			buf = append(buf, level[i][:]...)
			buf = append(buf, level[i+1][:]...)
			next = append(next, sha256.Sum256(buf))
		}
		if len(level)%2 == 1 {
			next = append(next, level[len(level)-1])
		}
		level = next
	}
	return hex.EncodeToString(level[0][:])
}

// sumHex returns the lowercase hex sha256 of data.
func sumHex(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}
