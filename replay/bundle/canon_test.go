package bundle

import (
	"bytes"
	"reflect"
	"testing"
	"time"
)

// TestReadNormalizesEmptyCollections: files written by another tool may
// spell empty collections as {} or []; Read returns nil for them, as for
// absent ones, so that a bundle read back from Write(Read(x)) is equal.
func TestReadNormalizesEmptyCollections(t *testing.T) {
	fs := unusualSpellings(t)
	b, err := Read(bytes.NewReader(pack(t, fs)), Limits{})
	requireNoErr(t, err)
	require(t, b.Steps[0].Predicates == nil && b.Manifest.Notes == nil && b.Manifest.Guard == nil && b.Manifest.Inputs == nil && b.Network[1].RequestHeaders == nil,
		"empty collections not normalized: %v %v %v %v %v", b.Steps[0].Predicates, b.Manifest.Notes, b.Manifest.Guard, b.Manifest.Inputs, b.Network[1].RequestHeaders)
	require(t, b.Manifest.Created.Location() == time.UTC, "created not in UTC: %v", b.Manifest.Created)
	again, err := Read(bytes.NewReader(writeBytes(t, b)), Limits{})
	requireNoErr(t, err)
	require(t, reflect.DeepEqual(b, again), "Read(Write(Read(x))) differs from Read(x)")
}

// unusualSpellings is the small bundle's files as another writer might
// spell them: empty collections present, a time with an offset.
func unusualSpellings(t testing.TB) []tarFile {
	fs := unpack(t, writeBytes(t, smallBundle(t)))
	fs = set(fs, StepPath(1), editJSON(t, get(fs, StepPath(1)), func(m map[string]any) { m["predicates"] = map[string]any{} }))
	fs = set(fs, ManifestFile, editJSON(t, get(fs, ManifestFile), func(m map[string]any) {
		m["notes"], m["guard"], m["inputs"] = []any{}, []any{}, map[string]any{}
		m["created"] = "2026-01-02T05:05:00.123+02:00"
	}))
	fs = set(fs, NetworkFile, bytes.Replace(get(fs, NetworkFile), []byte(`"seq":2,`), []byte(`"seq":2,"request_headers":{},`), 1))
	return fixChecksums(t, fs)
}
