package plancache_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/internal/regfile"
	"github.com/multiverse-orchestrator/multiverse/plancache"
)

func entry(task, digest, site string) *plancache.Entry {
	return &plancache.Entry{SchemaVersion: plancache.SchemaVersion, TaskDigest: digest, Task: task, Site: site,
		RunID: "01RUN", BranchID: "01BRANCH", Created: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC),
		Steps: []plancache.Step{
			{Action: branch.Action{Kind: branch.KindNavigate, URL: site + "/pricing"}},
			{Action: branch.Action{Kind: branch.KindClick, Target: &branch.Target{TestID: "choose-team"}}, Expect: map[string]bool{"plan_is_team": true}},
		}}
}

func TestPutGetListDrop(t *testing.T) {
	ctx := context.Background()
	s := plancache.Open(filepath.Join(t.TempDir(), "plans"))
	if _, err := s.Get(ctx, "d1", "http://a.test"); !errors.Is(err, plancache.ErrNotFound) {
		t.Fatalf("empty cache: %v", err)
	}
	a := entry("buy", "d1aaaa", "http://a.test")
	b := entry("buy", "d1aaaa", "http://b.test")
	c := entry("audit", "d2bbbb", "http://a.test")
	for _, e := range []*plancache.Entry{a, b, c} {
		if err := s.Put(e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Get(ctx, "d1aaaa", "http://b.test")
	if err != nil || got.Site != "http://b.test" || len(got.Plan()) != 2 || !got.Steps[1].Expect["plan_is_team"] {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	all, err := s.List(ctx)
	if err != nil || len(all) != 3 || all[0].Task != "audit" || all[2].Site != "http://b.test" {
		t.Fatalf("List = %d entries, %v", len(all), err)
	}
	if err := s.Remove("d1aaaa", "http://b.test"); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if err := s.Remove("d1aaaa", "http://b.test"); !errors.Is(err, plancache.ErrNotFound) {
		t.Fatalf("Remove of a removed entry: %v", err)
	}
	if err := s.Put(b); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Drop(ctx, "d1a"); err != nil || n != 2 {
		t.Fatalf("Drop by digest prefix = %d, %v", n, err)
	}
	if n, err := s.Drop(ctx, "audit"); err != nil || n != 1 {
		t.Fatalf("Drop by name = %d, %v", n, err)
	}
	if all, _ := s.List(ctx); len(all) != 0 {
		t.Fatalf("left %d entries", len(all))
	}
}

// TestBadEntries: a file that is not a version-1 entry of the task and
// site asked for is refused, naming the file.
func TestBadEntries(t *testing.T) {
	cases := []struct {
		name, body, want string
	}{
		{"not json", "{", "unexpected EOF"},
		{"version 2", `{"schema_version": 2, "task_digest": "d", "site": "s", "steps": [{"action": {"kind": "navigate", "url": "http://a/"}}]}`, "schema_version 2"},
		{"unknown field", `{"schema_version": 1, "task_digest": "d", "site": "s", "colour": 1}`, "unknown field"},
		{"no steps", `{"schema_version": 1, "task_digest": "d", "site": "s"}`, "no steps"},
		{"bad action", `{"schema_version": 1, "task_digest": "d", "site": "s", "steps": [{"action": {"kind": "tap"}}]}`, "steps[0]"},
		{"other task", `{"schema_version": 1, "task_digest": "other", "site": "s", "steps": [{"action": {"kind": "navigate", "url": "http://a/"}}]}`, "holds task other"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, plancache.Name("d", "s"))
			if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := plancache.Open(dir).Get(context.Background(), "d", "s")
			if !errors.Is(err, plancache.ErrInvalid) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want ErrInvalid naming %s and %q", err, path, c.want)
			}
		})
	}
}

func TestPutRefusesAnInvalidEntry(t *testing.T) {
	e := entry("buy", "d", "http://a.test")
	e.Steps = nil
	if err := plancache.Open(t.TempDir()).Put(e); !errors.Is(err, plancache.ErrInvalid) {
		t.Fatalf("Put of an entry without steps: %v", err)
	}
}

// An entry that is a FIFO (which used to hang `run` forever), a device
// (/dev/zero used to be read until the process died) or a directory is
// refused at once by Get and List, naming it.
func TestNonRegularEntries(t *testing.T) {
	fifo := func(p string) error { return syscall.Mkfifo(p, 0o600) }
	zero := func(p string) error { return os.Symlink("/dev/zero", p) }
	dir := func(p string) error { return os.Mkdir(p, 0o755) }
	cases := []struct {
		name string
		make func(string) error
		want string
	}{
		{"FIFO", fifo, "is not a regular file (a FIFO)"},
		{"/dev/zero", zero, "is not a regular file (a character device)"},
		{"directory", dir, "is not a regular file (a directory)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := t.TempDir()
			path := filepath.Join(d, plancache.Name("d", "s"))
			if err := c.make(path); err != nil {
				t.Skipf("cannot make %s: %v", c.name, err)
			}
			s := plancache.Open(d)
			for _, call := range []struct {
				name string
				f    func() error
			}{
				{"Get", func() error { _, err := s.Get(context.Background(), "d", "s"); return err }},
				{"List", func() error { _, err := s.List(context.Background()); return err }},
			} {
				done := make(chan error, 1)
				go func() { done <- call.f() }()
				select {
				case err := <-done:
					if !errors.Is(err, regfile.ErrNotRegular) || !strings.Contains(err.Error(), path+" "+c.want) {
						t.Fatalf("%s: %v, want ErrNotRegular saying %q", call.name, err, path+" "+c.want)
					}
				case <-time.After(2 * time.Second):
					t.Fatalf("%s did not return within 2s", call.name)
				}
			}
		})
	}
	t.Run("too large", func(t *testing.T) {
		d := t.TempDir()
		path := filepath.Join(d, plancache.Name("d", "s"))
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		f.Truncate(plancache.MaxEntrySize + 1)
		f.Close()
		_, err = plancache.Open(d).Get(context.Background(), "d", "s")
		if !errors.Is(err, regfile.ErrTooLarge) || !strings.Contains(err.Error(), path) {
			t.Fatalf("Get of an oversized entry: %v", err)
		}
	})
}
