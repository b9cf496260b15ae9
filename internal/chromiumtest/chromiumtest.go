// Package chromiumtest shares one Chromium per test binary among the tests
// that need a real browser: Runtime launches it on first use, Close (from
// TestMain, after the tests ran) stops it.
package chromiumtest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/browser"
)

// launchTimeout bounds starting Chromium and the driver.
const launchTimeout = 60 * time.Second

var (
	once sync.Once
	rt   *browser.Runtime
	err  error
)

// Runtime returns the test binary's Chromium, launching it on first use,
// and fails the test when it cannot start.
func Runtime(t testing.TB) *browser.Runtime {
	t.Helper()
	once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), launchTimeout)
		defer cancel()
		rt, err = browser.Launch(ctx, browser.Options{})
	})
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	return rt
}

// Close stops the Chromium Runtime started, if any.
func Close() {
	if rt != nil {
		rt.Close()
	}
}
