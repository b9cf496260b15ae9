// Package regfile reads the files the product takes as input (task, secret
// and storage-state files, bundles, flows, plan-cache and cassette
// entries, swap bodies, keys) without ever blocking and without reading
// more than the format allows: a FIFO with no writer, a device, a socket
// or a directory is refused at once instead of holding open(2) or a read
// forever, and a file over its format's limit is refused, unread when its
// size already says so.
//
// Files are opened with O_NONBLOCK and checked with fstat on the opened
// descriptor, so what is checked is what is read (no race between a stat
// and the open). Symbolic links are followed: a link to a regular file is
// a regular file.
package regfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Sentinels matched by the error structs below, for callers that branch
// on the kind of refusal.
var (
	// ErrNotRegular: the path is a FIFO, a device, a socket or a
	// directory (*NotRegularError).
	ErrNotRegular = errors.New("regfile: not a regular file")
	// ErrTooLarge: the file is over its format's limit (*TooLargeError).
	ErrTooLarge = errors.New("regfile: file too large")
)

// NotRegularError is the error for a path that is not a regular file.
type NotRegularError struct {
	// Path is the path as given ("" when the caller did not give one).
	Path string
	Mode fs.FileMode
}

// Error reads "PATH is not a regular file (a FIFO)".
func (e *NotRegularError) Error() string {
	if e.Path == "" {
		return e.Reason()
	}
	return e.Path + " is " + e.Reason()
}

// Reason is the message without the path: "not a regular file (a FIFO)".
func (e *NotRegularError) Reason() string {
	return fmt.Sprintf("not a regular file (%s)", Kind(e.Mode))
}

// Is matches ErrNotRegular.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// TooLargeError is the error for a file over its limit.
type TooLargeError struct {
	Path  string
	Limit int64
	// Size is the file's size, or -1 when it grew past Limit while it
	// was read (its size is then unknown, but over Limit).
	Size int64
}

// Error reads "PATH is larger than LIMIT bytes (SIZE bytes)".
func (e *TooLargeError) Error() string {
	if e.Path == "" {
		return e.Reason()
	}
	return e.Path + " is " + e.Reason()
}

// Reason is the message without the path: "larger than LIMIT bytes
// (SIZE bytes)".
func (e *TooLargeError) Reason() string {
	if e.Size < 0 {
		return fmt.Sprintf("larger than %d bytes", e.Limit)
	}
	return fmt.Sprintf("larger than %d bytes (%d bytes)", e.Limit, e.Size)
}

// Is matches ErrTooLarge.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// Open opens the regular file at path for reading, without blocking. It
// returns a *NotRegularError for anything else, and os.OpenFile's errors
// (*fs.PathError, matching fs.ErrNotExist and the like) as they are.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		// A socket does not open (ENXIO): say what it is.
		if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
			return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return f, nil
}

// chunk is how much ReadFile reads between two looks at its context.
const chunk = 256 << 10

// ReadFile reads the regular file at path, of at most limit bytes. It
// never blocks on the kind of file: anything but a regular file is a
// *NotRegularError (matching ErrNotRegular), a file over limit a
// *TooLargeError (matching ErrTooLarge), refused before a byte is read
// when its size says so and after limit+1 bytes when it grows while read.
// It stops with ctx's error (wrapped, naming the path) when ctx ends
// before or during the read. A missing file is os.OpenFile's error,
// matching fs.ErrNotExist. limit must be positive.
func ReadFile(ctx context.Context, path string, limit int64) ([]byte, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("regfile: %s: limit %d: want a positive limit", path, limit)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("regfile: %s: %w", path, err)
	}
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, &TooLargeError{Path: path, Limit: limit, Size: fi.Size()}
	}
	buf := make([]byte, 0, fi.Size()+1)
	r := io.LimitReader(f, limit+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("regfile: %s: %w", path, err)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		room := buf[len(buf):min(cap(buf), len(buf)+chunk)]
		n, err := r.Read(room)
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
	}
	if int64(len(buf)) > limit {
		return nil, &TooLargeError{Path: path, Limit: limit, Size: -1}
	}
	return buf, nil
}

// Kind names the kind of file a mode describes, for error messages.
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "not a plain file: " + m.Type().String()
}
