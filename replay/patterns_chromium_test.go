package replay_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"net/url"
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
		// cold runs every branch in a fresh context that replays its
		// prefix (the winner's bundle then holds that context's
		// requests, not its ancestors').
		cold bool
	}{
		{file: "loader.yaml", check: func(t *testing.T, b *bundle.Bundle) {
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
		{file: "twice.yaml", check: func(t *testing.T, b *bundle.Bundle) {
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
		{file: "form.yaml", check: func(t *testing.T, b *bundle.Bundle) {
			for p, data := range b.Files {
				if bytes.Contains(data, []byte("jane.roe@example.org")) || bytes.Contains(data, []byte("Jane Roe")) {
					t.Errorf("%s holds a personal value in clear", p)
				}
			}
		}},
		{file: "console.yaml", check: func(t *testing.T, b *bundle.Bundle) {
			said := 0
			for _, s := range b.Steps {
				said += len(s.Console)
			}
			if said == 0 {
				t.Error("no step recorded what the page said on its console")
			}
		}},
		{file: "live.yaml", check: func(t *testing.T, b *bundle.Bundle) {
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
		{file: "spa.yaml", check: func(t *testing.T, b *bundle.Bundle) {
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
		{file: "below.yaml"},
		{file: "wizard.yaml", check: wizardTokens},
		{file: "wizard.yaml", check: wizardTokens, cold: true},
	} {
		name := strings.TrimSuffix(tc.file, ".yaml")
		if tc.cold {
			name += "-cold"
		}
		t.Run(name, func(t *testing.T) {
			b := patternBundle(t, tc.file, tc.cold)
			if tc.check != nil {
				tc.check(t, b)
			}
			for i := 0; i < 2; i++ {
				// Away from the run's data dir: a key of the replay's own.
				rep, err := replay.Replay(context.Background(), runtime(t), b, replay.Options{})
				if err != nil || rep.RSR != 1 {
					t.Fatalf("replay %d: RSR %.2f, %v\n%s", i+1, repRSR(rep), err, repDiff(rep))
				}
				if tc.cold {
					coldChecks(t, b, rep)
				}
			}
		})
	}
}

// wizardTokens checks that every form token the winner sent is one a
// page of its own bundle rendered: the requests and the pages of each
// step come from one browser context.
func wizardTokens(t *testing.T, b *bundle.Bundle) {
	t.Helper()
	sent := 0
	for _, e := range b.Network {
		u, err := url.Parse(e.URL)
		if err != nil || !strings.HasPrefix(u.Path, "/wizard/") {
			continue
		}
		tok := u.Query().Get("token")
		sent++
		found := false
		for _, r := range b.Network {
			if body, ok := b.Body(r.BodySHA256); ok && r.Step < e.Step && bytes.Contains(body, []byte(`value="`+tok+`"`)) {
				found = true
			}
		}
		if !found {
			t.Errorf("step %d sent token %s, which no earlier page of the bundle rendered", e.Step, tok)
		}
	}
	if sent != 2 {
		t.Errorf("the bundle sent %d wizard forms, want 2", sent)
	}
}

// coldChecks: the winner of a cold run replayed its prefix in a context
// of its own; its bundle holds that context's requests, the prefix's
// hashes (its ancestors') are advisory, and where the site answered the
// two contexts differently (a fresh form token in each page) the replay
// notes it instead of failing.
func coldChecks(t *testing.T, b *bundle.Bundle, rep *replay.Report) {
	t.Helper()
	last := len(b.Steps)
	for _, s := range b.Steps {
		if s.Advisory != (s.Index < last) {
			t.Errorf("step %d of %d: advisory %v", s.Index, last, s.Advisory)
		}
	}
	noted := 0
	for _, s := range rep.Steps {
		if s.Advisory {
			noted++
		}
	}
	if noted == 0 || len(rep.Notes) < noted {
		t.Errorf("%d advisory steps differ, notes %q: the ancestors' pages held other tokens", noted, rep.Notes)
	}
}

// patternBundle runs a task of sites/patterns to its goal against a fresh
// site, then stops the site and returns the winner's bundle as written
// and read back.
func patternBundle(t *testing.T, file string, cold bool) *bundle.Bundle {
	t.Helper()
	srv := httptest.NewServer(patterns.New(patterns.Options{}))
	defer srv.Close()
	tk, err := patterns.Task(file, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := winnerBundle(t, tk, func(c *orchestrator.Config) { c.Cold = cold })
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
func winnerBundle(t *testing.T, tk *task.Task, with ...func(*orchestrator.Config)) (*bundle.Bundle, string, string) {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	cfg := orchestrator.Config{Task: tk, DataDir: dir, Workers: 1, ExploreOnly: true, NoCache: true}
	for _, f := range with {
		f(&cfg)
	}
	sum, err := orchestrator.Run(ctx, cfg)
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

// TestScreenshotOnDemand: a step's screenshot rendered on demand by a
// strict replay of its branch (what the dashboard shows for a step the
// run did not screenshot) shows the page the capture screenshotted with
// capture.screenshots: all, every step under replay.ScreenAlike.
func TestScreenshotOnDemand(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	srv := httptest.NewServer(patterns.New(patterns.Options{}))
	defer srv.Close()
	tk, err := patterns.Task("wizard.yaml", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	tk.Capture.Screenshots = task.ScreenshotsAll
	b, _, _ := winnerBundle(t, tk)
	srv.Close()
	rendered := map[int][]byte{}
	rep, err := replay.Replay(context.Background(), runtime(t), b, replay.Options{OnShot: func(step int, png []byte) { rendered[step] = png }})
	if err != nil || rep.RSR != 1 {
		t.Fatalf("replay: RSR %.2f, %v\n%s", repRSR(rep), err, repDiff(rep))
	}
	for _, s := range rep.Steps {
		if _, ok := b.Files[bundle.ScreenshotPath(s.Index)]; !ok || rendered[s.Index] == nil {
			t.Errorf("step %d: recorded screenshot %v, rendered %d bytes", s.Index, ok, len(rendered[s.Index]))
			continue
		}
		if s.ScreenDiff != nil {
			t.Logf("step %d: distance %.4f", s.Index, *s.ScreenDiff)
		}
		if s.ScreenDiff == nil || *s.ScreenDiff > replay.ScreenAlike {
			t.Errorf("step %d: the rendered screenshot is %v from the captured one, want at most %v", s.Index, s.ScreenDiff, replay.ScreenAlike)
		}
	}
	if len(rep.Steps) < 3 {
		t.Errorf("the winner has %d steps: want the wizard's", len(rep.Steps))
	}
}
