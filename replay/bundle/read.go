package bundle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// Read reads a bundle file written by [Write] and returns it only if it is
// intact: the archive passes the reader's safety checks within lim, and
// validation finds no problem. It refuses unsafe or oversized entries with
// an *EntryError (ErrUnsafePath, ErrTooLarge, ErrCorrupt), a manifest of
// another schema with a *SchemaError (ErrSchema), and any integrity
// problem with a *CorruptError (ErrCorrupt) naming the first problem and
// carrying them all. The returned Files hold only content files.
func Read(r io.Reader, lim Limits) (*Bundle, error) {
	in, err := inspect(r, lim)
	if err != nil {
		return nil, err
	}
	if in.c.schemaErr != nil {
		return nil, in.c.schemaErr
	}
	if len(in.c.problems) > 0 {
		return nil, &CorruptError{Problems: in.c.problems}
	}
	return in.b, nil
}

// ReadFile reads the bundle file at path with [Read].
func ReadFile(path string, lim Limits) (*Bundle, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, fmt.Errorf("bundle: read: %w", err)
	}
	defer f.Close()
	b, err := Read(bufio.NewReaderSize(f, 1<<20), lim)
	if err != nil {
		return nil, fmt.Errorf("bundle: read %s: %w", path, err)
	}
	return b, nil
}

// Report is the result of [Validate].
type Report struct {
	// Files is the number of files in the archive, checksums.json included.
	Files int `json:"files"`
	// Steps and Events count the step records and events that decoded.
	Steps  int `json:"steps"`
	Events int `json:"events"`
	// MerkleRoot is the root recomputed over the files actually present
	// (everything but checksums.json): the bundle's identity, to compare
	// with a root recorded elsewhere (ledger, event log).
	MerkleRoot string `json:"merkle_root"`
	// Problems lists every integrity problem found, in check order.
	Problems []Problem `json:"problems"`
}

// OK reports whether validation found no problem.
func (r *Report) OK() bool { return r != nil && len(r.Problems) == 0 }

// Validate checks a bundle file offline, without a browser, and reports
// every problem it finds (up to 1000) rather than stopping at the first:
// checksums and Merkle root, unlisted and missing files, schema, steps
// against the plan, bodies and DOM/AX texts against their hashes, the event
// hash chain, and the HAR entry count. See the package documentation for
// the full list. An error (and no report) is returned only when the archive
// cannot be read safely: the same refusals as [Read].
func Validate(r io.Reader, lim Limits) (*Report, error) {
	in, err := inspect(r, lim)
	if err != nil {
		return nil, err
	}
	return in.report(), nil
}

// inspection is a bundle file decoded as far as possible, with its
// problems.
type inspection struct {
	files int
	root  string
	b     *Bundle
	c     checker
}

func (in *inspection) report() *Report {
	return &Report{Files: in.files, Steps: len(in.b.Steps), Events: len(in.b.Events), MerkleRoot: in.root, Problems: in.c.problems}
}

func inspect(r io.Reader, lim Limits) (*inspection, error) {
	if r == nil {
		return nil, errors.New("bundle: read: nil reader")
	}
	a, err := readArchive(r, lim)
	if err != nil {
		return nil, err
	}
	return inspectArchive(a), nil
}

