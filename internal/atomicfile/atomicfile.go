// Package atomicfile writes whole files so that a reader sees the old
// content or the new, never half of one.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write writes data to path through a temporary file in path's
// directory, then renames it over path. A failed write leaves path as it
// was and no temporary file behind. perm is the new file's mode.
func Write(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
