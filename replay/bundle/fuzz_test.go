package bundle

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// fuzzLimits keep each fuzz input cheap and bound what it may allocate.
var fuzzLimits = Limits{MaxFiles: 64, MaxFileBytes: 256 << 10, MaxTotalBytes: 1 << 20}

func FuzzRead(f *testing.F) {
	valid := writeBytes(f, smallBundle(f))
	f.Add(valid)
	f.Add(writeBytes(f, &Bundle{Manifest: Manifest{Schema: Schema, Kind: KindBranch, RunID: testRunID}}))
	f.Add(valid[:len(valid)/2])
	f.Add(append(bytes.Clone(valid), 0))
	fs := unpack(f, valid)
	f.Add(pack(f, remove(fs, StepPath(2))))
	f.Add(pack(f, fixChecksums(f, set(fs, "extra", []byte("x")))))
	f.Add(pack(f, set(fs, EventsFile, []byte("{\n"))))
	f.Add(compress(f, tarWith(f, reg("../x", 1))))
	f.Add(compress(f, tarOf(rawEntry("manifest.json", 'x', []byte(paxRecord("path", "a"))))))
	f.Add([]byte{})
	f.Add([]byte("\x28\xb5\x2f\xfd"))

	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Read(bytes.NewReader(data), fuzzLimits)
		rep, verr := Validate(bytes.NewReader(data), fuzzLimits)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrSchema) && !errors.Is(err, ErrUnsafePath) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("Read error matches no sentinel: %v", err)
			}
			if verr == nil && rep.OK() {
				t.Fatalf("Read failed (%v) but Validate found nothing", err)
			}
			return
		}
		if verr != nil || !rep.OK() {
			t.Fatalf("Read accepted what Validate refuses: %v %+v", verr, rep)
		}
		// Whatever Read accepts, Write reproduces and Read reads again.
		var buf bytes.Buffer
		if err := Write(&buf, b); err != nil {
			t.Fatalf("Write of a bundle Read accepted: %v", err)
		}
		b2, err := Read(bytes.NewReader(buf.Bytes()), Limits{})
		if err != nil {
			t.Fatalf("Read of the rewritten bundle: %v", err)
		}
		if !reflect.DeepEqual(b, b2) {
			t.Fatalf("rewritten bundle reads back different")
		}
	})
}

// FuzzReadTar fuzzes the decompressed tar stream, which the zstd frame
// checksum otherwise shields from most mutations, so that mutations reach
// the tar reader, the decoders and the checks.
func FuzzReadTar(f *testing.F) {
	for _, b := range []*Bundle{smallBundle(f), {Manifest: Manifest{Schema: Schema, Kind: KindBranch, RunID: testRunID}}} {
		raw, err := io.ReadAll(mustZstd(f, writeBytes(f, b)))
		requireNoErr(f, err)
		f.Add(raw)
	}
	f.Add(tarFiles(f, unusualSpellings(f)))
	f.Add(tarWith(f, reg("../x", 1)))
	f.Add(tarOf(rawEntry("manifest.json", tar.TypeReg, []byte(`{"schema":"multiverse.bundle/v1"}`))))
	f.Add([]byte{})

	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := readTar(bytes.NewReader(data), fuzzLimits)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsafePath) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("readTar error matches no sentinel: %v", err)
			}
			return
		}
		requireRoundTrip(t, inspectArchive(a))
		// Recompute checksums.json so that mutations of the other files
		// reach the checks behind the checksums.
		sums := map[string]string{}
		for p, data := range a.files {
			if p != ChecksumsFile {
				sums[p] = sumHex(data)
			}
		}
		cs, err := json.Marshal(checksums{Algorithm: "sha256", Files: sums, MerkleRoot: MerkleRoot(sums)})
		requireNoErr(t, err)
		a.files[ChecksumsFile] = cs
		requireRoundTrip(t, inspectArchive(a))
	})
}

// requireRoundTrip checks that a bundle that validates is written and read
// back unchanged.
func requireRoundTrip(t *testing.T, in *inspection) {
	t.Helper()
	if len(in.c.problems) > 0 || in.c.schemaErr != nil {
		return
	}
	{
		var buf bytes.Buffer
		if err := Write(&buf, in.b); err != nil {
			t.Fatalf("Write of a bundle that validates: %v", err)
		}
		b2, err := Read(bytes.NewReader(buf.Bytes()), Limits{})
		if err != nil {
			t.Fatalf("Read of the rewritten bundle: %v", err)
		}
		if !reflect.DeepEqual(in.b, b2) {
			t.Fatalf("rewritten bundle reads back different:\n got %+v\nwant %+v", b2, in.b)
		}
	}
}

func mustZstd(t testing.TB, file []byte) io.Reader {
	t.Helper()
	dec, err := zstd.NewReader(bytes.NewReader(file))
	requireNoErr(t, err)
	t.Cleanup(dec.Close)
	return dec
}