// inspectArchive decodes and checks the files of an archive.
func inspectArchive(a *archive) *inspection {
	in := &inspection{files: len(a.files), b: &Bundle{}}
	actual := make(map[string]string, len(a.files))
	for p, data := range a.files {
		if p != ChecksumsFile {
			actual[p] = sumHex(data)
		}
	}
	in.root = MerkleRoot(actual)
	c := &in.c
	c.sums = actual

	// The schema decides how to read everything else, so it comes first.
	raw, ok := a.files[ManifestFile]
	if !ok {
		c.add(ManifestFile, 0, 0, "missing")
	} else {
		var probe struct {
			Schema string `json:"schema"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			c.add(ManifestFile, 0, 0, "does not parse: %v", err)
			ok = false
		} else if !c.checkSchema(probe.Schema) {
			return in
		}
	}

	checkChecksums(c, a.files, actual)

	var o origins
	o.fromArchive = true
	o.badSteps = make(map[int]bool)
	b := in.b
	manifestOK := false
	if ok {
		if err := decodeStrict(raw, &b.Manifest); err != nil {
			c.add(ManifestFile, 0, 0, "does not decode: %v", err)
		} else {
			manifestOK = true
		}
	}
	var stepNums []int
	stepFiles := make(map[int]Step)
	for _, p := range sortedKeys(a.files) {
		kind, n := classify(p)
		data := a.files[p]
		switch {
		case kind == kindStep:
			var s Step
			if err := decodeStrict(data, &s); err != nil {
				c.add(p, 0, 0, "does not decode: %v", err)
				o.badSteps[n] = true
				continue
			}
			if s.Index != n {
				c.add(p, 0, 0, "holds step index %d, want %d", s.Index, n)
				o.badSteps[n] = true
				continue
			}
			stepFiles[n] = s
			stepNums = append(stepNums, n)
		case kind.isContent():
			if b.Files == nil {
				b.Files = make(map[string][]byte)
			}
			b.Files[p] = data
		case kind == kindUnknown:
			c.add(p, 0, 0, "unknown file: not part of the %s layout", Schema)
		}
	}
	sort.Ints(stepNums)
	for _, n := range stepNums {
		b.Steps = append(b.Steps, stepFiles[n])
	}

	if data, ok := a.files[NetworkFile]; !ok {
		c.add(NetworkFile, 0, 0, "missing")
	} else {
		b.Network, o.netLines = decodeNetwork(c, data)
	}
	if data, ok := a.files[EventsFile]; !ok {
		c.add(EventsFile, 0, 0, "missing")
	} else {
		b.Events, o.eventLines = decodeEvents(c, data)
	}
	if data, ok := a.files[HARFile]; !ok {
		c.add(HARFile, 0, 0, "missing")
	} else {
		checkHARFile(c, data, len(b.Network)+harLiveEntries(b))
	}
	normalize(b)
	if manifestOK {
		c.checkModel(b, o)
	}
	return in
}

// checkChecksums checks checksums.json against the files present.
func checkChecksums(c *checker, files map[string][]byte, actual map[string]string) {
	raw, ok := files[ChecksumsFile]
	if !ok {
		c.add(ChecksumsFile, 0, 0, "missing: the bundle's files cannot be verified")
		return
	}
	var sums checksums
	if err := decodeStrict(raw, &sums); err != nil {
		c.add(ChecksumsFile, 0, 0, "does not decode: %v", err)
		return
	}
	if sums.Algorithm != checksumsAlgorithm {
		c.add(ChecksumsFile, 0, 0, "algorithm %q, want %q", sums.Algorithm, checksumsAlgorithm)
		return
	}
	for _, p := range sortedKeys(sums.Files) {
		want := sums.Files[p]
		switch got, present := actual[p]; {
		case p == ChecksumsFile:
			c.add(ChecksumsFile, 0, 0, "lists itself")
		case !isSHA256Hex(want):
			c.add(ChecksumsFile, 0, 0, "the digest listed for %q is not 64 lowercase hex digits", p)
		case !present:
			c.add(p, 0, 0, "listed in %s but missing", ChecksumsFile)
		case got != want:
			c.add(p, 0, 0, "sha256 mismatch: content hashes to %s, %s lists %s", got, ChecksumsFile, want)
		}
	}
	for _, p := range sortedKeys(actual) {
		if _, listed := sums.Files[p]; !listed {
			c.add(p, 0, 0, "not listed in %s", ChecksumsFile)
		}
	}
	if root := MerkleRoot(sums.Files); root != sums.MerkleRoot {
		c.add(ChecksumsFile, 0, 0, "merkle_root %q does not match the listed files (%s)", sums.MerkleRoot, root)
	}
}

// decodeStrict decodes exactly one JSON object with only known fields.
func decodeStrict(data []byte, v any) error {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return errors.New("not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("data after the JSON object")
	}
	return nil
}

// splitLines splits JSON Lines data into lines without their terminator;
// a final newline does not start a line.
func splitLines(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte{'\n'}), []byte{'\n'})
	return lines
}

// decodeNetwork decodes network.jsonl, reporting bad lines.
func decodeNetwork(c *checker, data []byte) ([]Entry, []int) {
	var out []Entry
	var lines []int
	for i, l := range splitLines(data) {
		var e Entry
		if err := decodeStrict(l, &e); err != nil {
			c.add(NetworkFile, i+1, 0, "does not decode: %v", err)
			continue
		}
		out = append(out, e)
		lines = append(lines, i+1)
	}
	return out, lines
}

// decodeEvents decodes events.jsonl with eventlog.ReadJSONL, continuing
// after a bad line so that every bad line is reported, and returns the
// line of each event.
func decodeEvents(c *checker, data []byte) ([]eventlog.Event, []int) {
	var out []eventlog.Event
	var lines []int
	offset := 0 // lines before data
	for len(data) > 0 && len(c.problems) <= maxProblems {
		es, err := eventlog.ReadJSONL(bytes.NewReader(data))
		if err == nil {
			lines = append(lines, eventLines(data, offset, len(es))...)
			return append(out, es...), lines
		}
		var le *eventlog.LineError
		if !errors.As(err, &le) || le.Line < 1 {
			c.add(EventsFile, offset+1, 0, "does not decode: %v", err)
			return out, lines
		}
		// ReadJSONL returns nothing on error: take the lines before the
		// bad one again, report it, and go on after it.
		good := firstLines(data, le.Line-1)
		if es, err := eventlog.ReadJSONL(bytes.NewReader(good)); err == nil {
			lines = append(lines, eventLines(good, offset, len(es))...)
			out = append(out, es...)
		}
		c.add(EventsFile, offset+le.Line, 0, "does not decode: %v", le.Err)
		data = data[len(firstLines(data, le.Line)):]
		offset += le.Line
	}
	return out, lines
}

// firstLines returns the prefix of data holding its first n lines,
// terminators included.
func firstLines(data []byte, n int) []byte {
	end := 0
	for i := 0; i < n; i++ {
		j := bytes.IndexByte(data[end:], '\n')
		if j < 0 {
			return data
		}
		end += j + 1
	}
	return data[:end]
}

// eventLines returns the 1-based line numbers of the n events ReadJSONL
// decoded from data (its non-blank lines), data starting after offset
// lines.
func eventLines(data []byte, offset, n int) []int {
	lines := make([]int, 0, n)
	for i, l := range splitLines(data) {
		if len(bytes.TrimSpace(bytes.TrimSuffix(l, []byte{'\r'}))) == 0 {
			continue
		}
		if len(lines) == n {
			break
		}
		lines = append(lines, offset+i+1)
	}
	return lines
}

// checkHARFile checks that network.har is HAR 1.2 JSON with one entry per
// network entry.
func checkHARFile(c *checker, data []byte, entries int) {
	var h struct {
		Log *struct {
			Version string            `json:"version"`
			Entries []json.RawMessage `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(data, &h); err != nil {
		c.add(HARFile, 0, 0, "does not parse: %v", err)
		return
	}
	switch {
	case h.Log == nil:
		c.add(HARFile, 0, 0, "no log object")
	case h.Log.Version != "1.2":
		c.add(HARFile, 0, 0, "HAR version %q, want \"1.2\"", h.Log.Version)
	case len(h.Log.Entries) != entries:
		c.add(HARFile, 0, 0, "has %d entries, %s has %d", len(h.Log.Entries), NetworkFile, entries)
	}
}
