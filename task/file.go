package task

import (
	"errors"
	"fmt"
	"io"

	"github.com/multiverse-orchestrator/multiverse/internal/regfile"
)

// MaxSecretFileSize bounds secret files: a password, a token or a card
// number fits many times over; /dev/zero does not.
const MaxSecretFileSize = 64 << 10

// readRegular reads the regular file at path, refusing anything else (a
// FIFO, a device, a directory) and files larger than limit bytes. The file
// is opened without blocking, so a FIFO with no writer is refused at once
// instead of holding open(2) forever.
func readRegular(path string, limit int64) ([]byte, error) {
	f, err := regfile.Open(path)
	var nr *regfile.NotRegularError
	if errors.As(err, &nr) {
		return nil, refusal(nr.Error())
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, refusal(fmt.Sprintf("larger than %d bytes (%d bytes)", limit, fi.Size()))
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, refusal(fmt.Sprintf("larger than %d bytes", limit))
	}
	return data, nil
}

// refusal is readRegular's error for a file it will not read: the wrong
// kind, or too large.
type refusal string

func (r refusal) Error() string { return string(r) }
