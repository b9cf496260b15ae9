package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
)

func TestMerkleRoot(t *testing.T) {
	leaf := func(p, h string) []byte { s := sha256.Sum256([]byte("leaf\x00" + p + "\x00" + h)); return s[:] }
	node := func(l, r []byte) []byte {
		s := sha256.Sum256(append(append([]byte("node\x00"), l...), r...))
		return s[:]
	}
	hx := func(b []byte) string { return hex.EncodeToString(b) }
	ha, hb, hc := sumHex([]byte("a")), sumHex([]byte("b")), sumHex([]byte("c"))
	empty := sha256.Sum256([]byte("empty"))

	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no files", nil, hx(empty[:])},
		{"one file", map[string]string{"a": ha}, hx(leaf("a", ha))},
		{"two files in path order", map[string]string{"b": hb, "a": ha}, hx(node(leaf("a", ha), leaf("b", hb)))},
		{"odd node promoted", map[string]string{"c": hc, "a": ha, "b": hb}, hx(node(node(leaf("a", ha), leaf("b", hb)), leaf("c", hc)))},
		{"byte order, not natural order", map[string]string{"steps/0010.json": ha, "steps/0002.json": hb, "Z": hc},
			hx(node(node(leaf("Z", hc), leaf("steps/0002.json", hb)), leaf("steps/0010.json", ha)))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := MerkleRoot(tc.files)
			require(t, got == tc.want, "MerkleRoot = %s, want %s", got, tc.want)
		})
	}
	// The path is part of the leaf: renaming a file changes the root.
	require(t, MerkleRoot(map[string]string{"a": ha}) != MerkleRoot(map[string]string{"b": ha}), "root ignores paths")
}

func TestReportMerkleRootMatchesChecksums(t *testing.T) {
	file := writeBytes(t, smallBundle(t))
	var sums checksums
	requireNoErr(t, json.Unmarshal(get(unpack(t, file), ChecksumsFile), &sums))
	rep, err := Validate(bytes.NewReader(file), Limits{})
	requireNoErr(t, err)
	require(t, rep.MerkleRoot == sums.MerkleRoot, "report root %s, checksums.json %s", rep.MerkleRoot, sums.MerkleRoot)
	require(t, len(sums.Files) == rep.Files-1, "checksums.json lists %d of %d files", len(sums.Files), rep.Files)
}
