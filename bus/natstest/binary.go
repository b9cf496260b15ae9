package natstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// ServerModule is the Go module the nats-server executable is built from.
const ServerModule = "github.com/nats-io/nats-server/v2"

// buildTimeout bounds resolving the module version and building the server.
const buildTimeout = 10 * time.Minute

var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
)

// Binary returns the path of a nats-server executable built from the
// version of [ServerModule] that the enclosing module's go.mod selects
// (`go build -o ... github.com/nats-io/nats-server/v2`).
//
// The build runs at most once per test binary; its result is cached under
// os.TempDir()/multiverse-nats-server-<module version>/nats-server and
// reused by later test binaries after checking that `nats-server --version`
// reports that version. Concurrent test binaries may build at the same time:
// each writes its own temporary file and renames it into place. When go.mod
// replaces the module with a local directory the binary is rebuilt by every
// test binary. A failed build fails the test with the go command's output;
// every later call in the same test binary fails the same way.
func Binary(t testing.TB) string {
	t.Helper()
	binaryOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
		defer cancel()
		binaryPath, binaryErr = buildBinary(ctx)
	})
	if binaryErr != nil {
		t.Fatalf("natstest: cannot build nats-server: %v", binaryErr)
	}
	return binaryPath
}

// buildBinary resolves the module version and returns a cached or freshly
// built executable.
func buildBinary(ctx context.Context) (string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("the go command is not on PATH: %w", err)
	}
	version, local, err := moduleVersion(ctx, goTool)
	if err != nil {
		return "", err
	}
	var dir string
	if local {
		// A local replacement has no version to key a shared cache on.
		if dir, err = os.MkdirTemp("", "multiverse-nats-server-local-"); err != nil {
			return "", fmt.Errorf("temporary directory: %w", err)
		}
	} else {
		dir = filepath.Join(os.TempDir(), "multiverse-nats-server-"+version)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("cache directory: %w", err)
		}
	}
	path := filepath.Join(dir, "nats-server")
	if !local && reportsVersion(ctx, path, version) == nil {
		return path, nil
	}
	tmp, err := os.CreateTemp(dir, "nats-server.tmp-*")
	if err != nil {
		return "", fmt.Errorf("staging file: %w", err)
	}
	tmpName := tmp.Name()
	_ = tmp.Close()
	defer os.Remove(tmpName) // a no-op once renamed

	// Default flags, so the packages the embedded server already compiled
	// for other tests come from the build cache.
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", tmpName, ServerModule)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", ServerModule, err, bytes.TrimSpace(out))
	}
	if !local {
		if err := reportsVersion(ctx, tmpName, version); err != nil {
			return "", err
		}
	}
	if err := os.Rename(tmpName, path); err != nil {
		return "", fmt.Errorf("installing %s: %w", path, err)
	}
	return path, nil
}

// moduleVersion asks the go command which version of ServerModule the
// current module builds with. local reports a replacement by a directory.
func moduleVersion(ctx context.Context, goTool string) (version string, local bool, err error) {
	cmd := exec.CommandContext(ctx, goTool, "list", "-m", "-f",
		"{{.Version}} {{with .Replace}}{{.Path}} {{.Version}}{{end}}", ServerModule)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		return "", false, fmt.Errorf("go list -m %s (is the test run inside the module?): %w\n%s", ServerModule, err, bytes.TrimSpace(stderr))
	}
	f := strings.Fields(string(out))
	switch len(f) {
	case 1: // no replacement
		return f[0], false, nil
	case 2: // replaced by a local directory: "v2.x.y /path"
		return "", true, nil
	case 3: // replaced by another module version
		return f[2], false, nil
	}
	return "", false, fmt.Errorf("go list -m %s: unexpected output %q", ServerModule, out)
}

// reportsVersion checks that the executable at path runs and reports
// version.
func reportsVersion(ctx context.Context, path, version string) error {
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s --version: %w", path, err)
	}
	if got := strings.TrimSpace(string(out)); !strings.HasSuffix(got, " "+version) {
		return fmt.Errorf("%s --version printed %q, want version %s", path, got, version)
	}
	return nil
}
