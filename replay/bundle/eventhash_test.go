package bundle

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/eventlog"
)

// TestEventHashMatchesEventlog pins the hash a bundle checks single
// events with (eventlog.EventHash) to eventlog's own golden chain: it must
// agree with eventlog for every event.
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
		h, _, err := eventlog.EventHash(&es[i])
		requireNoErr(t, err)
		require(t, h == es[i].Hash, "event %d: EventHash %s, eventlog %s", es[i].Seq, h, es[i].Hash)
	}
	// And the fixture chain of this package's tests.
	run := runEvents(t)
	requireNoErr(t, eventlog.VerifyChain(testRunID, run))
}
