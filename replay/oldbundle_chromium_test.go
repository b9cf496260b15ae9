package replay_test

import (
	"context"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
)

// TestBundleOfTheEarlierFormatReplays: testdata/v1-before-live.bundle was
// written by the build before live channels, start states, recalls and
// late answers were kept (commit 646a27f: a catalogue page that loads its
// items and their stock in turn, a link, a button). It still validates,
// and a strict replay with this build reproduces every step's strict
// hashes, twice.
func TestBundleOfTheEarlierFormatReplays(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	b, err := bundle.ReadFile("testdata/v1-before-live.bundle", bundle.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Manifest.StartState != "" || b.Manifest.Recall != nil || len(b.Steps) != 3 {
		t.Fatalf("not the earlier bundle: %+v", b.Manifest)
	}
	for i := 0; i < 2; i++ {
		rep, err := replay.Replay(context.Background(), runtime(t), b, replay.Options{})
		if err != nil || rep.RSR != 1 {
			t.Fatalf("replay %d: RSR %.2f, %v\n%s", i+1, repRSR(rep), err, repDiff(rep))
		}
	}
}
