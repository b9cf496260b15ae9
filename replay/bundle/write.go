package bundle

import (
	"archive/tar"
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// Write stores b as one portable bundle file on w: every file of the
// bundle, including network.har and checksums.json computed here, in a PAX
// tar archive compressed with zstd (see the package documentation).
//
// Write first runs the checks [Read] runs and refuses a bundle that would
// not read back: an unsupported schema (*SchemaError, ErrSchema), any
// integrity problem (*InvalidError, ErrInvalid), or a file count or size
// over the default [Limits] (*EntryError, ErrTooLarge). Nothing is written
// then. Otherwise the output is a pure function of b: writing the same
// Bundle twice gives identical bytes. Write does not modify b. An error
// from w is returned wrapped; w may then hold a partial file.
func Write(w io.Writer, b *Bundle) error {
	files, err := encodeFiles(b)
	if err != nil {
		return err
	}
	zw, err := zstd.NewWriter(w,
		zstd.WithEncoderLevel(zstd.SpeedDefault),
		zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(encoderWindow),
		zstd.WithEncoderCRC(true))
	if err != nil {
		return fmt.Errorf("bundle: write: zstd: %w", err)
	}
	tw := tar.NewWriter(zw)
	mtime := archiveTime(b.Manifest.Created)
	for _, p := range sortedKeys(files) {
		hdr := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     p,
			Size:     int64(len(files[p])),
			Mode:     0o644,
			ModTime:  mtime,
			Format:   tar.FormatPAX,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			zw.Close()
			return fmt.Errorf("bundle: write %s: %w", p, err)
		}
		if _, err := tw.Write(files[p]); err != nil {
			zw.Close()
			return fmt.Errorf("bundle: write %s: %w", p, err)
		}
	}
	if err := tw.Close(); err != nil {
		zw.Close()
		return fmt.Errorf("bundle: write: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("bundle: write: %w", err)
	}
	return nil
}

// WriteFile writes b to path atomically: into a temporary file in the same
// directory, synced, then renamed over path. On error path is untouched
// and the temporary file removed. The file has mode 0644.
func WriteFile(path string, b *Bundle) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("bundle: write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := Write(bw, b); err != nil {
		return fmt.Errorf("bundle: write %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("bundle: write %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("bundle: write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("bundle: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("bundle: write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("bundle: write %s: %w", path, err)
	}
	if d, derr := os.Open(dir); derr == nil { // make the rename durable; best effort
		d.Sync()
		d.Close()
	}
	return nil
}

// archiveTime is the mtime of every tar entry: Created truncated to the
// second, or the Unix epoch when Created is before it.
func archiveTime(created time.Time) time.Time {
	t := created.UTC().Truncate(time.Second)
	if t.Before(time.Unix(0, 0)) {
		return time.Unix(0, 0).UTC()
	}
	return t
}

// encodeFiles checks b and returns every file of its bundle by path,
// checksums.json included.
func encodeFiles(b *Bundle) (map[string][]byte, error) {
	if b == nil {
		return nil, &InvalidError{Problems: []Problem{{Path: ManifestFile, Msg: "nil bundle"}}}
	}
	var c checker
	if !c.checkSchema(b.Manifest.Schema) {
		return nil, c.schemaErr
	}
	c.checkModel(b, origins{})
	if len(c.problems) > 0 {
		return nil, &InvalidError{Problems: c.problems}
	}

	files := make(map[string][]byte, len(b.Files)+len(b.Steps)+5)
	for p, data := range b.Files {
		files[p] = data
	}
	m := b.Manifest
	m.Created = m.Created.UTC()
	var err error
	if files[ManifestFile], err = marshalFile(&m); err != nil {
		return nil, fmt.Errorf("bundle: write %s: %w", ManifestFile, err)
	}
	for i := range b.Steps {
		p := StepPath(b.Steps[i].Index)
		if files[p], err = marshalFile(&b.Steps[i]); err != nil {
			return nil, fmt.Errorf("bundle: write %s: %w", p, err)
		}
	}
	var events bytes.Buffer
	if err := eventlog.WriteJSONL(&events, b.Events); err != nil {
		return nil, fmt.Errorf("bundle: write %s: %w", EventsFile, err)
	}
	files[EventsFile] = events.Bytes()
	if files[NetworkFile], err = marshalLines(b.Network); err != nil {
		return nil, fmt.Errorf("bundle: write %s: %w", NetworkFile, err)
	}
	if files[HARFile], err = HAR(b); err != nil {
		return nil, fmt.Errorf("bundle: write %s: %w", HARFile, err)
	}

	sums := checksums{Algorithm: checksumsAlgorithm, Files: make(map[string]string, len(files))}
	var total int64
	for p, data := range files {
		if int64(len(data)) > DefaultMaxFileBytes {
			return nil, &EntryError{Entry: p, Err: ErrTooLarge, Reason: fmt.Sprintf("%d bytes, readers accept at most %d by default", len(data), DefaultMaxFileBytes)}
		}
		total += int64(len(data))
		sums.Files[p] = c.sum(p, data)
	}
	sums.MerkleRoot = MerkleRoot(sums.Files)
	if files[ChecksumsFile], err = marshalFile(&sums); err != nil {
		return nil, fmt.Errorf("bundle: write %s: %w", ChecksumsFile, err)
	}
	total += int64(len(files[ChecksumsFile]))
	if len(files) > DefaultMaxFiles {
		return nil, &EntryError{Entry: ChecksumsFile, Err: ErrTooLarge, Reason: fmt.Sprintf("%d files, readers accept at most %d by default", len(files), DefaultMaxFiles)}
	}
	if total > DefaultMaxTotalBytes {
		return nil, &EntryError{Entry: ChecksumsFile, Err: ErrTooLarge, Reason: fmt.Sprintf("%d bytes in all, readers accept at most %d by default", total, DefaultMaxTotalBytes)}
	}
	return files, nil
}

// marshalFile is the JSON form of a bundle's JSON files: two-space
// indent, no HTML escaping, a final newline.
func marshalFile(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// marshalLines is the JSON Lines form: one compact value per line.
func marshalLines[T any](vs []T) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range vs {
		if err := enc.Encode(&vs[i]); err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
	}
	return buf.Bytes(), nil
}
