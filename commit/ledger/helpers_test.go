package ledger_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
)

func requireNoErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

func requireIs(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want one matching %v", err, target)
	}
}

func requireEqual[T comparable](t testing.TB, got, want T, what string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

// stepClock is a deterministic clock: every call returns a time one
// millisecond after the previous one.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func newStepClock() *stepClock {
	return &stepClock{t: time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)}
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

func ledgerPath(t testing.TB) string {
	return filepath.Join(t.TempDir(), "ledger.db")
}

// openLedger opens a ledger at path and closes it when the test ends.
func openLedger(t testing.TB, path string, opts ...ledger.Option) *ledger.Ledger {
	t.Helper()
	l, err := ledger.Open(context.Background(), path, opts...)
	requireNoErr(t, err)
	t.Cleanup(func() { l.Close() })
	return l
}

// purchase returns an intent for buying plan with seats, keyed the way the
// committer keys it.
func purchase(t testing.TB, plan string, seats int) ledger.Intent {
	t.Helper()
	payload := json.RawMessage(fmt.Sprintf(`{"plan":%q,"seats":%d,"billing":"annual","amount":{"value":"%d.00","currency":"EUR"}}`, plan, seats, seats*19))
	key, err := ledger.IdempotencyKey("saas-demo", "checkout", payload)
	requireNoErr(t, err)
	return ledger.Intent{
		Key: key, RunID: "01JRUN0000000000000000000A", BranchID: "01JBRANCH00000000000000000",
		PlanDigest: "sha256:plan", Site: "saas-demo", Flow: "checkout", Payload: payload,
	}
}

// rawDB opens the ledger file directly, the way someone tampering with it
// would (foreign keys off).
func rawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	dsn := (&url.URL{Scheme: "file", OmitHost: true, Path: path}).String()
	db, err := sql.Open("sqlite3", dsn)
	requireNoErr(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func headSeq(t testing.TB, l *ledger.Ledger) int64 {
	t.Helper()
	seq, _, err := l.Head(context.Background())
	requireNoErr(t, err)
	return seq
}

// verifyErrors flattens the errors.Join returned by Verify.
func verifyErrors(t testing.TB, err error) []*ledger.VerifyError {
	t.Helper()
	if err == nil {
		return nil
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	out := make([]*ledger.VerifyError, 0, len(errs))
	for _, e := range errs {
		var ve *ledger.VerifyError
		if !errors.As(e, &ve) {
			t.Fatalf("Verify returned a non-VerifyError problem: %v", e)
		}
		out = append(out, ve)
	}
	return out
}
