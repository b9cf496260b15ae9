package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/multiverse-orchestrator/multiverse/artifacts"
	"github.com/multiverse-orchestrator/multiverse/browser"
	"github.com/multiverse-orchestrator/multiverse/commit/ledger"
	"github.com/multiverse-orchestrator/multiverse/eventlog"
	"github.com/multiverse-orchestrator/multiverse/internal/chromiumtest"
	"github.com/multiverse-orchestrator/multiverse/internal/porttrap"
	"github.com/multiverse-orchestrator/multiverse/internal/sitetest"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/sites"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// One Chromium for the package (chromiumtest); a session per test.
func runtime(t *testing.T) *browser.Runtime { return chromiumtest.Runtime(t) }

func TestMain(m *testing.M) {
	code := porttrap.Run(m)
	chromiumtest.Close()
	closeExplored()
	os.Exit(code)
}

type site = sitetest.Site

func chaos() sites.Knobs {
	return sites.Knobs{Latency: 5 * time.Millisecond, LateBanner: true, Modal: true, LazyContent: true, PageRandom: true, TimerRace: true}
}

// executedBranches lists a run's branches that were executed and
// observed, the winner first.
func executedBranches(t *testing.T, dir, runID string) (winner string, ids []string) {
	t.Helper()
	l, err := eventlog.Open(context.Background(), filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	evs, err := l.Events(context.Background(), runID, eventlog.Query{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range evs {
		switch e.Kind {
		case "winner":
			winner = e.BranchID
		case eventlog.KindDOMSnapshot:
			if !seen[e.BranchID] {
				seen[e.BranchID] = true
				ids = append(ids, e.BranchID)
			}
		}
	}
	sort.SliceStable(ids, func(i, j int) bool { return ids[i] == winner && ids[j] != winner })
	return winner, ids
}

func source(t *testing.T, dir string) (replay.Source, func()) {
	t.Helper()
	el, err := eventlog.Open(context.Background(), filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	store, err := artifacts.OpenFS(filepath.Join(dir, "artifacts"))
	if err != nil {
		t.Fatal(err)
	}
	led, err := ledger.Open(context.Background(), filepath.Join(dir, "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	return replay.Source{Events: el, Store: store, Ledger: led}, func() { el.Close(); led.Close() }
}

// TestReplayWithChaos is the determinism acceptance: with every chaos knob
// of the demo site on (a late cookie modal, lazy-loaded plans, Math.random
// and Date in pages, timer races), 20 branches of the demo run (the winner
// and pruned ones) replay at RSR 1.0 from portable bundles, with the site
// stopped and the run's data dir gone; the commit bundle replays the
// purchase against the recorded responses; and with the determinism
// controls off the same bundles diverge.
func TestReplayWithChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	s := startSite(t, chaos())
	dir := t.TempDir()
	ctx := context.Background()
	sum, err := orchestrator.Run(ctx, orchestrator.Config{Task: demoTask(t, s.URL(), nil), DataDir: dir, Workers: 4, NoScreenshots: true})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	winner, ids := executedBranches(t, dir, sum.RunID)
	if winner == "" || len(ids) < 20 {
		t.Fatalf("need a winner and 20 executed branches, have %q and %d", winner, len(ids))
	}
	ids = ids[:20]
	// Bundles go to another directory; then the data dir and the site go.
	portable := t.TempDir()
	src, closeSrc := source(t, dir)
	for _, id := range ids {
		b, err := replay.Build(ctx, src, sum.RunID, id, bundle.KindBranch)
		if err != nil {
			t.Fatalf("bundle %s: %v", id, err)
		}
		if err := bundle.WriteFile(filepath.Join(portable, id+".bundle"), b); err != nil {
			t.Fatal(err)
		}
	}
	commitBundle := filepath.Join(portable, "commit.bundle")
	if data, err := os.ReadFile(sum.Paths.Bundle); err != nil {
		t.Fatalf("the run sealed no commit bundle: %v", err)
	} else if err := os.WriteFile(commitBundle, data, 0o644); err != nil {
		t.Fatal(err)
	}
	closeSrc()
	s.Server.Close(ctx)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range append([]string{"commit"}, ids...) {
		b, err := bundle.ReadFile(filepath.Join(portable, name+".bundle"), bundle.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := replay.Replay(ctx, runtime(t), b, replay.Options{})
		if err != nil || rep.RSR != 1 {
			t.Errorf("bundle %s: RSR %.2f, %v\n%s", name, repRSR(rep), err, repDiff(rep))
		}
	}
	// The controls are what makes it work: without them the pages'
	// Math.random and Date differ and the replay diverges.
	diverged := 0
	for _, name := range []string{"commit", ids[0]} {
		b, err := bundle.ReadFile(filepath.Join(portable, name+".bundle"), bundle.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		rep, _ := replay.Replay(ctx, runtime(t), b, replay.Options{NoControls: true})
		if rep != nil && rep.RSR < 1 {
			diverged++
		}
	}
	if diverged < 2 {
		t.Errorf("with the determinism controls off only %d of 2 replays diverged", diverged)
	}
}

func repRSR(r *replay.Report) float64 {
	if r == nil {
		return 0
	}
	return r.RSR
}

func repDiff(r *replay.Report) string {
	if r == nil {
		return ""
	}
	return r.Diff
}

// TestLiveReplayDrift: replaying the winner of the package's explored
// demo run live against its site reproduces; after the site changed (the
// drift knob edits the home page), the live replay reports the first
// step as the divergence and the diff names what changed.
func TestLiveReplayDrift(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	e := exploredDemo(t)
	e.serveAt(t, e.vendor)
	sum, dir := e.sum, e.exploredCopy(t)
	ctx := context.Background()
	src, closeSrc := source(t, dir)
	defer closeSrc()
	b, err := replay.Build(ctx, src, sum.RunID, sum.Winner.BranchID, bundle.KindBranch)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := replay.Replay(ctx, runtime(t), b, replay.Options{Live: true})
	if err != nil || rep.RSR != 1 {
		t.Fatalf("live replay of an unchanged site: RSR %.2f, %v\n%s", repRSR(rep), err, repDiff(rep))
	}
	k := e.knobs
	k.Drift = "Now with automatic failover."
	if err := e.vendor.SetKnobs(k); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.vendor.SetKnobs(e.knobs) })
	rep, err = replay.Replay(ctx, runtime(t), b, replay.Options{Live: true})
	if err == nil || rep.TTD != 1 {
		t.Fatalf("live replay after drift: TTD %d, err %v", rep.TTD, err)
	}
	if !strings.Contains(rep.Diff, "automatic failover") {
		t.Fatalf("the diff does not name the change:\n%s", rep.Diff)
	}
}

// TestNothingSensitiveRecorded plants an e-mail address, a card number, a
// phone number, an Authorization header and a task secret, runs the demo
// to a commit, and checks that none of them is in any byte of the commit
// bundle, the event log or the logs.
func TestNothingSensitiveRecorded(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	const (
		email  = "planted.buyer@example.com"
		card   = "4111 1111 1111 1111"
		phone  = "+49 30 1234 5678"
		secret = "s3cr3t-Planted-42"
		bearer = "Bearer planted-api-token-9f8e7d"
	)
	t.Setenv("MV_PLANTED_SECRET", secret)
	t.Setenv("MV_PLANTED_TOKEN", bearer)
	k := sites.DefaultKnobs()
	k.Latency = 5 * time.Millisecond
	k.Drift = "Questions? Call " + phone + " or pay by card " + card + "."
	s := startSite(t, k)
	tk := demoTask(t, s.URL(), func(src string) string {
		src = strings.Replace(src, "procurement@example.com", email, 1)
		src = strings.Replace(src, "  email: {value: "+email+", match: '(?i)e-?mail'}\n",
			"  email: {value: "+email+", match: '(?i)e-?mail'}\n  vat_id: {secret_env: MV_PLANTED_SECRET, match: '(?i)vat'}\n", 1)
		src = strings.Replace(src, "budgets:\n", "environment:\n  headers:\n    Authorization: {secret_env: MV_PLANTED_TOKEN}\n\nbudgets:\n", 1)
		return src
	})
	if _, ok := tk.Inputs["vat_id"]; !ok || len(tk.Environment.Headers) != 1 {
		t.Fatal("the planted inputs did not make it into the task")
	}
	dir := t.TempDir()
	var logs bytes.Buffer
	sum, err := orchestrator.Run(context.Background(), orchestrator.Config{Task: tk, DataDir: dir, Workers: 4,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	raw, err := os.ReadFile(sum.Paths.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zstd.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	tarBytes, err := io.ReadAll(zr)
	zr.Close()
	if err != nil {
		t.Fatal(err)
	}
	var events bytes.Buffer
	for _, f := range []string{"events.db", "events.db-wal"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
			events.Write(b)
		}
	}
	el, _ := eventlog.Open(context.Background(), filepath.Join(dir, "events.db"))
	evs, _ := el.Events(context.Background(), sum.RunID, eventlog.Query{})
	el.Close()
	eventlog.WriteJSONL(&events, evs)
	js, _ := json.Marshal(sum)
	digits := strings.ReplaceAll(card, " ", "")
	for name, hay := range map[string][]byte{"bundle": tarBytes, "event log": events.Bytes(), "logs": logs.Bytes(), "summary": js} {
		encoded := strings.Replace(email, "@", "%40", 1)
		for _, needle := range []string{email, encoded, "planted.buyer", card, digits, phone, secret, bearer, "planted-api-token", "s3cr3t"} {
			if bytes.Contains(hay, []byte(needle)) {
				t.Errorf("%q is in the %s", needle, name)
			}
		}
	}
	if !bytes.Contains(tarBytes, []byte("scrubbed.invalid")) {
		t.Error("the bundle holds no e-mail token: was the planted e-mail typed at all?")
	}
}

func startSite(t *testing.T, k sites.Knobs) *site { return sitetest.Start(t, k) }

func demoTask(t *testing.T, url string, edit func(string) string) *task.Task {
	return sitetest.DemoTask(t, url, edit)
}
