package task

import (
	"context"
	"errors"

	"github.com/multiverse-orchestrator/multiverse/internal/regfile"
)

// MaxSecretFileSize bounds secret files: a password, a token or a card
// number fits many times over; /dev/zero does not.
const MaxSecretFileSize = 64 << 10

// readRegular reads the regular file at path with regfile.ReadFile,
// refusing anything else (a FIFO, a device, a directory) and files larger
// than limit bytes, without blocking. A refusal is returned as a
// refusal, whose text leaves out the path (the callers' messages name
// it).
func readRegular(path string, limit int64) ([]byte, error) {
	data, err := regfile.ReadFile(context.Background(), path, limit)
	var nr *regfile.NotRegularError
	var tl *regfile.TooLargeError
	switch {
	case errors.As(err, &nr):
		return nil, refusal(nr.Reason())
	case errors.As(err, &tl):
		return nil, refusal(tl.Reason())
	}
	return data, err
}

// refusal is readRegular's error for a file it will not read: the wrong
// kind, or too large.
type refusal string

func (r refusal) Error() string { return string(r) }
