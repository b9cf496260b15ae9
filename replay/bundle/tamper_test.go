package bundle

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// TestTampering changes a valid bundle file the ways an accident or an
// attacker would and checks that Validate names the exact place and Read
// refuses the file.
func TestTampering(t *testing.T) {
	valid := writeBytes(t, smallBundle(t))
	orig := unpack(t, valid)
	body := BodyPath(sumHex([]byte("<!doctype html><title>Pricing</title><h1>Team</h1>")))
	jsonBody := BodyPath(sumHex([]byte(`{"plan":"team","seats":10,"total":"290.00"}`)))

	type tc struct {
		name string
		edit func(t testing.TB, fs []tarFile) []tarFile
		path string // the file a problem must name
		line int    // and its line, when non-zero
		seq  int64  // and its event seq, when non-zero
		msg  string // a substring of that problem's message
		want error  // what Read's error must match
	}
	var cases []tc

	// Flip one byte in each kind of file.
	for _, f := range orig {
		name := f.name
		msg := "sha256 mismatch"
		if name == ChecksumsFile {
			msg = "" // any problem naming checksums.json
		}
		cases = append(cases, tc{name: "flip a byte of " + name, path: name, msg: msg, want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				data := bytes.Clone(get(fs, name))
				data[len(data)/2] ^= 0x01
				return set(fs, name, data)
			}})
	}
	cases = append(cases,
		tc{name: "delete a step file", path: StepPath(2), msg: "listed in checksums.json but missing", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile { return remove(fs, StepPath(2)) }},
		tc{name: "delete a step file and fix checksums", path: StepPath(2), msg: "step 2 of 3 is missing", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile { return fixChecksums(t, remove(fs, StepPath(2))) }},
		tc{name: "truncate events.jsonl", path: EventsFile, msg: "sha256 mismatch", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				data := get(fs, EventsFile)
				lines := bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
				return set(fs, EventsFile, bytes.Join(lines[:len(lines)-1], nil))
			}},
		tc{name: "remove a body", path: body, msg: "listed in checksums.json but missing", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile { return remove(fs, body) }},
		tc{name: "remove a body and fix checksums", path: body, msg: "body of network entry seq 1", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile { return fixChecksums(t, remove(fs, body)) }},
		tc{name: "add an extra file", path: "bodies/extra", msg: "not listed in checksums.json", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile { return set(fs, "bodies/extra", []byte("x")) }},
		tc{name: "add an extra file and list it", path: "run.sh", msg: "unknown file", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				return fixChecksums(t, set(fs, "run.sh", []byte("#!/bin/sh")))
			}},
		tc{name: "change the manifest schema", path: ManifestFile, msg: `unsupported schema "multiverse.bundle/v2": this build reads "multiverse.bundle/v1"`, want: ErrSchema,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				return set(fs, ManifestFile, bytes.Replace(get(fs, ManifestFile), []byte(Schema), []byte("multiverse.bundle/v2"), 1))
			}},
		tc{name: "edit a step's action", path: StepPath(2), msg: "sha256 mismatch", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				return set(fs, StepPath(2), bytes.Replace(get(fs, StepPath(2)), []byte("nav-pricing"), []byte("nav-checkout"), 1))
			}},
		tc{name: "edit a step's action and fix checksums", path: StepPath(2), msg: "step 2: action differs from the manifest's plan[1]", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				return fixChecksums(t, set(fs, StepPath(2), bytes.Replace(get(fs, StepPath(2)), []byte("nav-pricing"), []byte("nav-checkout"), 1)))
			}},
		tc{name: "step file holds another index", path: StepPath(2), msg: "holds step index 3", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				return fixChecksums(t, set(fs, StepPath(2), editJSON(t, get(fs, StepPath(2)), func(m map[string]any) { m["index"] = 3 })))
			}},
		tc{name: "manifest steps disagree with the plan", path: ManifestFile, msg: "steps is 4 but the plan has 3 actions", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				return fixChecksums(t, set(fs, ManifestFile, editJSON(t, get(fs, ManifestFile), func(m map[string]any) { m["steps"] = 4 })))
			}},
		tc{name: "commit steps out of order", path: ManifestFile, msg: "commit steps first_step 3, action_step 2", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				return fixChecksums(t, set(fs, ManifestFile, editJSON(t, get(fs, ManifestFile), func(m map[string]any) {
					m["kind"] = "commit"
					m["commit"] = map[string]any{"key": "k", "entry_id": "e", "order_id": "o", "first_step": 3, "action_step": 2}
				})))
			}},
		tc{name: "unknown manifest field", path: ManifestFile, msg: "unknown field", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				return fixChecksums(t, set(fs, ManifestFile, editJSON(t, get(fs, ManifestFile), func(m map[string]any) { m["extra"] = true })))
			}},
		tc{name: "replace a body and fix checksums", path: jsonBody, msg: "body hashes to", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				return fixChecksums(t, set(fs, jsonBody, []byte(`{"plan":"team","seats":10,"total":"0.00"}`)))
			}},
		tc{name: "edit the DOM text and fix checksums", path: DOMPath(3), msg: "step 3: content hashes to", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				return fixChecksums(t, set(fs, DOMPath(3), []byte("html\n body\n  input[name=seats] value=10\n")))
			}},
		tc{name: "edit the AX text and fix checksums", path: AXPath(1), msg: "ax_hash", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				return fixChecksums(t, set(fs, AXPath(1), []byte("document \"Hone\"\n")))
			}},
		tc{name: "edit an event payload and fix checksums", path: EventsFile, line: 6, seq: 8, msg: "event 8: hash mismatch", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				return fixChecksums(t, set(fs, EventsFile, bytes.Replace(get(fs, EventsFile), []byte(`"healed"`), []byte(`"ok"`), 1)))
			}},
		tc{name: "re-link an event and fix checksums", path: EventsFile, line: 6, seq: 8, msg: "event 8: chain broken", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				b := smallBundle(t)
				b.Events[5].PrevHash = strings.Repeat("0", 64)
				h, _, err := eventlog.EventHash(&b.Events[5])
				requireNoErr(t, err)
				b.Events[5].Hash = h // the event is self-consistent, its link is not
				if b.Events[5].Seq != b.Events[4].Seq+1 {
					t.Fatalf("fixture: events %d and %d are not consecutive", b.Events[4].Seq, b.Events[5].Seq)
				}
				return fixChecksums(t, set(fs, EventsFile, encodeEvents(t, b)))
			}},
		tc{name: "event of another run and fix checksums", path: EventsFile, line: 1, seq: 1, msg: "run_id", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				return fixChecksums(t, set(fs, EventsFile, bytes.Replace(get(fs, EventsFile), []byte(testRunID), []byte("01HZX3K5V7Q8R9S0T1U2V3W4X6"), 1)))
			}},
		tc{name: "swap two events and fix checksums", path: EventsFile, line: 2, msg: "seq does not increase", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				lines := bytes.SplitAfter(get(fs, EventsFile), []byte("\n"))
				lines[0], lines[1] = lines[1], lines[0]
				return fixChecksums(t, set(fs, EventsFile, bytes.Join(lines, nil)))
			}},
		tc{name: "garble an event line and fix checksums", path: EventsFile, line: 3, msg: "does not decode", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				lines := bytes.SplitAfter(get(fs, EventsFile), []byte("\n"))
				lines[2] = []byte("{not json\n")
				return fixChecksums(t, set(fs, EventsFile, bytes.Join(lines, nil)))
			}},
		tc{name: "drop a HAR entry and fix checksums", path: HARFile, msg: "has 6 entries, network.jsonl has 7", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				return fixChecksums(t, set(fs, HARFile, editJSON(t, get(fs, HARFile), func(m map[string]any) {
					log := m["log"].(map[string]any)
					log["entries"] = log["entries"].([]any)[1:]
				})))
			}},
		tc{name: "reorder network entries and fix checksums", path: NetworkFile, line: 2, msg: "request order", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				lines := bytes.SplitAfter(get(fs, NetworkFile), []byte("\n"))
				lines[0], lines[1] = lines[1], lines[0]
				return fixChecksums(t, set(fs, NetworkFile, bytes.Join(lines, nil)))
			}},
		tc{name: "change the merkle root", path: ChecksumsFile, msg: "merkle_root", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile {
				return set(fs, ChecksumsFile, editJSON(t, get(fs, ChecksumsFile), func(m map[string]any) { m["merkle_root"] = strings.Repeat("a", 64) }))
			}},
		tc{name: "remove checksums.json", path: ChecksumsFile, msg: "missing", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile { return remove(fs, ChecksumsFile) }},
		tc{name: "remove manifest.json", path: ManifestFile, msg: "missing", want: ErrCorrupt,
			edit: func(t testing.TB, fs []tarFile) []tarFile { return fixChecksums(t, remove(fs, ManifestFile)) }},
	)

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := pack(t, c.edit(t, unpack(t, valid)))
			rep, err := Validate(bytes.NewReader(file), Limits{})
			requireNoErr(t, err)
			require(t, !rep.OK(), "Validate found nothing")
			require(t, hasProblem(rep, c.path, c.line, c.seq, c.msg), "no problem at %s line %d seq %d containing %q in:%s", c.path, c.line, c.seq, c.msg, problemList(rep))
			_, err = Read(bytes.NewReader(file), Limits{})
			require(t, errors.Is(err, c.want), "Read: %v, want %v", err, c.want)
		})
	}

	// The untouched file still passes, so the cases above fail for the
	// edit and nothing else.
	file := pack(t, unpack(t, valid))
	rep, err := Validate(bytes.NewReader(file), Limits{})
	requireNoErr(t, err)
	require(t, rep.OK(), "repacked valid bundle has problems:%s", problemList(rep))
}

