// Package rotest makes a directory tree read-only for a test, in a way that
// holds for root as well: tests of read-only data dirs must fail where a
// user's read-only copy fails.
package rotest

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Freeze makes every file and directory under dir read-only until the test
// ends. Permission bits do not stop root, so as root it also sets the
// immutable attribute (chattr +i), which stops everyone; the test is
// skipped where that is not possible (no chattr, no CAP_LINUX_IMMUTABLE,
// a file system without the attribute).
func Freeze(t testing.TB, dir string) {
	t.Helper()
	if os.Geteuid() == 0 {
		out, err := exec.Command("chattr", "-R", "+i", dir).CombinedOutput()
		if err != nil {
			exec.Command("chattr", "-R", "-i", dir).Run()
			t.Skipf("cannot make %s read-only for root (chattr +i: %v: %s)", dir, err, out)
		}
		t.Cleanup(func() { exec.Command("chattr", "-R", "-i", dir).Run() })
		return
	}
	var paths []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			paths = append(paths, p)
		}
		return nil
	})
	modes := make(map[string]fs.FileMode, len(paths))
	for i := len(paths) - 1; i >= 0; i-- { // children before their directory
		st, err := os.Lstat(paths[i])
		if err != nil || st.Mode()&fs.ModeSymlink != 0 {
			continue
		}
		modes[paths[i]] = st.Mode().Perm()
		os.Chmod(paths[i], st.Mode().Perm()&^0o222)
	}
	t.Cleanup(func() {
		for _, p := range paths { // directories before their children
			if m, ok := modes[p]; ok {
				os.Chmod(p, m)
			}
		}
	})
}

// Writable reports whether a file can be created in dir, which a frozen
// directory must refuse.
func Writable(dir string) bool {
	f, err := os.CreateTemp(dir, ".rotest-*")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}
