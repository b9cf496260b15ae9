package replay_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/scrub"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// memberPage writes an e-mail address its own script makes (from the
// page's seeded randomness, as a page that generates a member address
// does) and has a button that finishes.
const memberPage = `<!doctype html><html><head><title>Welcome</title></head><body><main><h1>Welcome</h1>
<p>Your address: <span id="addr"></span></p><button id="go" type="button">Continue</button><p id="out"></p>
<script>
document.getElementById('addr').textContent = 'member' + Math.floor(Math.random() * 1e6) + '@example.org';
document.getElementById('go').onclick = () => { document.getElementById('out').textContent = 'Done'; };
</script></main></body></html>`

// TestPageMadeValueKeepsItsToken: a personal value the page makes itself
// is scrubbed at capture with the run's key; a strict replay in the run's
// data dir scrubs it with the same key (replay.Options.ScrubKey), and a
// replay anywhere else with a key of its own finds the value in the
// bundle's recall (a slow salted hash, never the value): both reproduce
// every hash, twice alike. Without the recall, a key of its own gives the
// value another token and the replay diverges.
func TestPageMadeValueKeepsItsToken(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, memberPage) }))
	defer srv.Close()
	src := fmt.Sprintf("start_url: %s/\nseed: 3\ngoal:\n  text: Click Continue.\n  success:\n    - {name: done, text: {selector: '#out', equals: Done}}\n", srv.URL)
	tk, err := task.Parse("member.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	b, dir, runID := winnerBundle(t, tk)
	srv.Close()
	key, err := scrub.ReadKey(dir, runID)
	if err != nil {
		t.Fatal(err)
	}
	// Twice: both must match the recorded hashes, so they match each other.
	for i := 0; i < 2; i++ {
		rep, err := replay.Replay(ctx, runtime(t), b, replay.Options{ScrubKey: key})
		if err != nil || rep.RSR != 1 {
			t.Fatalf("replay %d with the run's key: RSR %.2f, %v\n%s", i+1, repRSR(rep), err, repDiff(rep))
		}
		// The advisory screenshot comparison: the recorded and replayed
		// pages look alike.
		compared := 0
		for _, st := range rep.Steps {
			if st.ScreenDiff != nil {
				compared++
				if *st.ScreenDiff > replay.ScreenAlike {
					t.Errorf("replay %d step %d: screenshot distance %.4f from the recorded one", i+1, st.Index, *st.ScreenDiff)
				}
			}
		}
		if compared == 0 {
			t.Errorf("replay %d compared no screenshot; the bundle holds %d files", i+1, len(b.Files))
		}
	}
	if b.Manifest.Recall == nil || len(b.Manifest.Recall.Tokens) == 0 {
		t.Fatal("the bundle holds no recall")
	}
	for h := range b.Manifest.Recall.Tokens {
		if strings.Contains(h, "@") || strings.Contains(h, "member") {
			t.Errorf("a recall key holds the value: %s", h)
		}
	}
	for i := 0; i < 2; i++ {
		rep, err := replay.Replay(ctx, runtime(t), b, replay.Options{})
		if err != nil || rep.RSR != 1 {
			t.Fatalf("replay %d away from the data dir: RSR %.2f, %v\n%s", i+1, repRSR(rep), err, repDiff(rep))
		}
	}
	b.Manifest.Recall = nil
	rep, err := replay.Replay(ctx, runtime(t), b, replay.Options{})
	if err == nil && rep.RSR == 1 {
		t.Error("without the recall, a replay with a key of its own reproduced a page-made personal value's token: the test shows nothing")
	}
}
