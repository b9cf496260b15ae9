package bundle

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// rawHeader builds a 512-byte ustar header by hand, so tests can write
// entries archive/tar's writer refuses to produce.
func rawHeader(name string, typeflag byte, size int64, linkname string) []byte {
	h := make([]byte, 512)
	copy(h[0:100], name)
	copy(h[100:108], "0000644\x00")
	copy(h[108:116], "0000000\x00")
	copy(h[116:124], "0000000\x00")
	copy(h[124:136], fmt.Sprintf("%011o\x00", size))
	copy(h[136:148], "00000000000\x00")
	h[156] = typeflag
	copy(h[157:257], linkname)
	copy(h[257:265], "ustar\x0000")
	for i := 148; i < 156; i++ {
		h[i] = ' '
	}
	sum := 0
	for _, c := range h {
		sum += int(c)
	}
	copy(h[148:156], fmt.Sprintf("%06o\x00 ", sum))
	return h
}

// rawEntry is a header plus its data padded to a block.
func rawEntry(name string, typeflag byte, data []byte) []byte {
	out := rawHeader(name, typeflag, int64(len(data)), "")
	out = append(out, data...)
	if pad := len(data) % 512; pad != 0 {
		out = append(out, make([]byte, 512-pad)...)
	}
	return out
}

// paxRecord formats one PAX extended header record.
func paxRecord(key, value string) string {
	body := " " + key + "=" + value + "\n"
	n := len(body)
	for {
		s := strconv.Itoa(n) + body
		if len(s) == n {
			return s
		}
		n = len(s)
	}
}

var tarEnd = make([]byte, 1024)

func tarOf(entries ...[]byte) []byte {
	return append(bytes.Join(entries, nil), tarEnd...)
}

func tarWith(t testing.TB, hdrs ...*tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range hdrs {
		requireNoErr(t, tw.WriteHeader(h))
		if h.Typeflag == tar.TypeReg {
			_, err := tw.Write(bytes.Repeat([]byte{'x'}, int(h.Size)))
			requireNoErr(t, err)
		}
	}
	requireNoErr(t, tw.Close())
	return buf.Bytes()
}

func reg(name string, size int64) *tar.Header {
	return &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: size, Mode: 0o644}
}

// inStream marks a case whose error is the compressed stream's, not an
// entry's.
const inStream = "(zstd stream)"

