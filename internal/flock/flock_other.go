//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package flock

import "os"

// TryLock returns ErrUnsupported: this platform has no flock.
func TryLock(*os.File) (bool, error) { return false, ErrUnsupported }

// Unlock returns ErrUnsupported: this platform has no flock.
func Unlock(*os.File) error { return ErrUnsupported }
