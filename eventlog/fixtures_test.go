package eventlog_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// badFixtures are deliberately damaged copies of testdata/golden.jsonl and
// the exact error each must produce. Lines and seqs are 1-based.
var badFixtures = []struct {
	file   string
	line   int    // want a *LineError on this line, or
	reason string // want this *CorruptionError
	seq    int64
	make   func(lines []string) []string
}{
	{file: "bad-payload-edited.jsonl", reason: eventlog.ReasonHashMismatch, seq: 7, make: func(l []string) []string {
		l[6] = strings.Replace(l[6], `"status":"ok"`, `"status":"failed"`, 1)
		return l
	}},
	{file: "bad-payload-whitespace.jsonl", reason: eventlog.ReasonPayloadForm, seq: 2, make: func(l []string) []string {
		l[1] = strings.Replace(l[1], `"depth":1,`, `"depth": 1,`, 1)
		return l
	}},
	{file: "bad-time-edited.jsonl", reason: eventlog.ReasonHashMismatch, seq: 8, make: func(l []string) []string {
		l[7] = strings.Replace(l[7], `"time":"2026-01-02T03:04:07.123456789Z"`, `"time":"2026-01-02T03:04:07.123456788Z"`, 1)
		return l
	}},
	{file: "bad-deleted-middle.jsonl", reason: eventlog.ReasonSeqGap, seq: 4, make: func(l []string) []string {
		return append(l[:3:3], l[4:]...)
	}},
	{file: "bad-swapped.jsonl", reason: eventlog.ReasonSeqGap, seq: 3, make: func(l []string) []string {
		l[2], l[3] = l[3], l[2]
		return l
	}},
	{file: "bad-resequenced.jsonl", reason: eventlog.ReasonBrokenLink, seq: 4, make: func(l []string) []string {
		l = append(l[:3:3], l[4:]...)
		for i := 3; i < len(l); i++ {
			l[i] = regexp.MustCompile(`"seq":\d+`).ReplaceAllString(l[i], `"seq":`+strconv.Itoa(i+1))
		}
		return l
	}},
	{file: "bad-prev-hash.jsonl", reason: eventlog.ReasonBrokenLink, seq: 5, make: func(l []string) []string {
		prev := regexp.MustCompile(`"prev_hash":"[0-9a-f]{64}"`)
		l[4] = prev.ReplaceAllString(l[4], prev.FindString(l[2]))
		return l
	}},
	{file: "bad-other-run.jsonl", reason: eventlog.ReasonRunMismatch, seq: 6, make: func(l []string) []string {
		l[5] = strings.Replace(l[5], goldenRun, "01HZX3K5V7Q8R9S0T1U2V3W4X6", 1)
		return l
	}},
	{file: "bad-syntax.jsonl", line: 3, make: func(l []string) []string {
		l[2] = l[2][:len(l[2])/2]
		return l
	}},
	{file: "bad-unknown-field.jsonl", line: 2, make: func(l []string) []string {
		l[1] = strings.Replace(l[1], `{"run_id"`, `{"extra":1,"run_id"`, 1)
		return l
	}},
}

// writeBadFixtures regenerates the bad-* fixtures from the golden log.
func writeBadFixtures(t *testing.T, golden []byte) {
	t.Helper()
	for _, f := range badFixtures {
		lines := strings.Split(strings.TrimSuffix(string(golden), "\n"), "\n")
		out := strings.Join(f.make(lines), "\n") + "\n"
		if err := os.WriteFile(filepath.Join("testdata", f.file), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBadFixtures(t *testing.T) {
	for _, f := range badFixtures {
		t.Run(f.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", f.file))
			if err != nil {
				t.Fatal(err)
			}
			es, err := eventlog.ReadJSONL(bytes.NewReader(data))
			if f.line != 0 {
				var le *eventlog.LineError
				if !errors.As(err, &le) || le.Line != f.line {
					t.Fatalf("ReadJSONL error %v, want *LineError on line %d", err, f.line)
				}
				return
			}
			if err != nil {
				t.Fatalf("ReadJSONL: %v", err)
			}
			requireCorruption(t, eventlog.VerifyChain(goldenRun, es), f.reason, f.seq)
		})
	}
}
