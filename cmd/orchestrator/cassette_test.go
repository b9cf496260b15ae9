package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/llm"
	"github.com/multiverse-orchestrator/multiverse/llm/advice"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
)

// TestCassetteListPrune: list marks the entries of another prompt
// version, prune removes exactly those.
func TestCassetteListPrune(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "task.cassettes")
	cas, err := llm.OpenCassette(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{advice.PromptVersion, "0123456789abcdef"} {
		r := llm.Request{Model: "m-1", Messages: []llm.Message{{Role: "user", Content: "q"}}, PromptVersion: v}
		fp, _ := r.Fingerprint()
		if err := cas.Put(llm.Entry{Fingerprint: fp, PromptVersion: v, Model: "m-1", Request: []byte(`{}`),
			Response: []byte(`{"choices":[{"message":{"content":"{}"}}]}`)}); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	if code := runCLI([]string{"cassette", "list", dir}, &out, &errb); code != 0 {
		t.Fatalf("list: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "2 entries") || strings.Count(out.String(), "stale: another prompt") != 1 {
		t.Fatalf("list:\n%s", out.String())
	}
	out.Reset()
	if code := runCLI([]string{"cassette", "prune", dir}, &out, &errb); code != 0 || !strings.Contains(out.String(), "removed 1 entries") {
		t.Fatalf("prune: exit %d: %s%s", code, out.String(), errb.String())
	}
	out.Reset()
	runCLI([]string{"cassette", "list", dir}, &out, &errb)
	if !strings.Contains(out.String(), "1 entries") || strings.Contains(out.String(), "stale") {
		t.Fatalf("after prune:\n%s", out.String())
	}
	if code := runCLI([]string{"cassette", "list", filepath.Join(dir, "none")}, &out, &errb); code != orchestrator.ExitBadInput {
		t.Fatalf("a missing cassette: exit %d", code)
	}
}
