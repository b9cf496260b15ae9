package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// TestUnreadableInput: a task or secret file that is a FIFO with no
// writer, a device, or an alias bomb is refused at once with exit 2 and
// one line naming the file, line and field, before any browser starts.
func TestUnreadableInput(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile("../../examples/procure-team-plan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	secretTask := func(name, file string) string {
		src := strings.Replace(string(good), "  email: {", "  card: {secret_file: "+file+"}\n  email: {", 1)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name string
		file string
		want string
	}{
		{"secret FIFO", secretTask("fifo.yaml", fifo), "fifo.yaml:40: inputs.card.secret_file: secret file " + fifo + " is not a regular file (a FIFO)"},
		{"secret /dev/zero", secretTask("zero.yaml", "/dev/zero"), "zero.yaml:40: inputs.card.secret_file: secret file /dev/zero is not a regular file (a character device): a secret file must be a regular file of at most 65536 bytes"},
		{"secret /dev/urandom", secretTask("urandom.yaml", "/dev/urandom"), "urandom.yaml:40: inputs.card.secret_file: secret file /dev/urandom is not a regular file"},
		{"task FIFO", fifo, "fifo: cannot read task file: not a regular file (a FIFO)"},
		{"alias bomb", "../../task/testdata/bad-alias-bomb.yaml", "bad-alias-bomb.yaml:10: goal.success[4].all: the task file expands to more than 100000 YAML nodes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var out, errb bytes.Buffer
			done := make(chan int, 1)
			go func() {
				done <- run(ctx, []string{"run", c.file, "--data-dir", filepath.Join(dir, "data"), "--workers", "1", "--quiet"}, &out, &errb)
			}()
			var code int
			select {
			case code = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the CLI did not end within 30s")
			}
			if code != orchestrator.ExitBadInput {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, orchestrator.ExitBadInput, errb.String())
			}
			if !strings.Contains(errb.String(), c.want) || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 {
				t.Fatalf("stderr = %q, want one line with %q", errb.String(), c.want)
			}
		})
	}
}
