// Package plancache holds the plan cache: per task digest and site, the
// plan of the last run that committed (or reached its goal) and the goal
// predicates that held after each of its steps. The next run of the same
// task on the same site follows the cached plan first, checking each
// step's predicates, and searches only from where the site diverged.
//
// The cache is a directory of JSON files, one per task and site, named
// by the sha256 of the two; each file carries a schema version, and a
// reader refuses any other version, a file that does not decode, or one
// whose task and site are not the ones it was asked for, with an error
// wrapping ErrInvalid that names the file. An entry must be a regular
// file of at most MaxEntrySize bytes: a FIFO, a device or a directory
// under the entry's name is refused at once, never read (regfile). Writes
// go through a temporary file and a rename, so a reader never sees half
// an entry.
package plancache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/internal/atomicfile"
	"github.com/multiverse-orchestrator/multiverse/internal/regfile"
)

// SchemaVersion is the entry format this package writes and reads.
const SchemaVersion = 1

// ErrInvalid is wrapped by every error about an entry's content.
var ErrInvalid = errors.New("plancache: invalid entry")

// MaxEntrySize bounds an entry file; a larger one is refused unread.
const MaxEntrySize = 4 << 20

// ErrNotFound: no entry for the task and site.
var ErrNotFound = errors.New("plancache: no cached plan")

// Entry is the cached plan of one task on one site.
type Entry struct {
	SchemaVersion int    `json:"schema_version"`
	TaskDigest    string `json:"task_digest"`
	Task          string `json:"task"`
	// Site is the identity of the site the plan ran on (task.SiteKey):
	// its origin, without the port for a loopback host
	// ("http://127.0.0.1"). The plan's URLs on the site are written
	// relative to it ("{origin}/checkout").
	Site string `json:"site"`
	// RunID and BranchID name the run and branch the plan came from.
	RunID    string    `json:"run_id"`
	BranchID string    `json:"branch_id"`
	Created  time.Time `json:"created"`
	// Minimal says the plan was minimized when it was stored: every step
	// was tried without and found needed. A run that follows such a plan
	// to its end does not minimize it again; one that follows an older
	// or hand-written plan does.
	Minimal bool   `json:"minimal,omitempty"`
	Steps   []Step `json:"steps"`
}

// Step is one action of the plan and the goal predicates that held after
// it.
type Step struct {
	Action branch.Action   `json:"action"`
	Expect map[string]bool `json:"expect,omitempty"`
}

// Plan returns the entry's actions.
func (e *Entry) Plan() branch.Plan {
	p := make(branch.Plan, len(e.Steps))
	for i, s := range e.Steps {
		p[i] = s.Action
	}
	return p
}

// Store is a plan cache directory.
type Store struct {
	dir string
}

// Open returns the cache in dir; the directory is made on the first Put.
func Open(dir string) *Store { return &Store{dir: dir} }

// Dir is the cache's directory.
func (s *Store) Dir() string { return s.dir }

// Name is the file name of the entry of a task and site.
func Name(taskDigest, site string) string {
	h := sha256.Sum256([]byte(taskDigest + "\n" + site))
	return hex.EncodeToString(h[:12]) + ".json"
}

// Get returns the entry of the task on the site, or an error wrapping
// ErrNotFound. An entry that is not a regular file, or is over
// MaxEntrySize, is an error matching regfile.ErrNotRegular or
// regfile.ErrTooLarge that names it.
func (s *Store) Get(ctx context.Context, taskDigest, site string) (*Entry, error) {
	path := filepath.Join(s.dir, Name(taskDigest, site))
	e, err := read(ctx, path)
	if err != nil {
		return nil, err
	}
	if e.TaskDigest != taskDigest || e.Site != site {
		return nil, fmt.Errorf("%w: %s holds task %s on %s, not %s on %s", ErrInvalid, path, short(e.TaskDigest), e.Site, short(taskDigest), site)
	}
	return e, nil
}

// Put stores e under its task and site, replacing what was there.
func (s *Store) Put(e *Entry) error {
	if err := validate(e); err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return fmt.Errorf("plancache: %w", err)
	}
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return fmt.Errorf("plancache: encoding: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(s.dir, Name(e.TaskDigest, e.Site)), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("plancache: %w", err)
	}
	return nil
}

// List returns every entry, by task then site. Files that are not
// entries are skipped; an entry that does not read (also one that is not
// a regular file, or too large) is an error naming it.
func (s *Store) List(ctx context.Context) ([]*Entry, error) {
	paths, err := filepath.Glob(filepath.Join(s.dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("plancache: %w", err)
	}
	var out []*Entry
	for _, p := range paths {
		e, err := read(ctx, p)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Task != out[j].Task {
			return out[i].Task < out[j].Task
		}
		return out[i].Site < out[j].Site
	})
	return out, nil
}

// Drop removes the entries whose task name or digest (or a prefix of the
// digest) is match, on any site, and returns how many it removed. An
// empty match removes every entry.
func (s *Store) Drop(ctx context.Context, match string) (int, error) {
	es, err := s.List(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range es {
		if match != "" && e.Task != match && !strings.HasPrefix(e.TaskDigest, match) {
			continue
		}
		if err := os.Remove(filepath.Join(s.dir, Name(e.TaskDigest, e.Site))); err != nil {
			return n, fmt.Errorf("plancache: %w", err)
		}
		n++
	}
	return n, nil
}

// Remove removes the entry of the task on the site; an entry that is not
// there is an error wrapping ErrNotFound.
func (s *Store) Remove(taskDigest, site string) error {
	path := filepath.Join(s.dir, Name(taskDigest, site))
	err := os.Remove(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: %s", ErrNotFound, path)
	}
	if err != nil {
		return fmt.Errorf("plancache: %w", err)
	}
	return nil
}

func read(ctx context.Context, path string) (*Entry, error) {
	b, err := regfile.ReadFile(ctx, path, MaxEntrySize)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, path)
	}
	if err != nil {
		return nil, fmt.Errorf("plancache: %w", err)
	}
	return decode(path, b)
}

// decode reads an entry from b, the content of the file at path (named in
// errors).
func decode(path string, b []byte) (*Entry, error) {
	var e Entry
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, path, err)
	}
	if e.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%w: %s: schema_version %d, this reader reads %d", ErrInvalid, path, e.SchemaVersion, SchemaVersion)
	}
	if err := validate(&e); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &e, nil
}

func validate(e *Entry) error {
	switch {
	case e.SchemaVersion != SchemaVersion:
		return fmt.Errorf("%w: schema_version %d, want %d", ErrInvalid, e.SchemaVersion, SchemaVersion)
	case e.TaskDigest == "" || e.Site == "":
		return fmt.Errorf("%w: task_digest and site are required", ErrInvalid)
	case len(e.Steps) == 0:
		return fmt.Errorf("%w: no steps", ErrInvalid)
	}
	for i, st := range e.Steps {
		if err := st.Action.Validate(); err != nil {
			return fmt.Errorf("%w: steps[%d]: %v", ErrInvalid, i, err)
		}
	}
	return nil
}

func short(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}
