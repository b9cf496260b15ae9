package main

import (
	"os"
	"sync"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/internal/porttrap"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// sharedRun is one committed run of the short checkout task, made once
// per test binary for the tests that read a committed run, or tamper
// with a copy of one: Chromium runs the task once, not once a test.
var sharedRun struct {
	once sync.Once
	dir  string
	sum  orchestrator.Summary
	ok   bool
}

func TestMain(m *testing.M) {
	code := porttrap.Run(m)
	if sharedRun.dir != "" {
		os.RemoveAll(sharedRun.dir)
	}
	os.Exit(code)
}

// sharedCommit returns the data dir of the package's committed run and
// its summary, committing it on the first call. The dir is shared: read
// it, or change a copy (sharedCopy). A failed commit fails the first
// caller with its output and every later one.
func sharedCommit(t *testing.T) (string, orchestrator.Summary) {
	t.Helper()
	sharedRun.once.Do(func() {
		dir, err := os.MkdirTemp("", "mv-cli-shared-")
		if err != nil {
			t.Fatal(err)
		}
		sharedRun.dir = dir
		site := startDemoSite(t) // closed when t ends; the records stay
		sharedRun.sum = commitSmallTask(t, site.URL(), dir)
		sharedRun.ok = true
	})
	if !sharedRun.ok {
		t.Fatal("the package's shared committed run failed (see the first test that asked for it)")
	}
	return sharedRun.dir, sharedRun.sum
}

// sharedCopy returns a new copy of the shared committed run's data dir,
// for a test that changes it, and the run's summary (whose paths name
// the shared dir).
func sharedCopy(t *testing.T) (string, orchestrator.Summary) {
	t.Helper()
	src, sum := sharedCommit(t)
	dir := t.TempDir()
	copyDir(t, src, dir)
	return dir, sum
}
