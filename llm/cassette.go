package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/multiverse-orchestrator/multiverse/internal/atomicfile"
	"github.com/multiverse-orchestrator/multiverse/internal/regfile"
)

// CassetteFormat names the version of a cassette entry's layout.
const CassetteFormat = "multiverse.cassette.v1"

// ErrCassette: a cassette entry does not read, or does not hold what its
// name says.
var ErrCassette = errors.New("llm: bad cassette entry")

// Entry is one recorded answer. Its file is FINGERPRINT.json in the
// cassette directory; Request is the canonical request (scrubbed when the
// caller scrubs), Response the exact bytes the endpoint sent.
type Entry struct {
	Format        string          `json:"format"`
	Fingerprint   string          `json:"fingerprint"`
	PromptVersion string          `json:"prompt_version"`
	Model         string          `json:"model"`
	Request       json.RawMessage `json:"request"`
	Response      []byte          `json:"response"`
}

// Cassette is a directory of entries, content-addressed by fingerprint.
// Safe for concurrent use by one process.
type Cassette struct {
	dir string
}

// OpenCassette opens the cassette directory dir; create makes it when it
// does not exist (record mode), otherwise a missing directory is an error.
func OpenCassette(dir string, create bool) (*Cassette, error) {
	if dir == "" {
		return nil, fmt.Errorf("llm: no cassette directory given")
	}
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir():
		return nil, fmt.Errorf("llm: cassette %s is not a directory", dir)
	case errors.Is(err, os.ErrNotExist) && create:
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("llm: cassette: %w", err)
		}
	case err != nil:
		return nil, fmt.Errorf("llm: cassette: %w", err)
	}
	return &Cassette{dir: dir}, nil
}

// Dir returns the cassette's directory.
func (c *Cassette) Dir() string { return c.dir }

func (c *Cassette) path(fp string) string { return filepath.Join(c.dir, fp+".json") }

// MaxEntrySize bounds a cassette entry file; a larger one is refused
// unread.
const MaxEntrySize = 16 << 20

// Get returns the entry of fingerprint fp; ok is false when the cassette
// has none. An entry that does not read (its file cannot be read, or is
// not an entry), or that names another fingerprint than its file, is
// ErrCassette, naming the file; so is one that is not a regular file (a
// FIFO, a device: refused at once, never read) or is over MaxEntrySize,
// an error that also matches regfile.ErrNotRegular or regfile.ErrTooLarge.
func (c *Cassette) Get(ctx context.Context, fp string) (e *Entry, ok bool, err error) {
	if !validFingerprint(fp) {
		return nil, false, fmt.Errorf("llm: %q is not a fingerprint", fp)
	}
	p := c.path(fp)
	raw, err := regfile.ReadFile(ctx, p, MaxEntrySize)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if errors.Is(err, regfile.ErrNotRegular) || errors.Is(err, regfile.ErrTooLarge) {
		return nil, false, fmt.Errorf("%w: %w", ErrCassette, err)
	}
	if err != nil && ctx.Err() != nil {
		return nil, false, fmt.Errorf("llm: cassette: %w", err)
	}
	if err != nil { // an entry that cannot be read (regfile's error names the file)
		return nil, false, fmt.Errorf("%w: %w", ErrCassette, err)
	}
	e, err = decodeEntry(raw)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %s: %v", ErrCassette, p, err)
	}
	if e.Fingerprint != fp {
		return nil, false, fmt.Errorf("%w: %s: holds fingerprint %s", ErrCassette, p, e.Fingerprint)
	}
	return e, true, nil
}

func decodeEntry(raw []byte) (*Entry, error) {
	var e Entry
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, err
	}
	if e.Format != CassetteFormat {
		return nil, fmt.Errorf("format %q, want %q", e.Format, CassetteFormat)
	}
	if len(e.Response) == 0 {
		return nil, fmt.Errorf("no response")
	}
	return &e, nil
}

// Put records an entry (atomicfile: a reader never sees half of one).
func (c *Cassette) Put(e Entry) error {
	if !validFingerprint(e.Fingerprint) {
		return fmt.Errorf("llm: %q is not a fingerprint", e.Fingerprint)
	}
	e.Format = CassetteFormat
	if !json.Valid(e.Request) {
		e.Request, _ = json.Marshal(string(e.Request))
	}
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return fmt.Errorf("llm: cassette entry: %w", err)
	}
	if err := atomicfile.Write(c.path(e.Fingerprint), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("llm: cassette: %w", err)
	}
	return nil
}

// PromptVersions returns the prompt versions the cassette's entries were
// recorded with, sorted (entries that do not read are skipped).
func (c *Cassette) PromptVersions(ctx context.Context) []string {
	entries, _ := c.Entries(ctx)
	var out []string
	for _, e := range entries {
		if e.Err == "" && !slices.Contains(out, e.PromptVersion) {
			out = append(out, e.PromptVersion)
		}
	}
	sort.Strings(out)
	return out
}

func validFingerprint(fp string) bool {
	if len(fp) != sha256.Size*2 {
		return false
	}
	_, err := hex.DecodeString(fp)
	return err == nil && strings.ToLower(fp) == fp
}

// EntryInfo describes one entry of a cassette.
type EntryInfo struct {
	Fingerprint   string `json:"fingerprint"`
	Model         string `json:"model"`
	PromptVersion string `json:"prompt_version"`
	Bytes         int64  `json:"bytes"`
	// Err says why the entry does not read ("" when it does).
	Err string `json:"error,omitempty"`
}

// Entries lists the cassette's entries by fingerprint; one that does not
// read is listed with its error (also one that is not a regular file or
// is over MaxEntrySize: refused unread, never blocking the listing).
func (c *Cassette) Entries(ctx context.Context) ([]EntryInfo, error) {
	names, err := filepath.Glob(filepath.Join(c.dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("llm: cassette: %w", err)
	}
	sort.Strings(names)
	out := make([]EntryInfo, 0, len(names))
	for _, n := range names {
		fp := strings.TrimSuffix(filepath.Base(n), ".json")
		info := EntryInfo{Fingerprint: fp}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("llm: cassette: %w", err)
		}
		raw, err := regfile.ReadFile(ctx, n, MaxEntrySize)
		if err == nil {
			info.Bytes = int64(len(raw))
			var e *Entry
			if e, err = decodeEntry(raw); err == nil && e.Fingerprint != fp {
				err = fmt.Errorf("holds fingerprint %s", e.Fingerprint)
			} else if err == nil {
				info.Model, info.PromptVersion = e.Model, e.PromptVersion
			}
		}
		if err != nil {
			info.Err = err.Error()
		}
		out = append(out, info)
	}
	return out, nil
}

// Prune removes the entries recorded with another prompt version than
// keep (a prompt change leaves them unreachable) and the ones that do
// not read; it returns what it removed.
func (c *Cassette) Prune(ctx context.Context, keep string) ([]EntryInfo, error) {
	entries, err := c.Entries(ctx)
	if err != nil {
		return nil, err
	}
	var removed []EntryInfo
	for _, e := range entries {
		if e.Err == "" && e.PromptVersion == keep {
			continue
		}
		if err := os.Remove(c.path(e.Fingerprint)); err != nil {
			return removed, fmt.Errorf("llm: cassette: %w", err)
		}
		removed = append(removed, e)
	}
	return removed, nil
}
