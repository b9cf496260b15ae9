package bundle

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// TestEventHashMatchesEventlog pins eventHash to eventlog's own golden
// chain: the bundle recomputes the documented hash of single events, and
// must agree with eventlog for every one.
func TestEventHashMatchesEventlog(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "eventlog", "testdata", "golden.jsonl"))
	if err != nil {
		t.Skipf("eventlog golden chain not available: %v", err)
	}
	defer f.Close()
	es, err := eventlog.ReadJSONL(f)
	requireNoErr(t, err)
	require(t, len(es) > 0, "empty golden chain")
	requireNoErr(t, eventlog.VerifyChain(es[0].RunID, es))
	for i := range es {
		h, _, err := eventHash(&es[i])
		requireNoErr(t, err)
		require(t, h == es[i].Hash, "event %d: eventHash %s, eventlog %s", es[i].Seq, h, es[i].Hash)
	}
	// And the fixture chain of this package's tests.
	run := runEvents(t)
	requireNoErr(t, eventlog.VerifyChain(testRunID, run))
}