// TestCorruptCompressedStream flips bytes all over the compressed stream of
// a bundle whose archive spans many zstd blocks and checks that Read and
// Validate report a damaged compressed stream (*StreamError), never a
// checksum problem of whichever entry was being read when the decoder
// noticed.
func TestCorruptCompressedStream(t *testing.T) {
	b := smallBundle(t)
	// A large screenshot that does not compress: the archive spans many
	// blocks, and the damage is found in the middle of an entry.
	png := make([]byte, 1<<20)
	rand.New(rand.NewSource(1)).Read(png)
	png = append([]byte("\x89PNG\r\n\x1a\n"), png...)
	b.Steps[0].ScreenshotHash = sumHex(png)
	b.Files[ScreenshotPath(1)] = png
	valid := writeBytes(t, b)
	_, err := Read(bytes.NewReader(valid), Limits{})
	requireNoErr(t, err)
	members := unpack(t, valid)
	for _, at := range []int{5, 40, len(valid) / 4, len(valid) / 2, len(valid) * 3 / 4, len(valid) - 200, len(valid) - 6, len(valid) - 2} {
		t.Run(fmt.Sprintf("byte %d of %d", at, len(valid)), func(t *testing.T) {
			file := bytes.Clone(valid)
			file[at] ^= 0x10
			_, err := Read(bytes.NewReader(file), Limits{})
			var se *StreamError
			require(t, errors.As(err, &se) && errors.Is(err, ErrCorrupt), "Read: %v, want a *StreamError", err)
			_, verr := Validate(bytes.NewReader(file), Limits{})
			require(t, errors.As(verr, &se), "Validate: %v, want a *StreamError", verr)
			for _, m := range members {
				require(t, !strings.Contains(err.Error(), m.name), "Read blames entry %s: %v", m.name, err)
			}
		})
	}
}

