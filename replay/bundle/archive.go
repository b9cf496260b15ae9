package bundle

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// archive is the content of a bundle file after the reader's safety checks:
// regular files by path, each read in full.
type archive struct {
	files map[string][]byte
}

// errStreamCap is returned by capReader when the decompressed stream runs
// past its bound.
var errStreamCap = errors.New("decompressed stream exceeds its bound")

// capReader fails once more than n bytes were read through it, so that a
// decompression bomb stops at the bound instead of running on.
type capReader struct {
	r io.Reader
	n int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n <= 0 {
		return 0, errStreamCap
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	n, err := c.r.Read(p)
	c.n -= int64(n)
	return n, err
}

// readArchive decompresses and unpacks a bundle file, refusing anything
// unsafe before allocating for it: see the package documentation.
func readArchive(r io.Reader, lim Limits) (*archive, error) {
	in := &countingReader{r: r}
	dec, err := zstd.NewReader(in,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(maxDecoderWindow),
		zstd.WithDecoderMaxMemory(maxDecoderWindow))
	if err != nil {
		return nil, &StreamError{Offset: in.n, Err: err}
	}
	defer dec.Close()
	return readTar(&decompressor{r: dec, in: in}, lim)
}

// countingReader counts the bytes of the file the decoder has consumed.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// decompressor turns every error of the zstd decoder into a *StreamError,
// so a damaged compressed stream is reported as such rather than blamed on
// the archive entry that was being read when the decoder noticed.
type decompressor struct {
	r   io.Reader
	in  *countingReader
	err *StreamError // the first decoder error
}

func (d *decompressor) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	n, err := d.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		d.err = &StreamError{Offset: d.in.n, Err: err}
		return n, d.err
	}
	return n, err
}

// damaged drains the rest of the stream (within r's bound) and returns the
// decoder's error, if any: a tar archive that does not parse may be the
// symptom of a compressed stream that does not decode, which its frame
// checksum reveals only at the end of the frame.
func damaged(r io.Reader) *StreamError {
	cr, ok := r.(*capReader)
	if !ok {
		return nil
	}
	d, ok := cr.r.(*decompressor)
	if !ok {
		return nil
	}
	if d.err == nil {
		io.Copy(io.Discard, cr)
	}
	return d.err
}

// readTar unpacks a decompressed tar stream (see readArchive), reading at
// most lim.streamCap() bytes of it.
func readTar(r io.Reader, lim Limits) (*archive, error) {
	lim = lim.withDefaults()
	stream := &capReader{r: r, n: lim.streamCap()}
	tr := tar.NewReader(stream)
	a := &archive{files: make(map[string][]byte)}
	var total int64
	last := ""
	streamErr := func(where string, err error) error {
		if se := damaged(stream); se != nil {
			return se
		}
		if errors.Is(err, errStreamCap) {
			return &EntryError{Entry: where, Err: ErrTooLarge, Reason: fmt.Sprintf("archive decompresses to more than %d bytes", lim.streamCap())}
		}
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return &EntryError{Entry: where, Err: ErrCorrupt, Reason: err.Error()}
	}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, streamErr(entryAfter(last), err)
		}
		name := hdr.Name
		refuse := func(sentinel error, format string, args ...any) error {
			return &EntryError{Entry: name, Err: sentinel, Reason: fmt.Sprintf(format, args...)}
		}
		if len(a.files) >= lim.MaxFiles {
			return nil, refuse(ErrTooLarge, "more than %d entries", lim.MaxFiles)
		}
		if why := checkPath(name); why != "" {
			return nil, refuse(ErrUnsafePath, "%s", why)
		}
		if hdr.Typeflag != tar.TypeReg {
			return nil, refuse(ErrUnsafePath, "%s: only regular files are allowed", typeName(hdr.Typeflag))
		}
		if _, dup := a.files[name]; dup {
			return nil, refuse(ErrUnsafePath, "duplicate path")
		}
		switch {
		case hdr.Size < 0:
			return nil, refuse(ErrCorrupt, "negative size %d", hdr.Size)
		case hdr.Size > lim.MaxFileBytes:
			return nil, refuse(ErrTooLarge, "%d bytes, the limit is %d", hdr.Size, lim.MaxFileBytes)
		case hdr.Size > lim.MaxTotalBytes-total:
			return nil, refuse(ErrTooLarge, "entries total more than %d bytes", lim.MaxTotalBytes)
		}
		total += hdr.Size
		data := make([]byte, hdr.Size)
		if _, err := io.ReadFull(tr, data); err != nil {
			return nil, streamErr(name, err)
		}
		a.files[name] = data
		last = name
	}
	if err := checkTrailing(stream); err != nil {
		var ee *EntryError
		if errors.As(err, &ee) {
			return nil, err
		}
		return nil, streamErr(endOfArchive, err)
	}
	return a, nil
}

// checkTrailing reads what follows the tar end marker to the end of the
// compressed stream: at most maxTrailing zero bytes of record padding.
// Reading to the end also makes the decoder verify the last frame's
// checksum and refuse data after the last frame.
func checkTrailing(r io.Reader) error {
	buf := make([]byte, 4096)
	var n int64
	for {
		k, err := r.Read(buf)
		for _, c := range buf[:k] {
			if c != 0 {
				return &EntryError{Entry: endOfArchive, Err: ErrCorrupt, Reason: "trailing data after the end of the tar archive"}
			}
		}
		n += int64(k)
		if n > maxTrailing {
			return &EntryError{Entry: endOfArchive, Err: ErrCorrupt, Reason: fmt.Sprintf("more than %d bytes of padding after the end of the tar archive", maxTrailing)}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// endOfArchive names the position after the last tar entry in errors.
const endOfArchive = "(end of archive)"

func entryAfter(last string) string {
	if last == "" {
		return "(first entry)"
	}
	return "(entry after " + last + ")"
}

func typeName(t byte) string {
	switch t {
	case tar.TypeSymlink:
		return "symbolic link"
	case tar.TypeLink:
		return "hard link"
	case tar.TypeChar:
		return "character device"
	case tar.TypeBlock:
		return "block device"
	case tar.TypeDir:
		return "directory"
	case tar.TypeFifo:
		return "FIFO"
	case tar.TypeXGlobalHeader:
		return "global extended header"
	case tar.TypeGNUSparse:
		return "sparse file"
	}
	return fmt.Sprintf("entry type %q", t)
}
