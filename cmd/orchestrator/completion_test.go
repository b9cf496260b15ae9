package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCompletion: the bash script, sourced in a real bash, completes a
// command and a command's flag; the zsh and fish scripts name the same.
func TestCompletion(t *testing.T) {
	script := func(shell string) string {
		var o, e bytes.Buffer
		if code := run(context.Background(), []string{"completion", shell}, &o, &e); code != 0 {
			t.Fatalf("completion %s: exit %d: %s", shell, code, e.String())
		}
		return o.String()
	}
	path := filepath.Join(t.TempDir(), "orchestrator.bash")
	if err := os.WriteFile(path, []byte(script("bash")), 0o644); err != nil {
		t.Fatal(err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, tc := range []struct{ words, want string }{
		{"orchestrator rep", "replay"},
		{"orchestrator run --wo", "--workers"},
		{"orchestrator drift --ta", "--task"},
	} {
		words := strings.Fields(tc.words)
		cmd := exec.Command(bash, "-c", `source "$1"; COMP_WORDS=(${2}); COMP_CWORD=$3; _orchestrator; echo "${COMPREPLY[@]}"`,
			"bash", path, tc.words, strconv.Itoa(len(words)-1))
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("completing %q: %q, %v; want %s", tc.words, out, err, tc.want)
		}
	}
	if z := script("zsh"); !strings.Contains(z, "bashcompinit") || !strings.Contains(z, "--workers") {
		t.Errorf("zsh script:\n%s", z)
	}
	if f := script("fish"); !strings.Contains(f, "__fish_seen_subcommand_from run' -l workers") {
		t.Errorf("fish script lacks run's --workers:\n%s", f)
	}
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"completion", "tcsh"}, &o, &e); code != 2 || !strings.Contains(e.String(), "bash, zsh and fish") {
		t.Errorf("completion tcsh: exit %d: %s", code, e.String())
	}
}
