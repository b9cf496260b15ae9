//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package dirlock

import (
	"errors"
	"os"
)

var errUnsupported = errors.New("flock is not supported on this platform")

// tryLockFile excludes no one where there is no flock: the lock file
// records its owner only.
func tryLockFile(*os.File) (bool, error) { return false, nil }

func unlockFile(*os.File) error { return errUnsupported }
