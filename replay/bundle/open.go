package bundle

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// OpenFile opens the bundle file at path for reading. It never blocks: a
// FIFO with no writer, a device or a directory is refused at once, as a
// bundle is a regular file.
func OpenFile(path string) (*os.File, error) {
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
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, kind(fi.Mode()))
	}
	return f, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "mode " + m.Type().String()
}
