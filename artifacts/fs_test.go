package artifacts_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
)

func openStore(t testing.TB) *artifacts.FS {
	t.Helper()
	s, err := artifacts.OpenFS(filepath.Join(t.TempDir(), "artifacts"))
	if err != nil {
		t.Fatalf("OpenFS: %v", err)
	}
	return s
}

func mustPut(t testing.TB, s *artifacts.FS, data []byte) artifacts.Digest {
	t.Helper()
	d, err := s.Put(context.Background(), data)
	if err != nil {
		t.Fatalf("Put: %v", err)
	}
	return d
}

// storedFiles lists every regular file under the store's root, relative to it.
func storedFiles(t testing.TB, s *artifacts.FS) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(s.Root(), func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.Type().IsRegular() {
			rel, _ := filepath.Rel(s.Root(), p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking store: %v", err)
	}
	return out
}

// flipByte makes the stored file for d writable and inverts one of its bytes.
func flipByte(t testing.TB, path string, off int) {
	t.Helper()
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[off] ^= 0xff
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"small", []byte("abc")},
		{"binary", []byte{0, 1, 2, 0xff, '\n', 0}},
		{"large", bytes.Repeat([]byte("multiverse "), 100_000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := mustPut(t, s, tc.data)
			if d != artifacts.Sum(tc.data) {
				t.Fatalf("Put digest %s, want %s", d, artifacts.Sum(tc.data))
			}
			got, err := s.Get(ctx, d)
			if err != nil || !bytes.Equal(got, tc.data) {
				t.Fatalf("Get = %d bytes, %v; want %d bytes", len(got), err, len(tc.data))
			}
			if ok, err := s.Has(ctx, d); !ok || err != nil {
				t.Fatalf("Has = %v, %v", ok, err)
			}
			rc, err := s.Open(ctx, d)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			streamed, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || !bytes.Equal(streamed, tc.data) {
				t.Fatalf("Open+ReadAll = %d bytes, %v", len(streamed), err)
			}
			if err := s.Verify(ctx, d); err != nil {
				t.Fatalf("Verify: %v", err)
			}
			p := s.Path(d)
			if want := filepath.Join(s.Root(), "sha256", string(d[:2]), string(d)); p != want {
				t.Fatalf("Path = %s, want %s", p, want)
			}
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o444 {
				t.Fatalf("mode = %v, want 0444", fi.Mode().Perm())
			}
		})
	}
}

func TestPutReader(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	data := bytes.Repeat([]byte{1, 2, 3, 4, 5}, 300_000)
	d, n, err := s.PutReader(ctx, bytes.NewReader(data))
	if err != nil {
		t.Fatalf("PutReader: %v", err)
	}
	if d != artifacts.Sum(data) || n != int64(len(data)) {
		t.Fatalf("PutReader = %s, %d; want %s, %d", d, n, artifacts.Sum(data), len(data))
	}
	got, err := s.Get(ctx, d)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get after PutReader: %d bytes, %v", len(got), err)
	}
	// Same content again through both entry points: one file, no leftovers.
	if d2, _, err := s.PutReader(ctx, bytes.NewReader(data)); err != nil || d2 != d {
		t.Fatalf("second PutReader = %s, %v", d2, err)
	}
	if d3 := mustPut(t, s, data); d3 != d {
		t.Fatalf("Put = %s, want %s", d3, d)
	}
	if files := storedFiles(t, s); len(files) != 1 {
		t.Fatalf("store holds %v, want exactly one file", files)
	}
}

type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("boom")
	}
	m := min(len(p), f.n)
	f.n -= m
	return m, nil
}

func TestPutReaderFailureStoresNothing(t *testing.T) {
	s := openStore(t)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		r    io.Reader
		want error
	}{
		{"reader error", context.Background(), &failingReader{n: 100_000}, nil},
		{"cancelled", cancelled, strings.NewReader("x"), context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := s.PutReader(tc.ctx, tc.r)
			if err == nil {
				t.Fatal("PutReader succeeded, want error")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if files := storedFiles(t, s); len(files) != 0 {
				t.Fatalf("store holds %v after a failed put", files)
			}
		})
	}
}

func TestPutIdempotent(t *testing.T) {
	s := openStore(t)
	data := []byte("same bytes")
	d := mustPut(t, s, data)
	fi1, err := os.Stat(s.Path(d))
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if got := mustPut(t, s, data); got != d {
			t.Fatalf("Put = %s, want %s", got, d)
		}
	}
	fi2, err := os.Stat(s.Path(d))
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(fi1, fi2) {
		t.Fatal("a repeated Put of intact content rewrote the file")
	}
	if files := storedFiles(t, s); len(files) != 1 {
		t.Fatalf("store holds %v, want one file", files)
	}
}

