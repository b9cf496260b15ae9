package orchestrator_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/sites"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// storageStateFile writes a Playwright storage state holding the demo
// site's session cookie for token.
func storageStateFile(t *testing.T, token string) string {
	t.Helper()
	doc := map[string]any{
		"cookies": []map[string]any{{"name": sites.SessionCookie, "value": token, "domain": "127.0.0.1", "path": "/",
			"expires": -1, "httpOnly": true, "secure": false, "sameSite": "Lax"}},
		"origins": []any{},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestStorageStateLogsEveryBranchIn: with the checkout behind a login, a
// run without auth never reaches the review page (every branch lands on
// the login form); the same task with auth.storage_state (a session the
// user logged into before) explores and commits exactly one order. The
// session token is a secret: it is nowhere in clear in the event log or
// the artifacts.
func TestStorageStateLogsEveryBranchIn(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	s := startSite(t, sites.Knobs{RequireLogin: true})
	url := s.srv.URL()

	tk := checkoutTaskFrom(t, url, nil)
	tk.Budgets.TotalBranches = 8
	_, err := runTask(t, tk, t.TempDir(), false)
	if !errors.Is(err, orchestrator.ErrNoBoundary) {
		t.Fatalf("run without a session = %v, want no boundary", err)
	}

	token, err := s.v.Login(sites.DemoEmail, sites.DemoPassword)
	if err != nil {
		t.Fatal(err)
	}
	state := storageStateFile(t, token)
	tk = checkoutTaskFrom(t, url, func(src string) string {
		return src + "\nauth:\n  storage_state: {secret_file: " + state + "}\n"
	})
	if tk.Auth.StorageState == nil {
		t.Fatal("auth.storage_state was not read")
	}
	dir := t.TempDir()
	sum, err := runTask(t, tk, dir, false)
	if err != nil {
		t.Fatalf("run with a session: %v", err)
	}
	orders := s.v.Orders()
	if sum.Status != "committed" || len(orders) != 1 || orders[0].ID != sum.Commit.OrderID {
		t.Fatalf("status %s, %d orders (%+v), commit %+v; want one order", sum.Status, len(orders), orders, sum.Commit)
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(token)) {
			t.Errorf("the session token is in clear in %s", p)
		}
		return nil
	})
}

// TestStorageStateErrors: a storage state that cannot be read or parsed
// is a task error naming the field, before anything runs.
func TestStorageStateErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"cookies": [{"value": "x"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, ref := range map[string]string{
		"missing file": filepath.Join(t.TempDir(), "nope.json"),
		"no name":      bad,
	} {
		t.Run(name, func(t *testing.T) {
			tk := checkoutTaskFrom(t, "http://127.0.0.1:1", func(src string) string {
				return src + "\nauth:\n  storage_state: {secret_file: " + ref + "}\n"
			})
			err := tk.CheckSecrets()
			var te *task.Error
			if !errors.As(err, &te) || te.Field != "auth.storage_state.secret_file" || te.Line == 0 {
				t.Fatalf("CheckSecrets = %v, want a task error at auth.storage_state.secret_file", err)
			}
			if orchestrator.ExitCode(err) != orchestrator.ExitBadInput {
				t.Fatalf("exit %d, want %d", orchestrator.ExitCode(err), orchestrator.ExitBadInput)
			}
		})
	}
}
