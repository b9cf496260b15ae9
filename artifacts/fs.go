package artifacts

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

const (
	objectsDir = "sha256" // under the root: <2 hex>/<64 hex>
	stagingDir = "tmp"    // under the root: PutReader's temporary files
	tempPrefix = ".tmp-"  // temporary files next to their final name (Put)
	fileMode   = 0o444
	dirMode    = 0o755
)

// FS is a content-addressed store on a local file system, laid out as
// described in the package documentation. Its methods are safe for
// concurrent use, and several FS values (in one or several processes) may
// share a root.
type FS struct {
	root string
}

// OpenFS opens the store rooted at dir, creating the directory and its
// layout if needed. It fails if dir is empty or cannot be created.
func OpenFS(dir string) (*FS, error) {
	if dir == "" {
		return nil, errors.New("artifacts: open: empty directory")
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("artifacts: open %s: %w", dir, err)
	}
	for _, sub := range []string{objectsDir, stagingDir} {
		if err := os.MkdirAll(filepath.Join(root, sub), dirMode); err != nil {
			return nil, fmt.Errorf("artifacts: open %s: %w", dir, err)
		}
	}
	return &FS{root: root}, nil
}

// Root returns the absolute root directory of the store.
func (s *FS) Root() string { return s.root }

// Path returns the file that holds (or would hold) the artifact d, or "" if
// d is not a valid digest. The file is not guaranteed to exist.
func (s *FS) Path(d Digest) string {
	if d.Validate() != nil {
		return ""
	}
	return filepath.Join(s.root, objectsDir, string(d[:2]), string(d))
}

// Put stores data and returns its digest. It is idempotent: storing content
// that is already present and intact does no write. Otherwise the bytes are
// written to a temporary file in the destination directory, fsynced, made
// read-only and renamed into place, so concurrent Puts of the same content
// (from any number of goroutines or processes) all succeed and readers only
// ever see complete files. A stored file whose bytes differ from data (a
// corrupt copy) is replaced. On error nothing is visible under the digest
// that was not there before.
func (s *FS) Put(ctx context.Context, data []byte) (Digest, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("artifacts: put: %w", err)
	}
	d := Sum(data)
	p := s.Path(d)
	if same, err := sameContent(p, data); err != nil {
		return "", fmt.Errorf("artifacts: put %s: %w", d, err)
	} else if same {
		return d, nil
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return "", fmt.Errorf("artifacts: put %s: %w", d, err)
	}
	f, err := os.CreateTemp(dir, tempPrefix+string(d[:8])+"-*")
	if err != nil {
		return "", fmt.Errorf("artifacts: put %s: %w", d, err)
	}
	if _, err := f.Write(data); err != nil {
		discard(f)
		return "", fmt.Errorf("artifacts: put %s: write: %w", d, err)
	}
	if err := commitFile(f, p); err != nil {
		return "", fmt.Errorf("artifacts: put %s: %w", d, err)
	}
	return d, nil
}

// PutReader streams r into the store, hashing while it copies, and returns
// the digest and the number of bytes stored. The bytes are staged in a
// temporary file under the root, fsynced and renamed into place, with the
// same concurrency and atomicity guarantees as [FS.Put]. If r fails or ctx
// is cancelled mid-stream, nothing is stored and the error is returned.
func (s *FS) PutReader(ctx context.Context, r io.Reader) (Digest, int64, error) {
	if err := ctx.Err(); err != nil {
		return "", 0, fmt.Errorf("artifacts: put: %w", err)
	}
	staging := filepath.Join(s.root, stagingDir)
	if err := os.MkdirAll(staging, dirMode); err != nil {
		return "", 0, fmt.Errorf("artifacts: put: %w", err)
	}
	f, err := os.CreateTemp(staging, tempPrefix+"*")
	if err != nil {
		return "", 0, fmt.Errorf("artifacts: put: %w", err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), ctxReader{ctx: ctx, r: r})
	if err != nil {
		discard(f)
		return "", n, fmt.Errorf("artifacts: put: copy: %w", err)
	}
	d := Digest(hex.EncodeToString(h.Sum(nil)))
	p := s.Path(d)
	if err := os.MkdirAll(filepath.Dir(p), dirMode); err != nil {
		discard(f)
		return "", n, fmt.Errorf("artifacts: put %s: %w", d, err)
	}
	if err := commitFile(f, p); err != nil {
		return "", n, fmt.Errorf("artifacts: put %s: %w", d, err)
	}
	return d, n, nil
}

// Get returns the bytes stored under d after checking that they hash to d.
// It returns an error matching [ErrBadDigest] for a malformed digest,
// [ErrNotFound] if nothing is stored under d, and a [*CorruptError] if the
// stored bytes do not hash to d.
func (s *FS) Get(ctx context.Context, d Digest) ([]byte, error) {
	if err := s.check(ctx, d, "get"); err != nil {
		return nil, err
	}
	p := s.Path(d)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, notFoundOr(d, "get", err)
	}
	if got := Sum(data); got != d {
		return nil, &CorruptError{Digest: d, Got: got, Path: p}
	}
	return data, nil
}