func TestReaderSafety(t *testing.T) {
	small := Limits{MaxFiles: 4, MaxFileBytes: 1000, MaxTotalBytes: 1500}
	valid := writeBytes(t, smallBundle(t))
	cases := []struct {
		name  string
		file  func(t testing.TB) []byte
		lim   Limits
		want  error
		entry string // the entry the error must name, or inStream
	}{
		{"absolute path", func(t testing.TB) []byte { return compress(t, tarWith(t, reg("/etc/passwd", 1))) }, Limits{}, ErrUnsafePath, "/etc/passwd"},
		{"dot dot", func(t testing.TB) []byte { return compress(t, tarWith(t, reg("../evil", 1))) }, Limits{}, ErrUnsafePath, "../evil"},
		{"dot dot inside", func(t testing.TB) []byte { return compress(t, tarWith(t, reg("steps/../../evil", 1))) }, Limits{}, ErrUnsafePath, "steps/../../evil"},
		{"backslash", func(t testing.TB) []byte { return compress(t, tarWith(t, reg(`steps\..\evil`, 1))) }, Limits{}, ErrUnsafePath, `steps\..\evil`},
		{"drive letter", func(t testing.TB) []byte { return compress(t, tarWith(t, reg("C:evil", 1))) }, Limits{}, ErrUnsafePath, "C:evil"},
		{"dot element", func(t testing.TB) []byte { return compress(t, tarWith(t, reg("./manifest.json", 1))) }, Limits{}, ErrUnsafePath, "./manifest.json"},
		{"empty element", func(t testing.TB) []byte { return compress(t, tarWith(t, reg("steps//0001.json", 1))) }, Limits{}, ErrUnsafePath, "steps//0001.json"},
		{"NUL in a PAX path", func(t testing.TB) []byte {
			rec := paxRecord("path", "manifest.json\x00../../evil")
			return compress(t, tarOf(rawEntry("PaxHeaders/x", 'x', []byte(rec)), rawEntry("x", tar.TypeReg, []byte("x"))))
		}, Limits{}, ErrCorrupt, "(first entry)"},
		{"symlink", func(t testing.TB) []byte {
			return compress(t, tarWith(t, &tar.Header{Typeflag: tar.TypeSymlink, Name: "manifest.json", Linkname: "/etc/passwd"}))
		}, Limits{}, ErrUnsafePath, "manifest.json"},
		{"hard link", func(t testing.TB) []byte {
			return compress(t, tarWith(t, reg("a", 1), &tar.Header{Typeflag: tar.TypeLink, Name: "manifest.json", Linkname: "a"}))
		}, Limits{}, ErrUnsafePath, "manifest.json"},
		{"character device", func(t testing.TB) []byte {
			return compress(t, tarWith(t, &tar.Header{Typeflag: tar.TypeChar, Name: "steps/0001.png", Devmajor: 1, Devminor: 3}))
		}, Limits{}, ErrUnsafePath, "steps/0001.png"},
		{"block device", func(t testing.TB) []byte {
			return compress(t, tarWith(t, &tar.Header{Typeflag: tar.TypeBlock, Name: "bodies/sda", Devmajor: 8}))
		}, Limits{}, ErrUnsafePath, "bodies/sda"},
		{"fifo", func(t testing.TB) []byte {
			return compress(t, tarWith(t, &tar.Header{Typeflag: tar.TypeFifo, Name: "events.jsonl"}))
		}, Limits{}, ErrUnsafePath, "events.jsonl"},
		{"directory", func(t testing.TB) []byte {
			return compress(t, tarWith(t, &tar.Header{Typeflag: tar.TypeDir, Name: "steps/", Mode: 0o755}))
		}, Limits{}, ErrUnsafePath, "steps/"},
		{"directory without a slash", func(t testing.TB) []byte {
			return compress(t, tarOf(rawEntry("steps", tar.TypeDir, nil)))
		}, Limits{}, ErrUnsafePath, "steps"},
		{"duplicate path", func(t testing.TB) []byte {
			return compress(t, tarWith(t, reg("manifest.json", 2), reg("events.jsonl", 1), reg("manifest.json", 3)))
		}, Limits{}, ErrUnsafePath, "manifest.json"},
		{"too many entries", func(t testing.TB) []byte {
			return compress(t, tarWith(t, reg("a", 1), reg("b", 1), reg("c", 1), reg("d", 1), reg("e", 1)))
		}, small, ErrTooLarge, "e"},
		{"entry too large", func(t testing.TB) []byte { return compress(t, tarWith(t, reg("a", 10), reg("big", 1001))) }, small, ErrTooLarge, "big"},
		{"total too large", func(t testing.TB) []byte {
			return compress(t, tarWith(t, reg("a", 900), reg("b", 500), reg("c", 101)))
		}, small, ErrTooLarge, "c"},
		{"declared size far beyond the data", func(t testing.TB) []byte {
			return compress(t, append(rawHeader("manifest.json", tar.TypeReg, 1<<32, ""), make([]byte, 512)...))
		}, Limits{}, ErrTooLarge, "manifest.json"},
		{"truncated entry", func(t testing.TB) []byte {
			return compress(t, append(rawHeader("manifest.json", tar.TypeReg, 900, ""), make([]byte, 512)...))
		}, Limits{}, ErrCorrupt, "manifest.json"},
		{"trailing garbage after the tar end", func(t testing.TB) []byte {
			return compress(t, append(tarWith(t, reg("a", 1)), "#!/bin/sh\nrm -rf /\n"...))
		}, Limits{}, ErrCorrupt, endOfArchive},
		{"long zero run after the tar end", func(t testing.TB) []byte {
			return compress(t, append(tarWith(t, reg("a", 1)), make([]byte, 1<<20)...))
		}, Limits{}, ErrCorrupt, endOfArchive},
		{"garbage after the zstd frame", func(t testing.TB) []byte { return append(bytes.Clone(valid), "garbage"...) }, Limits{}, ErrCorrupt, inStream},
		{"truncated zstd stream", func(t testing.TB) []byte { return valid[:len(valid)-10] }, Limits{}, ErrCorrupt, inStream},
		{"plain tar, not zstd", func(t testing.TB) []byte { return tarWith(t, reg("a", 1)) }, Limits{}, ErrCorrupt, inStream},
		{"zstd window over the reader's bound", func(t testing.TB) []byte {
			var out bytes.Buffer
			zw, err := zstd.NewWriter(&out, zstd.WithWindowSize(64<<20), zstd.WithEncoderConcurrency(1))
			requireNoErr(t, err)
			zw.Write(tarWith(t, reg("a", 16<<20)))
			requireNoErr(t, zw.Close())
			return out.Bytes()
		}, Limits{}, ErrCorrupt, inStream},
		{"extended headers past the stream bound", func(t testing.TB) []byte {
			// Go's tar reader merges consecutive PAX headers (up to 1 MiB
			// each) before it returns an entry: the stream bound stops them.
			rec := paxRecord("comment", strings.Repeat("a", 900<<10))
			var parts [][]byte
			for range 8 {
				parts = append(parts, rawEntry("PaxHeaders/x", 'x', []byte(rec)))
			}
			parts = append(parts, rawEntry("a", tar.TypeReg, []byte("x")))
			return compress(t, tarOf(parts...))
		}, Limits{MaxFiles: 1, MaxFileBytes: 1 << 10, MaxTotalBytes: 1 << 10}, ErrTooLarge, "(first entry)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := tc.file(t)
			_, err := Read(bytes.NewReader(file), tc.lim)
			t.Logf("Read: %v", err)
			require(t, errors.Is(err, tc.want), "Read: %v, want %v", err, tc.want)
			if tc.entry == inStream {
				var se *StreamError
				require(t, errors.As(err, &se), "Read error %T %v is not a *StreamError", err, err)
			} else if tc.entry != "" {
				var ee *EntryError
				require(t, errors.As(err, &ee), "Read error %T %v is not an *EntryError", err, err)
				require(t, strings.Contains(err.Error(), strconv.Quote(tc.entry)) || ee.Entry == tc.entry, "error %q does not name entry %q", err, tc.entry)
			}
			_, verr := Validate(bytes.NewReader(file), tc.lim)
			require(t, errors.Is(verr, tc.want), "Validate: %v, want %v", verr, tc.want)
		})
	}
}

