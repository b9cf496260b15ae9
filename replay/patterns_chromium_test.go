package replay_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/sites/patterns"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// TestRealAppPatternsReplay is the acceptance of replay on pages built
// from the patterns of real applications (sites/patterns): each task runs
// to its goal against the live site, its winner's bundle is written and
// read back, the site is stopped, and two strict replays in real
// Chromium, away from the run's data dir (with a scrubbing key of their
// own), reproduce every step's strict hashes (RSR 1.00), so the two give
// identical hashes. Each row also checks what makes its cause
// replayable.
func TestRealAppPatternsReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	t.Setenv("PATTERNS_PASSWORD", patterns.Password)
	for _, tc := range []struct {
		file  string
		check func(t *testing.T, b *bundle.Bundle)
	}{
		{"loader.yaml", func(t *testing.T, b *bundle.Bundle) {
			data, ok := b.Body(b.Manifest.StartState)
			if !ok {
				t.Fatal("the bundle holds no start state: a replay starts without the modules the login cached")
			}
			st, err := task.ParseStorageState(data)
			if err != nil {
				t.Fatal(err)
			}
			var uid, sid string
			for _, c := range st.Cookies {
				switch c.Name {
				case "uid":
					uid = c.Value
				case "sid":
					sid = c.Value
				}
			}
			if uid != patterns.UserID || !strings.HasPrefix(sid, "tok_") {
				t.Errorf("start state cookies uid %q (want the short id %q kept), sid %q (want a token)", uid, patterns.UserID, sid)
			}
			if !bytes.Contains(data, []byte("mod:a")) {
				t.Errorf("the start state lacks the cached modules: %s", data)
			}
		}},
		{"twice.yaml", func(t *testing.T, b *bundle.Bundle) {
			loads := 0
			for _, e := range b.Network {
				if e.Step == 1 && strings.HasSuffix(e.URL, "/twice") {
					loads++
				}
			}
			if loads != 2 {
				t.Errorf("step 1 recorded %d loads of /twice, want 2", loads)
			}
		}},
		{"form.yaml", func(t *testing.T, b *bundle.Bundle) {
			for p, data := range b.Files {
				if bytes.Contains(data, []byte("jane.roe@example.org")) || bytes.Contains(data, []byte("Jane Roe")) {
					t.Errorf("%s holds a personal value in clear", p)
				}
			}
		}},
		{"console.yaml", func(t *testing.T, b *bundle.Bundle) {
			said := 0
			for _, s := range b.Steps {
				said += len(s.Console)
			}
			if said == 0 {
				t.Error("no step recorded what the page said on its console")
			}
		}},
		{"live.yaml", func(t *testing.T, b *bundle.Bundle) {
			kinds := map[string]int{}
			for _, s := range b.Steps {
				for _, f := range s.Live {
					kinds[f.Kind]++
				}
			}
			// Two connections made and opened; three prices, the echo and
			// the stream's events in; the subscription and the ping out.
			if kinds[branch.LiveNew] != 2 || kinds[branch.LiveIn] < 5 || kinds[branch.LiveOut] != 2 {
				t.Errorf("live entries by kind: %v", kinds)
			}
			// The HAR export holds the WebSocket's frames and the
			// stream's events as developer tools write them.
			har, err := bundle.HAR(b)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{`"_webSocketMessages":[`, `"type":"send","time":`, `"data":"echo ping"`,
				`"_eventSourceMessages":[`, `"eventName":"headline"`, `"data":"Markets open higher"`} {
				if !bytes.Contains(har, []byte(want)) {
					t.Errorf("the HAR lacks %s", want)
				}
			}
		}},
		{"spa.yaml", func(t *testing.T, b *bundle.Bundle) {
			// The slow request was in flight when its step was observed:
			// a replay must not answer it before then either.
			for _, e := range b.Network {
				if strings.HasSuffix(e.URL, "/api/reports") {
					if !e.Late && e.Status != 0 {
						t.Errorf("the slow request is recorded as answered in its step: %+v", e)
					}
					return
				}
			}
			t.Error("the bundle holds no /api/reports request")
		}},
		{"below.yaml", nil},
	} {
		t.Run(strings.TrimSuffix(tc.file, ".yaml"), func(t *testing.T) {
			b := patternBundle(t, tc.file)
			if tc.check != nil {
				tc.check(t, b)
			}
			for i := 0; i < 2; i++ {
				// Away from the run's data dir: a key of the replay's own.
				rep, err := replay.Replay(context.Background(), runtime(t), b, replay.Options{})
				if err != nil || rep.RSR != 1 {
					t.Fatalf("replay %d: RSR %.2f, %v\n%s", i+1, repRSR(rep), err, repDiff(rep))
				}
			}
		})
	}
}

// patternBundle runs a task of sites/patterns to its goal against a fresh
// site, then stops the site and returns the winner's bundle as written
// and read back.
func patternBundle(t *testing.T, file string) *bundle.Bundle {
	t.Helper()
	srv := httptest.NewServer(patterns.New(patterns.Options{}))
	defer srv.Close()
	raw, err := os.ReadFile(filepath.Join("..", "sites", "patterns", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	tk, err := task.Parse(file, bytes.ReplaceAll(raw, []byte("http://patterns.invalid"), []byte(srv.URL)))
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := winnerBundle(t, tk)
	srv.Close()
	var buf bytes.Buffer
	if err := bundle.Write(&buf, b); err != nil {
		t.Fatal(err)
	}
	if b, err = bundle.Read(&buf, bundle.Limits{}); err != nil {
		t.Fatal(err)
	}
	return b
}

// winnerBundle runs an explore-only task to its goal with one worker and
// returns its winner's bundle, the run's data dir and run id.
func winnerBundle(t *testing.T, tk *task.Task) (*bundle.Bundle, string, string) {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	sum, err := orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: dir, Workers: 1, ExploreOnly: true, NoCache: true})
	if err != nil || sum.Status != "goal_reached" {
		t.Fatalf("run: %+v %v", sum, err)
	}
	s, closeSrc := source(t, dir)
	defer closeSrc()
	b, err := replay.Build(ctx, s, sum.RunID, sum.Winner.BranchID, bundle.KindBranch)
	if err != nil {
		t.Fatal(err)
	}
	return b, dir, sum.RunID
}