func encodeEvents(t testing.TB, b *Bundle) []byte {
	t.Helper()
	var buf bytes.Buffer
	requireNoErr(t, eventlog.WriteJSONL(&buf, b.Events))
	return buf.Bytes()
}

// TestValidateCollectsEveryProblem checks that Validate does not stop at
// the first problem.
func TestValidateCollectsEveryProblem(t *testing.T) {
	fs := unpack(t, writeBytes(t, smallBundle(t)))
	fs = remove(fs, StepPath(1))
	fs = set(fs, "extra.txt", []byte("x"))
	fs = set(fs, AXPath(2), []byte("changed"))
	rep, err := Validate(bytes.NewReader(pack(t, fs)), Limits{})
	requireNoErr(t, err)
	for _, want := range []struct{ path, msg string }{
		{StepPath(1), "missing"},
		{"extra.txt", "not listed"},
		{"extra.txt", "unknown file"},
		{AXPath(2), "sha256 mismatch"},
		{AXPath(2), "ax_hash"},
	} {
		require(t, hasProblem(rep, want.path, 0, 0, want.msg), "no %s %q in:%s", want.path, want.msg, problemList(rep))
	}
	_, err = Read(bytes.NewReader(pack(t, fs)), Limits{})
	var ce *CorruptError
	require(t, errors.As(err, &ce) && len(ce.Problems) == len(rep.Problems), "Read error %v does not carry the %d problems", err, len(rep.Problems))
	require(t, strings.Contains(err.Error(), rep.Problems[0].Path), "Read error %q does not name %s", err, rep.Problems[0].Path)
}
