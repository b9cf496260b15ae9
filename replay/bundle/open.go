package bundle

import (
	"os"

	"github.com/multiverse-orchestrator/multiverse/internal/regfile"
)

// OpenFile opens the bundle file at path for reading. It never blocks: a
// FIFO with no writer, a device or a directory is refused at once, as a
// bundle is a regular file ("PATH is not a regular file (a FIFO)"). Other
// errors are os.OpenFile's, which name the path.
func OpenFile(path string) (*os.File, error) {
	return regfile.Open(path) // a *regfile.NotRegularError names the path
}
