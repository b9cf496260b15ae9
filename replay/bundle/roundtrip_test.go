package bundle

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

var update = flag.Bool("update", false, "rewrite testdata/small.bundle")

func TestRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		b    func(t testing.TB) *Bundle
	}{
		{"small branch bundle", smallBundle},
		{"commit bundle", func(t testing.TB) *Bundle {
			b := smallBundle(t)
			b.Manifest.Kind = KindCommit
			b.Manifest.Commit = &CommitInfo{Key: "commit:vendor:checkout:abc", EntryID: "01HZX3K7000000000000000001", OrderID: "ord_1",
				Evidence: map[string]string{"invoice.pdf": sumHex([]byte("%PDF"))}}
			return b
		}},
		{"empty plan, no events, no network", func(t testing.TB) *Bundle {
			return &Bundle{Manifest: Manifest{Schema: Schema, Kind: KindBranch, RunID: testRunID}}
		}},
		{"steps without content files", func(t testing.TB) *Bundle {
			b := smallBundle(t)
			for p := range b.Files {
				if !strings.HasPrefix(p, bodiesDir) {
					delete(b.Files, p)
				}
			}
			return b
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.b(t)
			file := writeBytes(t, want)
			got, err := Read(bytes.NewReader(file), Limits{})
			requireNoErr(t, err)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("round trip differs:\n got %+v\nwant %+v", got, want)
			}
			rep, err := Validate(bytes.NewReader(file), Limits{})
			requireNoErr(t, err)
			require(t, rep.OK(), "valid bundle has problems:%s", problemList(rep))
			require(t, rep.Steps == len(want.Steps) && rep.Events == len(want.Events), "report counts %+v", rep)
			require(t, len(rep.MerkleRoot) == 64, "merkle root %q", rep.MerkleRoot)
		})
	}
}

func TestWriteIsDeterministic(t *testing.T) {
	a := writeBytes(t, smallBundle(t))
	b := writeBytes(t, smallBundle(t))
	require(t, bytes.Equal(a, b), "two writes of the same bundle differ (%d vs %d bytes)", len(a), len(b))

	// Map iteration order must not leak into the file: rebuild the maps.
	c := smallBundle(t)
	files := make(map[string][]byte)
	for _, p := range sortedKeys(c.Files) {
		files[p] = c.Files[p]
	}
	c.Files = files
	require(t, bytes.Equal(a, writeBytes(t, c)), "rebuilt maps changed the file")

	// The layout: lexicographic order, regular files, mode 0644, uid/gid 0,
	// mtime Created truncated to the second.
	dec, err := zstd.NewReader(bytes.NewReader(a))
	requireNoErr(t, err)
	defer dec.Close()
	tr := tar.NewReader(dec)
	var names []string
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		requireNoErr(t, err)
		names = append(names, hdr.Name)
		require(t, hdr.Typeflag == tar.TypeReg && hdr.Mode == 0o644 && hdr.Uid == 0 && hdr.Gid == 0 && hdr.Uname == "" && hdr.Gname == "",
			"%s: header %+v", hdr.Name, hdr)
		require(t, hdr.ModTime.Equal(time.Date(2026, 1, 2, 3, 5, 0, 0, time.UTC)), "%s: mtime %v", hdr.Name, hdr.ModTime)
	}
	require(t, isSorted(names), "entries not in lexicographic order: %v", names)
	want := []string{ChecksumsFile, EventsFile, ManifestFile, HARFile, NetworkFile, StepPath(1), DOMPath(1), AXPath(1), ScreenshotPath(1)}
	for _, w := range want {
		require(t, setOf(names)[w], "missing %s in %v", w, names)
	}
	require(t, len(names) == 3+1+1+1+1+1+3*3+1, "%d entries: %v", len(names), names)
}

func setOf(s []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range s {
		m[x] = true
	}
	return m
}

func isSorted(s []string) bool {
	for i := 1; i < len(s); i++ {
		if s[i-1] >= s[i] {
			return false
		}
	}
	return true
}

