// Package regfile opens input files that must be regular files (task,
// secret and bundle files) without ever blocking: a FIFO with no writer, a
// device or a directory is refused at once instead of holding open(2) or
// a read forever.
package regfile

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// NotRegularError is Open's error for a path that is not a regular file.
type NotRegularError struct {
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("not a regular file (%s)", Kind(e.Mode))
}

// Open opens the regular file at path for reading, without blocking. It
// returns a *NotRegularError for anything else, and os.OpenFile's errors
// as they are.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Mode: fi.Mode()}
	}
	return f, nil
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