func TestCorruptionDetected(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	data := bytes.Repeat([]byte("invoice "), 10_000)
	d := mustPut(t, s, data)
	p := s.Path(d)
	flipByte(t, p, 1234)
	corrupted, _ := os.ReadFile(p)

	check := func(t *testing.T, err error) {
		t.Helper()
		var ce *artifacts.CorruptError
		if !errors.As(err, &ce) {
			t.Fatalf("error %v, want *CorruptError", err)
		}
		if ce.Digest != d || ce.Path != p || ce.Got != artifacts.Sum(corrupted) {
			t.Fatalf("CorruptError = %+v, want digest %s path %s got %s", ce, d, p, artifacts.Sum(corrupted))
		}
		if !strings.Contains(ce.Error(), p) {
			t.Fatalf("error text %q does not name the file", ce.Error())
		}
	}
	t.Run("Get", func(t *testing.T) {
		got, err := s.Get(ctx, d)
		if got != nil {
			t.Fatal("Get returned bytes of a corrupt artifact")
		}
		check(t, err)
	})
	t.Run("Verify", func(t *testing.T) { check(t, s.Verify(ctx, d)) })
	t.Run("Open", func(t *testing.T) {
		rc, err := s.Open(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		_, err = io.ReadAll(rc)
		check(t, err)
	})
	t.Run("truncated", func(t *testing.T) {
		d := mustPut(t, s, []byte("truncate me"))
		if err := os.Chmod(s.Path(d), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(s.Path(d), 3); err != nil {
			t.Fatal(err)
		}
		var ce *artifacts.CorruptError
		if err := s.Verify(ctx, d); !errors.As(err, &ce) || ce.Got != artifacts.Sum([]byte("tru")) {
			t.Fatalf("Verify of truncated file = %v", err)
		}
	})
	t.Run("Put repairs", func(t *testing.T) {
		if got := mustPut(t, s, data); got != d {
			t.Fatalf("Put = %s", got)
		}
		if err := s.Verify(ctx, d); err != nil {
			t.Fatalf("Verify after repair: %v", err)
		}
	})
}

func TestNotFound(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	d := artifacts.Sum([]byte("never stored"))
	if ok, err := s.Has(ctx, d); ok || err != nil {
		t.Fatalf("Has = %v, %v; want false, nil", ok, err)
	}
	for name, err := range map[string]error{
		"Get":    func() error { _, err := s.Get(ctx, d); return err }(),
		"Open":   func() error { _, err := s.Open(ctx, d); return err }(),
		"Verify": s.Verify(ctx, d),
	} {
		if !errors.Is(err, artifacts.ErrNotFound) {
			t.Errorf("%s: error %v, want ErrNotFound", name, err)
		}
	}
}

func TestBadDigest(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	for _, bad := range []artifacts.Digest{"", "abc", "sha256:" + abcSum, artifacts.Digest(strings.ToUpper(abcSum)), "../../../../etc/passwd"} {
		t.Run(string(bad), func(t *testing.T) {
			if p := s.Path(bad); p != "" {
				t.Errorf("Path = %q, want empty", p)
			}
			_, err := s.Get(ctx, bad)
			if !errors.Is(err, artifacts.ErrBadDigest) {
				t.Errorf("Get: %v", err)
			}
			if _, err := s.Open(ctx, bad); !errors.Is(err, artifacts.ErrBadDigest) {
				t.Errorf("Open: %v", err)
			}
			if _, err := s.Has(ctx, bad); !errors.Is(err, artifacts.ErrBadDigest) {
				t.Errorf("Has: %v", err)
			}
			if err := s.Verify(ctx, bad); !errors.Is(err, artifacts.ErrBadDigest) {
				t.Errorf("Verify: %v", err)
			}
		})
	}
}

func TestWalk(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	var want []string
	for i := range 40 {
		want = append(want, string(mustPut(t, s, []byte(strconv.Itoa(i)))))
	}
	// Junk the walk must skip: a stray temp file, a misplaced name, a foreign dir.
	d0 := artifacts.Digest(want[0])
	junk := []string{
		filepath.Join(filepath.Dir(s.Path(d0)), ".tmp-deadbeef-123"),
		filepath.Join(s.Root(), "sha256", "zz", want[0]),
		filepath.Join(s.Root(), "sha256", "00", abcSum), // wrong prefix dir
		filepath.Join(s.Root(), "tmp", ".tmp-1"),
	}
	for _, j := range junk {
		if err := os.MkdirAll(filepath.Dir(j), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(j, []byte("junk"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	if err := s.Walk(ctx, func(d artifacts.Digest) error { got = append(got, string(d)); return nil }); err != nil {
		t.Fatalf("Walk: %v", err)
	}
	sortStrings(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Walk visited\n%v\nwant\n%v", got, want)
	}

	stop := errors.New("stop")
	n := 0
	err := s.Walk(ctx, func(artifacts.Digest) error {
		n++
		if n == 5 {
			return stop
		}
		return nil
	})
	if err != stop || n != 5 {
		t.Fatalf("Walk with stopping fn = %v after %d calls, want stop after 5", err, n)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Walk(cctx, func(artifacts.Digest) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("Walk with cancelled ctx = %v", err)
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func TestConcurrentPuts(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	blobs := [][]byte{
		bytes.Repeat([]byte("a"), 200_000),
		bytes.Repeat([]byte("b"), 10),
		nil,
		bytes.Repeat([]byte("cd"), 70_000),
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 32 {
		wg.Go(func() {
			for i := range blobs {
				b := blobs[(g+i)%len(blobs)]
				var d artifacts.Digest
				var err error
				if g%2 == 0 {
					d, err = s.Put(ctx, b)
				} else {
					d, _, err = s.PutReader(ctx, bytes.NewReader(b))
				}
				if err == nil && d != artifacts.Sum(b) {
					err = fmt.Errorf("digest %s, want %s", d, artifacts.Sum(b))
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, b := range blobs {
		if got, err := s.Get(ctx, artifacts.Sum(b)); err != nil || !bytes.Equal(got, b) {
			t.Errorf("Get after concurrent puts: %d bytes, %v", len(got), err)
		}
	}
	if files := storedFiles(t, s); len(files) != len(blobs) {
		t.Fatalf("store holds %v, want %d artifacts and no temporary files", files, len(blobs))
	}
}

// helperEnv tells a re-executed test binary to act as a second writer process.
const helperEnv = "ARTIFACTS_TEST_HELPER_ROOT"

// processBlobs is the content every writer process stores.
func processBlobs() [][]byte {
	var out [][]byte
	for i := range 30 {
		out = append(out, bytes.Repeat([]byte{byte(i)}, 1000*(i+1)))
	}
	return out
}

// TestHelperProcess is not a real test: it is the body of the child writer
// processes started by TestConcurrentPutsAcrossProcesses.
func TestHelperProcess(t *testing.T) {
	root := os.Getenv(helperEnv)
	if root == "" {
		t.Skip("helper process only")
	}
	s, err := artifacts.OpenFS(root)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		for _, b := range processBlobs() {
			if _, err := s.Put(context.Background(), b); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestConcurrentPutsAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	ctx := context.Background()
	s := openStore(t)
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperEnv+"="+s.Root())
		out := new(bytes.Buffer)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	for _, b := range processBlobs() {
		if _, err := s.Put(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer process %d: %v\n%s", i, err, outs[i])
		}
	}
	for _, b := range processBlobs() {
		if err := s.Verify(ctx, artifacts.Sum(b)); err != nil {
			t.Error(err)
		}
	}
	if files := storedFiles(t, s); len(files) != len(processBlobs()) {
		t.Fatalf("store holds %d files, want %d and no temporary files", len(files), len(processBlobs()))
	}
}

func TestOpenFSErrors(t *testing.T) {
	if _, err := artifacts.OpenFS(""); err == nil {
		t.Fatal("OpenFS(\"\") succeeded")
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := artifacts.OpenFS(file); err == nil {
		t.Fatal("OpenFS on a regular file succeeded")
	}
}

func payload100KiB(i int) []byte {
	b := bytes.Repeat([]byte("0123456789abcdef"), 100*1024/16)
	copy(b, strconv.Itoa(i))
	return b
}

func BenchmarkPut100KiB(b *testing.B) {
	ctx := context.Background()
	s := openStore(b)
	b.SetBytes(100 * 1024)
	i := 0
	for b.Loop() {
		i++
		if _, err := s.Put(ctx, payload100KiB(i)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPutExisting100KiB(b *testing.B) {
	ctx := context.Background()
	s := openStore(b)
	data := payload100KiB(0)
	mustPut(b, s, data)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := s.Put(ctx, data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGet100KiB(b *testing.B) {
	ctx := context.Background()
	s := openStore(b)
	d := mustPut(b, s, payload100KiB(0))
	b.SetBytes(100 * 1024)
	for b.Loop() {
		if _, err := s.Get(ctx, d); err != nil {
			b.Fatal(err)
		}
	}
}
