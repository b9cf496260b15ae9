package replay_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/multiverse-orchestrator/multiverse/branch"
	"github.com/multiverse-orchestrator/multiverse/orchestrator"
	"github.com/multiverse-orchestrator/multiverse/replay"
	"github.com/multiverse-orchestrator/multiverse/replay/bundle"
	"github.com/multiverse-orchestrator/multiverse/task"
)

// settingsPage is a settings form of the WAI-ARIA practices kind: a
// slider and a spin button moved by keys, and a Save button that loads
// the saved settings (a GET).
const settingsPage = `<!doctype html><html><head><title>Settings</title>
<style>.rail{position:relative;width:200px;height:6px;background:#ccc;margin:12px 0}
.thumb{position:absolute;top:-7px;width:20px;height:20px;margin-left:-10px;background:#36c;border-radius:50%}</style></head>
<body><main><h1>Settings</h1>
<p><span id="vol-label">Volume</span></p>
<div class="rail"><div class="thumb" id="volume" role="slider" tabindex="0" aria-labelledby="vol-label"
  aria-valuemin="0" aria-valuemax="100" aria-valuenow="50"></div></div>
<p><span id="guests-label">Guests</span>
<span id="guests" role="spinbutton" tabindex="0" aria-labelledby="guests-label" aria-valuemin="1" aria-valuemax="9" aria-valuenow="2">2</span></p>
<button type="button" id="save">Save</button>
<script>
const keyed = (el, min, max, page, show) => el.addEventListener('keydown', (e) => {
  const v = +el.getAttribute('aria-valuenow');
  const n = { ArrowRight: v + 1, ArrowUp: v + 1, ArrowLeft: v - 1, ArrowDown: v - 1, PageUp: v + page, PageDown: v - page, Home: min, End: max }[e.key];
  if (n === undefined) return;
  e.preventDefault();
  show(Math.max(min, Math.min(max, n)));
});
const vol = document.getElementById('volume'), guests = document.getElementById('guests');
const showVol = (v) => { vol.setAttribute('aria-valuenow', String(v)); vol.style.left = v + '%'; };
showVol(50);
keyed(vol, 0, 100, 10, showVol);
keyed(guests, 1, 9, 3, (v) => { guests.setAttribute('aria-valuenow', String(v)); guests.textContent = String(v); });
document.getElementById('save').addEventListener('click', () => {
  location.href = '/saved?volume=' + vol.getAttribute('aria-valuenow') + '&guests=' + guests.getAttribute('aria-valuenow');
});
</script></main></body></html>`

func settingsSite() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, settingsPage)
	})
	mux.HandleFunc("/saved", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Saved</title></head><body><main><h1>Saved</h1><p>Volume %s, guests %s.</p></main></body></html>`,
			r.URL.Query().Get("volume"), r.URL.Query().Get("guests"))
	})
	return mux
}

const settingsTask = `version: 1
name: settings
start_url: %s/
seed: 5
goal:
  text: Set the volume to 73 and the guests to 4, then click Save.
  success:
    - name: saved
      url_matches: '/saved\?volume=73&guests=4$'
budgets:
  wall_clock: 2m
  steps_per_branch: 5
  total_branches: 30
search:
  strategy: beam
  beam_width: 2
  max_children: 3
  workers: 2
`

// TestStrictReplayOfSet: a run that reaches its goal by setting a slider
// and a spin button (keys, no typing) leaves a bundle whose steps record
// how each value was set, and a strict replay of it, with the site gone,
// repeats every step at RSR 1.0 with the same way of setting.
func TestStrictReplayOfSet(t *testing.T) {
	if testing.Short() {
		t.Skip("drives Chromium")
	}
	srv := httptest.NewServer(settingsSite())
	defer srv.Close()
	tk, err := task.Parse("settings.yaml", []byte(fmt.Sprintf(settingsTask, srv.URL)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sum, err := orchestrator.Run(ctx, orchestrator.Config{Task: tk, DataDir: t.TempDir(), Workers: 2, NoScreenshots: true})
	if err != nil || sum.Paths.Bundle == "" {
		t.Fatalf("run: %v, winner bundle %q", err, sum.Paths.Bundle)
	}
	b, err := bundle.ReadFile(sum.Paths.Bundle, bundle.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var vias []string
	for _, st := range b.Steps {
		if st.Action.Kind == branch.KindSet {
			if st.Via == "" {
				t.Errorf("step %d (%s) records no via", st.Index, st.Action.Describe())
			}
			vias = append(vias, st.Via)
		}
	}
	if len(vias) != 2 {
		t.Fatalf("the winning plan sets %d values (%q), want the slider and the spin button: %v", len(vias), vias, b.Manifest.Plan)
	}
	srv.Close()
	rep, err := replay.Replay(ctx, runtime(t), b, replay.Options{})
	if err != nil || rep.RSR != 1 {
		t.Fatalf("strict replay: RSR %.2f, %v\n%s", repRSR(rep), err, repDiff(rep))
	}
	for _, st := range rep.Steps {
		if st.WantVia != "" && st.Via != st.WantVia {
			t.Errorf("step %d set its value by %q, recorded %q", st.Index, st.Via, st.WantVia)
		}
	}
	// A recorded way that differs is a divergence.
	for i := range b.Steps {
		if b.Steps[i].Via != "" {
			b.Steps[i].Via = "keys " + strings.Repeat("ArrowUp ", 2)
			break
		}
	}
	rep, err = replay.Replay(ctx, runtime(t), b, replay.Options{})
	if rep == nil || rep.RSR == 1 || !strings.Contains(repDiff(rep), "the way the value was set") {
		t.Fatalf("a replay that set a value otherwise than recorded: RSR %.2f, %v\n%s", repRSR(rep), err, repDiff(rep))
	}
}