func TestGoldenSmallBundle(t *testing.T) {
	path := filepath.Join("testdata", "small.bundle")
	file := writeBytes(t, smallBundle(t))
	if *update {
		requireNoErr(t, os.WriteFile(path, file, 0o644))
	}
	golden, err := os.ReadFile(path)
	requireNoErr(t, err)
	if !bytes.Equal(golden, file) {
		t.Fatalf("Write output differs from %s (%d vs %d bytes); if the format changed on purpose, run go test -run TestGolden -update", path, len(file), len(golden))
	}
	got, err := ReadFile(path, Limits{})
	requireNoErr(t, err)
	require(t, reflect.DeepEqual(got, smallBundle(t)), "golden bundle reads back different")
}

func TestWriteFileIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "branch.bundle")
	requireNoErr(t, WriteFile(path, smallBundle(t)))
	before, err := os.ReadFile(path)
	requireNoErr(t, err)
	st, err := os.Stat(path)
	requireNoErr(t, err)
	require(t, st.Mode().Perm() == 0o644, "mode %v", st.Mode())

	bad := smallBundle(t)
	bad.Steps[0].Action.Kind = branch.KindEval
	err = WriteFile(path, bad)
	require(t, errors.Is(err, ErrInvalid), "WriteFile of an invalid bundle: %v", err)
	after, err := os.ReadFile(path)
	requireNoErr(t, err)
	require(t, bytes.Equal(before, after), "failed WriteFile changed the existing file")
	entries, err := os.ReadDir(dir)
	requireNoErr(t, err)
	require(t, len(entries) == 1, "temporary files left behind: %v", entries)

	got, err := ReadFile(path, Limits{})
	requireNoErr(t, err)
	require(t, reflect.DeepEqual(got, smallBundle(t)), "ReadFile differs")
	_, err = ReadFile(filepath.Join(dir, "missing.bundle"), Limits{})
	require(t, errors.Is(err, os.ErrNotExist), "missing file: %v", err)
}

func TestWriteRefusesInvalidBundles(t *testing.T) {
	cases := []struct {
		name string
		edit func(b *Bundle)
		want error
		path string
		msg  string
	}{
		{"wrong schema", func(b *Bundle) { b.Manifest.Schema = "multiverse.bundle/v0" }, ErrSchema, ManifestFile, "unsupported schema"},
		{"steps count", func(b *Bundle) { b.Manifest.Steps = 2 }, ErrInvalid, ManifestFile, "plan has 3 actions"},
		{"missing step", func(b *Bundle) { b.Steps = b.Steps[:2] }, ErrInvalid, StepPath(3), "missing"},
		{"steps out of order", func(b *Bundle) { b.Steps[0], b.Steps[1] = b.Steps[1], b.Steps[0] }, ErrInvalid, StepPath(2), "index order"},
		{"action differs", func(b *Bundle) { b.Steps[1].Action.Target = &branch.Target{TestID: "other"} }, ErrInvalid, StepPath(2), "action differs"},
		{"bad status", func(b *Bundle) { b.Steps[0].Status = "skipped" }, ErrInvalid, StepPath(1), "status"},
		{"advisory last step", func(b *Bundle) { b.Steps[2].Advisory = true }, ErrInvalid, StepPath(3), "never advisory"},
		{"dom hash", func(b *Bundle) { b.Steps[2].DOMHash = sumHex([]byte("x")) }, ErrInvalid, DOMPath(3), "dom_hash"},
		{"body name", func(b *Bundle) { b.Files[BodyPath(sumHex([]byte("nope")))] = []byte("yes") }, ErrInvalid, BodyPath(sumHex([]byte("nope"))), "hashes to"},
		{"missing body", func(b *Bundle) { delete(b.Files, BodyPath(b.Network[0].BodySHA256)) }, ErrInvalid, BodyPath(sumHex([]byte("<!doctype html><title>Pricing</title><h1>Team</h1>"))), "missing"},
		{"unsafe content path", func(b *Bundle) { b.Files["../evil"] = []byte("x") }, ErrInvalid, "../evil", "not a content file path"},
		{"reserved content path", func(b *Bundle) { b.Files[ManifestFile] = []byte("{}") }, ErrInvalid, ManifestFile, "not a content file path"},
		{"file of no step", func(b *Bundle) { b.Files[DOMPath(4)] = []byte("x") }, ErrInvalid, DOMPath(4), "belongs to step 4"},
		{"network order", func(b *Bundle) { b.Network[1].Seq = 1 }, ErrInvalid, NetworkFile, "request order"},
		{"network step", func(b *Bundle) { b.Network[0].Step = 9 }, ErrInvalid, NetworkFile, "outside"},
		{"event run", func(b *Bundle) { b.Events[1].RunID = "other" }, ErrInvalid, EventsFile, "run_id"},
		{"event edited", func(b *Bundle) { b.Events[1].Kind = "nav" }, ErrInvalid, EventsFile, "hash mismatch"},
		{"kind", func(b *Bundle) { b.Manifest.Kind = "speculative" }, ErrInvalid, ManifestFile, "unknown kind"},
		{"commit without info", func(b *Bundle) { b.Manifest.Kind = KindCommit }, ErrInvalid, ManifestFile, "without commit info"},
		{"seed", func(b *Bundle) { b.Manifest.Seed = "-1" }, ErrInvalid, ManifestFile, "uint64"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := smallBundle(t)
			tc.edit(b)
			var buf bytes.Buffer
			err := Write(&buf, b)
			require(t, errors.Is(err, tc.want), "Write: %v, want %v", err, tc.want)
			require(t, buf.Len() == 0, "Write wrote %d bytes before refusing", buf.Len())
			var ie *InvalidError
			if errors.As(err, &ie) {
				rep := &Report{Problems: ie.Problems}
				require(t, hasProblem(rep, tc.path, 0, 0, tc.msg), "no problem %s %q in:%s", tc.path, tc.msg, problemList(rep))
			}
		})
	}
	err := Write(&bytes.Buffer{}, nil)
	require(t, errors.Is(err, ErrInvalid), "nil bundle: %v", err)
}