// Open returns a reader of the bytes stored under d, for artifacts too large
// to hold in memory. The reader hashes what it delivers and, at end of
// stream, returns a [*CorruptError] instead of io.EOF if the bytes did not
// hash to d: callers must read to io.EOF before trusting the content. Open
// itself returns [ErrBadDigest] or [ErrNotFound] errors like [FS.Get]. The
// caller must Close the reader.
func (s *FS) Open(ctx context.Context, d Digest) (io.ReadCloser, error) {
	if err := s.check(ctx, d, "open"); err != nil {
		return nil, err
	}
	p := s.Path(d)
	f, err := os.Open(p)
	if err != nil {
		return nil, notFoundOr(d, "open", err)
	}
	return &verifyingReader{f: f, h: sha256.New(), want: d, path: p}, nil
}

// Has reports whether an artifact is stored under d, without reading or
// verifying it. A malformed digest returns an error matching [ErrBadDigest].
func (s *FS) Has(ctx context.Context, d Digest) (bool, error) {
	if err := s.check(ctx, d, "has"); err != nil {
		return false, err
	}
	fi, err := os.Stat(s.Path(d))
	switch {
	case err == nil:
		return fi.Mode().IsRegular(), nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, fmt.Errorf("artifacts: has %s: %w", d, err)
	}
}

// Verify re-hashes the file stored under d, streaming it from disk. It
// returns nil if the content is intact, a [*CorruptError] if not, and
// errors matching [ErrNotFound] or [ErrBadDigest] like [FS.Get].
func (s *FS) Verify(ctx context.Context, d Digest) error {
	rc, err := s.Open(ctx, d)
	if err != nil {
		return err
	}
	defer rc.Close()
	if _, err := io.Copy(io.Discard, ctxReader{ctx: ctx, r: rc}); err != nil {
		var ce *CorruptError
		if errors.As(err, &ce) {
			return ce
		}
		return fmt.Errorf("artifacts: verify %s: %w", d, err)
	}
	return nil
}

// Walk calls fn for every stored digest in ascending order. Temporary files
// and names that are not digests are skipped. Walk stops at the first error
// from fn and returns it unchanged; it returns ctx's error if ctx is done
// between calls. Artifacts added during the walk may or may not be visited.
func (s *FS) Walk(ctx context.Context, fn func(Digest) error) error {
	objects := filepath.Join(s.root, objectsDir)
	prefixes, err := os.ReadDir(objects)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("artifacts: walk: %w", err)
	}
	for _, pe := range prefixes { // ReadDir sorts by name
		name := pe.Name()
		if !pe.IsDir() || len(name) != 2 || !isLowerHex(name) {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(objects, name))
		if err != nil {
			return fmt.Errorf("artifacts: walk: %w", err)
		}
		for _, e := range entries {
			d := Digest(e.Name())
			if !e.Type().IsRegular() || d.Validate() != nil || string(d[:2]) != name {
				continue
			}
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("artifacts: walk: %w", err)
			}
			if err := fn(d); err != nil {
				return err
			}
		}
	}
	return nil
}

// check validates the context and the digest for operation op.
func (s *FS) check(ctx context.Context, d Digest, op string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("artifacts: %s %s: %w", op, string(d), err)
	}
	if err := d.Validate(); err != nil {
		return fmt.Errorf("artifacts: %s: %w", op, err)
	}
	return nil
}

// notFoundOr maps a missing file to ErrNotFound and wraps anything else.
func notFoundOr(d Digest, op string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s", ErrNotFound, d)
	}
	return fmt.Errorf("artifacts: %s %s: %w", op, d, err)
}

// sameContent reports whether the file at p exists and holds exactly data.
func sameContent(p string, data []byte) (bool, error) {
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	if !fi.Mode().IsRegular() || fi.Size() != int64(len(data)) {
		return false, nil
	}
	onDisk, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	return bytes.Equal(onDisk, data), nil
}

// commitFile makes the fully written temporary file f durable and read-only,
// renames it to dst and syncs dst's directory. f is closed, and removed on
// failure.
func commitFile(f *os.File, dst string) error {
	if err := f.Sync(); err != nil {
		discard(f)
		return fmt.Errorf("sync: %w", err)
	}
	if err := f.Chmod(fileMode); err != nil {
		discard(f)
		return fmt.Errorf("chmod: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("close: %w", err)
	}
	if err := os.Rename(f.Name(), dst); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("rename: %w", err)
	}
	return syncDir(filepath.Dir(dst))
}

// discard closes and removes an abandoned temporary file.
func discard(f *os.File) {
	f.Close()
	os.Remove(f.Name())
}

// syncDir fsyncs a directory so a rename into it survives a crash. File
// systems that cannot sync directories are tolerated.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync dir: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return fmt.Errorf("sync dir: %w", err)
	}
	return nil
}

// ctxReader stops a copy once its context is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// verifyingReader hashes what it reads and checks the digest at EOF.
type verifyingReader struct {
	f    *os.File
	h    hash.Hash
	want Digest
	path string
	err  error // sticky terminal result once EOF was seen
}

func (v *verifyingReader) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	n, err := v.f.Read(p)
	v.h.Write(p[:n])
	if err == io.EOF {
		if got := Digest(hex.EncodeToString(v.h.Sum(nil))); got != v.want {
			v.err = &CorruptError{Digest: v.want, Got: got, Path: v.path}
		} else {
			v.err = io.EOF
		}
		return n, v.err
	}
	return n, err
}

func (v *verifyingReader) Close() error { return v.f.Close() }
