package job

import (
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/scrub"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// TestLoginStateScrubsOnlyCredentials: of a logged-in session's state,
// the session cookie is a secret wherever it shows; the user id and user
// name cookies beside it are not, so a cell holding "42" and a greeting
// of "admin" stay as the page wrote them.
func TestLoginStateScrubsOnlyCredentials(t *testing.T) {
	const session = "c0ffee5e55i0n7ok3n"
	t.Setenv("MV_TEST_STATE", `{"cookies": [{"name": "sid", "value": "`+session+`", "domain": "app.test", "path": "/"},
		{"name": "uid", "value": "42", "domain": "app.test", "path": "/"},
		{"name": "user", "value": "admin", "domain": "app.test", "path": "/"}], "origins": []}`)
	s := &Spec{ScrubKey: scrub.NewKey(), StorageState: &task.Input{SecretEnv: "MV_TEST_STATE"}}
	sc := s.Scrubber()
	if got := sc.Text("Signed in with " + session + "."); strings.Contains(got, session) {
		t.Errorf("the session cookie shows in clear: %q", got)
	}
	for _, text := range []string{"42", "Hello admin"} {
		if got := sc.Text(text); got != text {
			t.Errorf("%q scrubbed to %q: a cookie that is no credential was taken for a secret", text, got)
		}
	}
}