func TestWriteRefusesWhatReadersCannotRead(t *testing.T) {
	b := smallBundle(t)
	big := bytes.Repeat([]byte{'a'}, DefaultMaxFileBytes+1)
	b.Files[BodyPath(sumHex(big))] = big
	err := Write(&bytes.Buffer{}, b)
	require(t, errors.Is(err, ErrTooLarge), "oversized body: %v", err)
	require(t, strings.Contains(err.Error(), sumHex(big)), "error does not name the file: %v", err)
}

func TestEventsFromARealLog(t *testing.T) {
	// A real SQLite event log: the bundle holds the branch's subset and must
	// validate its hashes the way eventlog does.
	ctx := t.Context()
	l, err := eventlog.Open(ctx, filepath.Join(t.TempDir(), "events.db"))
	requireNoErr(t, err)
	defer l.Close()
	var in []eventlog.Event
	for _, e := range runEvents(t) {
		in = append(in, eventlog.Event{RunID: testRunID, Time: e.Time, VirtualTime: e.VirtualTime, Kind: e.Kind, BranchID: e.BranchID,
			Payload: []byte(strings.ReplaceAll(string(e.Payload), ",", " , ")), Artifacts: []string{}})
	}
	_, err = l.AppendBatch(ctx, in)
	requireNoErr(t, err)
	requireNoErr(t, l.Verify(ctx, testRunID))
	stored, err := l.Events(ctx, testRunID, eventlog.Query{})
	requireNoErr(t, err)
	require(t, reflect.DeepEqual(stored, runEvents(t)), "eventlog and the test chain disagree: the test's hash is wrong")

	b := smallBundle(t)
	b.Events, err = l.Events(ctx, testRunID, eventlog.Query{BranchID: testBranchID})
	requireNoErr(t, err)
	got, err := Read(bytes.NewReader(writeBytes(t, b)), Limits{})
	requireNoErr(t, err)
	require(t, reflect.DeepEqual(got.Events, b.Events), "events differ after the round trip")
}