func TestCheckPath(t *testing.T) {
	cases := map[string]bool{
		"manifest.json": true, "steps/0001.json": true, "bodies/ab": true,
		"": false, "/x": false, "..": false, "a/..": false, "../a": false, "a/../b": false, "a\\b": false,
		"a\x00b": false, "a:b": false, ".": false, "./a": false, "a/": false, "a//b": false, "\xff": false,
	}
	for name, ok := range cases {
		if got := checkPath(name) == ""; got != ok {
			t.Errorf("checkPath(%q) = %q, want ok=%v", name, checkPath(name), ok)
		}
	}
}

// TestDecompressionBomb feeds a file of a few KiB that decompresses to
// 1 GiB and checks that the reader stops early without allocating for it.
func TestDecompressionBomb(t *testing.T) {
	// 128 concatenated frames of 8 MiB of zeros after a tiny archive.
	zeros := compress(t, make([]byte, 8<<20))
	bomb := compress(t, tarWith(t, reg("a", 1)))
	for range 128 {
		bomb = append(bomb, zeros...)
	}
	require(t, len(bomb) < 1<<20, "bomb is %d bytes", len(bomb))

	// And an entry that claims (and holds) 1 GiB: refused from its header.
	var raw bytes.Buffer
	zw, err := zstd.NewWriter(&raw, zstd.WithEncoderConcurrency(1))
	requireNoErr(t, err)
	zw.Write(rawHeader("bodies/big", tar.TypeReg, 1<<30, ""))
	zw.Close()
	big := raw.Bytes()
	for range 128 {
		big = append(big, zeros...)
	}

	for _, tc := range []struct {
		name string
		file []byte
		want error
	}{{"zeros after the tar end", bomb, ErrCorrupt}, {"huge entry", big, ErrTooLarge}} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := Read(bytes.NewReader(tc.file), Limits{})
			runtime.ReadMemStats(&after)
			require(t, errors.Is(err, tc.want), "Read: %v, want %v", err, tc.want)
			alloc := after.TotalAlloc - before.TotalAlloc
			require(t, alloc < 48<<20, "Read allocated %d MiB for a bomb", alloc>>20)
		})
	}
}

func TestStreamCapSaturates(t *testing.T) {
	for _, l := range []Limits{
		{MaxFiles: math.MaxInt, MaxFileBytes: 1, MaxTotalBytes: 1},
		{MaxFiles: 1, MaxFileBytes: 1, MaxTotalBytes: math.MaxInt64},
		{MaxFiles: math.MaxInt, MaxFileBytes: math.MaxInt64, MaxTotalBytes: math.MaxInt64},
	} {
		require(t, l.withDefaults().streamCap() > 0, "streamCap of %+v overflows", l)
	}
	require(t, Limits{}.withDefaults().streamCap() > DefaultMaxTotalBytes, "default stream cap below the total limit")
	b, err := Read(bytes.NewReader(writeBytes(t, smallBundle(t))), Limits{MaxFiles: math.MaxInt, MaxFileBytes: math.MaxInt64, MaxTotalBytes: math.MaxInt64})
	require(t, err == nil && b != nil, "Read with maximal limits: %v", err)
}
