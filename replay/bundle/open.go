package bundle

import (
	"fmt"
	"os"

	"github.com/multiverse-orchestrator/multiverse/internal/regfile"
)

// OpenFile opens the bundle file at path for reading. It never blocks: a
// FIFO with no writer, a device or a directory is refused at once, as a
// bundle is a regular file.
func OpenFile(path string) (*os.File, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s is %w", path, err)
	}
	return f, nil
}
