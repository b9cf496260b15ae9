//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package ledger

import (
	"errors"
	"os"
)

var errLockUnsupported = errors.New("flock is not supported on this platform")

func tryLockFile(*os.File) (bool, error) { return false, errLockUnsupported }

func unlockFile(*os.File) error { return errLockUnsupported }
