package bundle

import (
	"bytes"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// maxProblems bounds the problems one validation lists; a hostile bundle
// could otherwise produce one per byte.
const maxProblems = 1000

// checker collects problems. The same checks run on a Bundle about to be
// written and on one decoded from an archive, so Write never produces a
// file that Read refuses.
type checker struct {
	problems  []Problem
	schemaErr *SchemaError
	sums      map[string]string // sha256 of files by path, computed once
}

// sum returns the hex sha256 of the file at path, whose content is data.
func (c *checker) sum(path string, data []byte) string {
	if h, ok := c.sums[path]; ok {
		return h
	}
	if c.sums == nil {
		c.sums = make(map[string]string)
	}
	h := sumHex(data)
	c.sums[path] = h
	return h
}

func (c *checker) add(path string, line int, seq int64, format string, args ...any) {
	switch {
	case len(c.problems) < maxProblems:
		c.problems = append(c.problems, Problem{Path: path, Line: line, Seq: seq, Msg: fmt.Sprintf(format, args...)})
	case len(c.problems) == maxProblems:
		c.problems = append(c.problems, Problem{Path: path, Line: line, Seq: seq, Msg: "too many problems: the rest are not listed"})
	}
}

// origins says where decoded parts came from, for problem positions.
// The zero value describes a Bundle built in memory.
type origins struct {
	fromArchive bool
	eventLines  []int        // line of b.Events[i] in events.jsonl
	netLines    []int        // line of b.Network[i] in network.jsonl
	badSteps    map[int]bool // step files already reported as undecodable
}

func lineOf(lines []int, i int) int {
	if i < len(lines) {
		return lines[i]
	}
	return i + 1
}

// checkSchema reports an unsupported schema. It returns false when the
// rest of the bundle cannot be interpreted.
func (c *checker) checkSchema(found string) bool {
	if found == Schema {
		return true
	}
	c.schemaErr = &SchemaError{Found: found, Supported: Schema}
	c.add(ManifestFile, 0, 0, "unsupported schema %q: this build reads %q", found, Schema)
	return false
}

// checkModel runs every check that needs only the decoded bundle.
func (c *checker) checkModel(b *Bundle, o origins) {
	c.checkManifest(&b.Manifest)
	c.checkSteps(b, o)
	c.checkFiles(b)
	if d := b.Manifest.StartState; d != "" {
		if _, ok := b.Files[BodyPath(d)]; !ok {
			c.add(ManifestFile, 0, 0, "start_state %s: the bundle holds no %s", d, BodyPath(d))
		}
	}
	c.checkNetwork(b, o)
	c.checkEvents(b, o)
}

func (c *checker) checkManifest(m *Manifest) {
	switch m.Kind {
	case KindBranch:
		if m.Commit != nil {
			c.add(ManifestFile, 0, 0, "kind %q with commit info: only %q bundles carry a commit", m.Kind, KindCommit)
		}
	case KindCommit:
		if m.Commit == nil {
			c.add(ManifestFile, 0, 0, "kind %q without commit info", m.Kind)
		} else if ci := m.Commit; ci.FirstStep < 0 || ci.ActionStep < 0 || ci.ActionStep > m.Steps || ci.FirstStep > ci.ActionStep ||
			(ci.FirstStep > 0 && ci.ActionStep == 0) {
			c.add(ManifestFile, 0, 0, "commit steps first_step %d, action_step %d: want 1 <= first_step <= action_step <= steps (%d)", ci.FirstStep, ci.ActionStep, m.Steps)
		}
	default:
		c.add(ManifestFile, 0, 0, "unknown kind %q (want %q or %q)", m.Kind, KindBranch, KindCommit)
	}
	if m.RunID == "" {
		c.add(ManifestFile, 0, 0, "run_id is empty")
	}
	for _, s := range []struct{ name, v string }{{"seed", m.Seed}, {"branch_seed", m.BranchSeed}} {
		if s.v == "" {
			continue
		}
		if _, err := strconv.ParseUint(s.v, 10, 64); err != nil {
			c.add(ManifestFile, 0, 0, "%s %q is not a decimal uint64", s.name, s.v)
		}
	}
	if m.Steps != len(m.Plan) {
		c.add(ManifestFile, 0, 0, "steps is %d but the plan has %d actions", m.Steps, len(m.Plan))
	}
}

// stepCount is the number of steps the checks expect: the manifest's, but
// never more than the plan has actions (a mismatch is reported apart).
func stepCount(m *Manifest) int {
	n := m.Steps
	if n > len(m.Plan) {
		n = len(m.Plan)
	}
	if n < 0 {
		n = 0
	}
	return n
}

func (c *checker) checkSteps(b *Bundle, o origins) {
	m := &b.Manifest
	n := stepCount(m)
	seen := make(map[int]bool, len(b.Steps))
	for i := range b.Steps {
		s := &b.Steps[i]
		p := StepPath(s.Index)
		switch {
		case s.Index < 1 || s.Index > n:
			c.add(p, 0, 0, "step %d is outside the plan's steps 1..%d", s.Index, n)
			continue
		case seen[s.Index]:
			c.add(p, 0, 0, "duplicate step %d", s.Index)
			continue
		case !o.fromArchive && s.Index != i+1:
			c.add(p, 0, 0, "Steps[%d] has index %d: steps must be listed in index order 1..%d", i, s.Index, n)
		}
		seen[s.Index] = true
		if s.Advisory && s.Index == n {
			c.add(p, 0, 0, "step %d: the branch's last step is its own, never advisory", s.Index)
		}
		if !reflect.DeepEqual(s.Action, m.Plan[s.Index-1]) {
			c.add(p, 0, 0, "step %d: action differs from the manifest's plan[%d]", s.Index, s.Index-1)
		}
		switch s.Status {
		case StatusOK, StatusHealed, StatusFailed:
		default:
			c.add(p, 0, 0, "step %d: status %q is not %q, %q or %q", s.Index, s.Status, StatusOK, StatusHealed, StatusFailed)
		}
		for _, f := range []struct{ path, want, what string }{
			{DOMPath(s.Index), s.DOMHash, "dom_hash"},
			{AXPath(s.Index), s.AXHash, "ax_hash"},
		} {
			if data, ok := b.Files[f.path]; ok {
				if got := c.sum(f.path, data); got != f.want {
					c.add(f.path, 0, 0, "step %d: content hashes to %s, the step's %s is %q", s.Index, got, f.what, f.want)
				}
			}
		}
	}
	for k := 1; k <= n; k++ {
		if !seen[k] && !o.badSteps[k] {
			c.add(StepPath(k), 0, 0, "step %d of %d is missing", k, n)
		}
	}
}

// checkFiles checks the content files: bodies hash to their names and
// per-step files belong to a step.
func (c *checker) checkFiles(b *Bundle) {
	n := stepCount(&b.Manifest)
	for _, p := range sortedKeys(b.Files) {
		kind, step := classify(p)
		switch {
		case kind == kindBody:
			if got := c.sum(p, b.Files[p]); got != strings.TrimPrefix(p, bodiesDir) {
				c.add(p, 0, 0, "body hashes to %s, not to its name", got)
			}
		case kind.isContent():
			if step > n {
				c.add(p, 0, 0, "belongs to step %d but the bundle has %d steps", step, n)
			}
		default:
			c.add(p, 0, 0, "not a content file path (want bodies/<sha256> or steps/NNNN.dom.txt, .ax.txt or .png)")
		}
	}
}

func (c *checker) checkNetwork(b *Bundle, o origins) {
	steps := b.Manifest.Steps
	for i := range b.Network {
		e := &b.Network[i]
		line := lineOf(o.netLines, i)
		if i > 0 && e.Seq <= b.Network[i-1].Seq {
			c.add(NetworkFile, line, 0, "entry seq %d does not follow seq %d: entries must be in request order", e.Seq, b.Network[i-1].Seq)
		}
		if e.Step < 1 || e.Step > steps {
			c.add(NetworkFile, line, 0, "entry seq %d: step %d is outside 1..%d", e.Seq, e.Step, steps)
		}
		if e.Method == "" || e.URL == "" {
			c.add(NetworkFile, line, 0, "entry seq %d: method and url are required", e.Seq)
		}
		if e.RequestBodySHA256 != "" && !isSHA256Hex(e.RequestBodySHA256) {
			c.add(NetworkFile, line, 0, "entry seq %d: request_body_sha256 %q is not 64 lowercase hex digits", e.Seq, e.RequestBodySHA256)
		}
		if e.BodySHA256 == "" {
			continue
		}
		if !isSHA256Hex(e.BodySHA256) {
			c.add(NetworkFile, line, 0, "entry seq %d: body_sha256 %q is not 64 lowercase hex digits", e.Seq, e.BodySHA256)
			continue
		}
		if _, ok := b.Files[BodyPath(e.BodySHA256)]; !ok {
			c.add(BodyPath(e.BodySHA256), 0, 0, "body of network entry seq %d (%s) is missing", e.Seq, NetworkFile+":"+strconv.Itoa(line))
		}
	}
}

func (c *checker) checkEvents(b *Bundle, o origins) {
	runID := b.Manifest.RunID
	var prev *eventlog.Event
	for i := range b.Events {
		e := &b.Events[i]
		line := lineOf(o.eventLines, i)
		bad := func(format string, args ...any) {
			c.add(EventsFile, line, e.Seq, "event %d: "+format, append([]any{e.Seq}, args...)...)
		}
		if e.RunID != runID {
			bad("run_id %q differs from the manifest's %q", e.RunID, runID)
		}
		switch {
		case e.Seq < 1:
			bad("seq must be at least 1")
		case prev != nil && e.Seq <= prev.Seq:
			bad("seq does not increase after event %d", prev.Seq)
		}
		h, payload, err := eventlog.EventHash(e)
		switch {
		case err != nil:
			bad("payload is not a JSON value: %v", err)
		case h != e.Hash:
			bad("hash mismatch: content hashes to %s, recorded %s", h, e.Hash)
		case !bytes.Equal(payload, e.Payload):
			bad("payload is not in canonical form")
		}
		if e.Seq == 1 && e.PrevHash != eventlog.Genesis(e.RunID) {
			bad("chain broken: prev_hash %s is not the run's genesis hash", e.PrevHash)
		}
		if prev != nil && e.Seq == prev.Seq+1 && e.PrevHash != prev.Hash {
			bad("chain broken: prev_hash %s, event %d has hash %s", e.PrevHash, prev.Seq, prev.Hash)
		}
		prev = e
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
