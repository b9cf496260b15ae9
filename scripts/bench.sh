#!/usr/bin/env bash
# The benchmark report. Speed targets are checked here as ratios measured in
# the same run, never in timed tests (these machines are shared and noisy).
#
#   1. search strategies on 200 seeded simulated sites (simbench)
#   2. Go benchmarks: frontier at 100k branches, orchestrator overhead per
#      step over embedded JetStream, bus round trip, event log, ledger,
#      the dashboard's runs list over 10,000 branches
#   3. the demo with real Chromium on the latency-bound demo site (100 ms):
#      wall clock to the commit boundary with 1, 2 and 4 in-process workers;
#      CPU per branch step over the run's process tree (orchestrator,
#      driver, Chromium, read from /proc), screenshots where someone looks
#      against every step's
#   4. capture and replay: capture overhead per step, replay wall clock as a
#      ratio of capture, bundle size of the winner; the winner's flow played
#      alone (orchestrator play) against the search that found it; the plan
#      cache: a first run, a cached run and a cached run after drift; a
#      full rerun of the first run against its recorded world; the
#      model planner against a scripted endpoint answering after 300 ms; the
#      demo task run cold against submitted to a warm engine
#   5. distributed: branch throughput with 1, 2 and 4 worker processes, and
#      orchestrator CPU per 1,000 branches
#   6. the gym (6b: timed on a warm engine's parts): success per widget family of the default search and of a
#      sequential greedy agent on the same episodes (GYM_SEEDS, default 10),
#      tuning and frozen evaluation families apart, each part's total
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/orchestrator ./cmd/orchestrator
go build -o bin/worker ./cmd/worker
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT
num() { python3 -c "import json,sys; s=json.load(open('$1'))['summary']; print($2)"; }

echo "== 1. Search strategies on 200 simulated sites (4 simulated workers)"
go run ./tools/simbench -sites 200 -seed 1 -workers 4

echo
echo "== 2. Go benchmarks"
go test -run '^$' -bench 'FrontierPushPop|FrontierUpdate' -benchtime 200000x ./planner/ | grep -E '^Benchmark'
# one rescore touches all 100k branches: a few rounds are plenty
go test -run '^$' -bench 'FrontierRescore' -benchtime 20x ./planner/ | grep -E '^Benchmark'
go test -run '^$' -bench 'BenchmarkOrchestratorStep' -benchtime 9x ./orchestrator/ | grep -E '^Benchmark'
go test -run '^$' -bench 'BenchmarkJobRoundTrip' -benchtime 500x ./bus/ | grep -E '^Benchmark'
go test -run '^$' -bench 'BenchmarkAppendBatch|BenchmarkAppend$' -benchtime 200x ./eventlog/ | grep -E '^Benchmark'
# the dashboard's runs list over 100 runs and 10,000 branches (target well under 1 s)
go test -run '^$' -bench 'BenchmarkRunsList' -benchtime 20x ./dashboard/ | grep -E '^Benchmark'

echo
echo "== 3. Demo wall clock to the commit boundary (real Chromium, 100 ms latency)"
# busy: the machine's busy CPU ticks (1/100 s) so far; Chromium's processes
# are not the orchestrator's children, so CPU is read machine-wide.
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat; }
cores=$(nproc)
for w in 1 2 4; do
  c0=$(busy)
  bin/orchestrator demo --workers "$w" --data-dir "$tmp/w$w" --json --quiet > "$tmp/w$w.json"
  c1=$(busy)
  echo $((c1 - c0)) > "$tmp/w$w.cpu"
  printf 'workers=%d  to the boundary %6.2fs  total %6.2fs  branches %s  actions %s  warm %s  machine CPU %5.1fs (%.1f of %d cores busy)\n' "$w" \
    "$(num "$tmp/w$w.json" 's["explore_ms"] / 1e3')" "$(num "$tmp/w$w.json" 's["elapsed_ms"] / 1e3')" \
    "$(num "$tmp/w$w.json" 's["branches"]["executed"]')" "$(num "$tmp/w$w.json" 's["actions_executed"]')" "$(num "$tmp/w$w.json" 's["warm_branches"]')" \
    "$(echo "$((c1 - c0))" | awk '{print $1/100}')" "$(num "$tmp/w$w.json" "$((c1 - c0))/100/(s['elapsed_ms'] / 1e3)")" "$cores"
done
python3 - "$tmp" "$cores" <<'PY'
import json, sys
d = sys.argv[1]
e = {w: json.load(open(f"{d}/w{w}.json"))["summary"]["explore_ms"] for w in (1, 2, 4)}
print("speedup to the boundary: 2 workers %.2fx, 4 workers %.2fx (target 4 workers >= 2.5x)" % (e[1] / e[2], e[1] / e[4]))
cpu = int(open(f"{d}/w1.cpu").read()) / 100
el = json.load(open(f"{d}/w1.json"))["summary"]["elapsed_ms"] / 1e3
cores = int(sys.argv[2])
print("ceiling on this machine: one worker keeps %.1f of %d cores busy, so no worker count can beat %.2fx;"
      % (cpu / el, cores, cores / (cpu / el)))
if cores / (cpu / el) < 2.5:
    print("here the speedup is bounded by Chromium's CPU, not by the site latency the target assumes")
PY
echo
echo "CPU per branch step, the run's whole process tree (orchestrator with the in-process demo site, the"
echo "Playwright driver, Chromium's processes, read from /proc before the browser closes), 4 workers:"
echo "screenshots where someone looks against all; RUSAGE_CHILDREN, for comparison, misses the Chromium"
echo "processes nobody in the tree reaps:"
python3 - "$tmp" <<'PY'
import json, resource, subprocess, sys
d = sys.argv[1]
def run(name, *extra):
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(["bin/orchestrator", "demo", "--workers", "4", "--data-dir", f"{d}/cpu-{name}", "--json", "--quiet", *extra],
                         capture_output=True, text=True, check=True).stdout
    a = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (a.ru_utime - b.ru_utime) + (a.ru_stime - b.ru_stime), json.loads(out)["summary"]
res = {name: run(name, *extra) for name, extra in (("looked", ()), ("all", ("--screenshots", "all")))}
per = {}
for name, (reaped, s) in res.items():
    n = s["branches"]["executed"]
    own, drv, brw = s["cpu_ms"], s.get("driver_cpu_ms", 0), s.get("browser_cpu_ms", 0)
    tree = own + drv + brw
    per[name] = tree / n
    print("  screenshots %-6s %5.1f CPU-s for %d branches: %4.0f ms per branch step (orchestrator and site %3.0f, driver %3.0f, Chromium %3.0f); RUSAGE_CHILDREN %4.0f ms"
          % (name, tree / 1e3, n, tree / n, own / n, drv / n, brw / n, 1000 * reaped / n))
    by = s.get("browser_cpu_ms_by_type") or {}
    print("    Chromium per branch step by process: " + ", ".join("%s %.0f ms" % (t, ms / n) for t, ms in sorted(by.items(), key=lambda x: -x[1])))
print("  looked / all: %.2f (target: 120 ms per branch step)" % (per["looked"] / per["all"]))
PY
echo "browser work per operation (demo site, no latency; machine CPU, so run on a quiet machine):"
go test -run '^$' -bench 'BenchmarkSession' -benchtime 10x ./browser/ | grep -E '^Benchmark'
echo "headless shell against the full browser, one branch's work (context + navigation + observation):"
go test -run '^$' -bench 'BenchmarkBuild' -benchtime 10x ./browser/ | grep -E '^Benchmark' | tee "$tmp/build.txt"
python3 - "$tmp/build.txt" <<'PY'
import re, sys
cpu = {}
for line in open(sys.argv[1]):
    m = re.match(r"BenchmarkBuild/(\S+?)-\d+\s+\d+\s+(\d+) ns/op\s+([\d.]+) cpu-ms/op", line)
    if m:
        cpu[m.group(1)] = (int(m.group(2)) / 1e6, float(m.group(3)))
if "headless-shell" in cpu and "full" in cpu:
    (ws, cs), (wf, cf) = cpu["headless-shell"], cpu["full"]
    print("headless shell / full browser: wall clock %.2f, CPU %.2f" % (ws / wf, cs / cf))
PY

echo
echo "== 4. Capture and replay"
python3 - "$tmp" <<'PY'
import json, sys
for w in (1, 4):
    s = json.load(open(sys.argv[1] + "/w%d.json" % w))["summary"]["timing"]
    print("capture per branch step, %d worker(s): context %.0f ms, action %.0f ms, observe (capture + hashes + screenshot) %.0f ms (target < 200 ms)"
          % (w, s["context_ms"], s["action_ms"], s["observe_ms"]))
PY
bundle=$(num "$tmp/w4.json" 's["paths"]["bundle"]')
start=$(date +%s.%N)
bin/orchestrator replay "$bundle" --json > "$tmp/replay.json"
python3 - "$tmp" "$bundle" <<'PY'
import json, os, sys
d, b = sys.argv[1], sys.argv[2]
r = json.load(open(d + "/replay.json"))
s = json.load(open(d + "/w4.json"))["summary"]
print("winner's commit bundle: %d bytes, %d steps; strict replay RSR %.2f in %.2fs" % (os.path.getsize(b), len(r["steps"]), r["rsr"], r["duration_ms"] / 1e3))
print("replay wall clock / capture wall clock (run to the commit): %.2f (target <= 0.3)" % (r["duration_ms"] / s["elapsed_ms"]))
PY

echo
echo "== 4b. Playback: the winner's flow played alone against the live demo site (100 ms latency)"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
bin/orchestrator site --addr "127.0.0.1:$port" > "$tmp/site.log" 2>&1 &
pids+=($!)
# http PUT|GET URL [BODY]: a request through python3, which the report needs anyway
http() { python3 -c 'import sys, urllib.request as u; r = u.Request(sys.argv[2], method=sys.argv[1], data=sys.argv[3].encode() if len(sys.argv) > 3 else None, headers={"Content-Type": "application/json"}); u.urlopen(r, timeout=5).read()' "$@"; }
for _ in $(seq 50); do http GET "http://127.0.0.1:$port/" 2> /dev/null && break; sleep 0.1; done
bin/orchestrator flow export "$bundle" -o "$tmp/winner.flow.yaml" > /dev/null
sets=$(python3 - "$tmp/winner.flow.yaml" <<'PY'
import re, sys
# the demo task's inputs, supplied for the actions that typed them
vals = {"seats": "10", "email": "procurement@example.com", "country": "DE", "billing": "monthly"}
for name in sorted(set(re.findall(r"input: (\w+)", open(sys.argv[1]).read()))):
    print("--set %s=%s" % (name, vals.get(name, "")))
PY
)
# shellcheck disable=SC2086
bin/orchestrator play "$tmp/winner.flow.yaml" --start-url "http://127.0.0.1:$port/" --data-dir "$tmp/play" --json $sets > "$tmp/play.json"
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
p = json.load(open(d + "/play.json"))
print("winner's flow played alone: %d of %d actions ok, %.2fs" % (p["actions_executed"], p["actions_total"], p["duration_ms"] / 1e3))
for w in (1, 4):
    e = json.load(open(d + "/w%d.json" % w))["summary"]["explore_ms"] / 1e3
    print("search to the boundary with %d worker(s) / the plan played alone: %.1fx" % (w, e / (p["duration_ms"] / 1e3)))
PY

echo
echo "== 4c. Plan cache: time to the boundary of the demo task, first run against cached runs (4 workers, same site)"
cache_run() { bin/orchestrator run examples/procure-team-plan.yaml --start-url "http://127.0.0.1:$port/" --workers 4 \
  --data-dir "$tmp/cache" --json --quiet "$@" > "$tmp/$name.json" || true; }
name=c1 cache_run
name=c2 cache_run
http PUT "http://127.0.0.1:$port/__admin/knobs" '{"latency":"100ms","testid_drift":true}'
name=c3 cache_run
http PUT "http://127.0.0.1:$port/__admin/knobs" '{"latency":"100ms"}'
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
s = {n: json.load(open(f"{d}/{n}.json"))["summary"] for n in ("c1", "c2", "c3")}
play = json.load(open(d + "/play.json"))["duration_ms"] / 1e3
def line(label, x):
    c = x.get("plan_cache") or {}
    print("%-34s to the boundary %5.2fs, %2d branches in %2d waves; cache: followed %s of %s%s"
          % (label, x["explore_ms"] / 1e3, x["branches"]["executed"], x["waves"], c.get("followed", 0), c.get("steps", 0),
             ", diverged at step %d" % c["diverged_at"] if c.get("diverged_at") else ""))
line("first run (no cached plan)", s["c1"])
line("cached run", s["c2"])
line("cached run, test ids drifted", s["c3"])
print("cached run / the plan played alone: %.2fx (target <= 1.5x)" % (s["c2"]["explore_ms"] / 1e3 / play))
print("drifted cached run / first run: %.2fx (target well under 1)" % (s["c3"]["explore_ms"] / s["c1"]["explore_ms"]))
print("orders placed over the three runs: %s" % sorted({(x.get("commit") or {}).get("order_id") for x in s.values()}))
PY

echo
echo "== 4d. Rerun: the first run of 4c re-run in full against its recorded world (the site untouched), 4 workers"
run1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["run_id"])' "$tmp/c1.json")
t0=$(date +%s.%N)
bin/orchestrator rerun "$run1" --data-dir "$tmp/cache" --out "$tmp/rerun1" --workers 4 --json > "$tmp/rerun.json" || true
t1=$(date +%s.%N)
python3 - "$tmp" "$t0" "$t1" <<'PY'
import json, sys
d, t0, t1 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
r = json.load(open(d + "/rerun.json"))
c = r["compared"]
s = json.load(open(d + "/c1.json"))["summary"]
run = s["elapsed_ms"] / 1e3
print("full rerun: %d of %d decisions the same, in order: %s; winner the same: %s; misses %d; outcome %s"
      % (c["rerun"], c["original"], c["same"], c["winner_original"] == c["winner_rerun"], len(r.get("misses") or []), r["status"]))
print("rerun wall clock %.2fs / the recorded run's %.2fs: %.2fx (target <= 1.3x); warm branches: rerun %d of %d, run %d of %d"
      % (t1 - t0, run, (t1 - t0) / run, r.get("warm_branches", 0), r.get("branches", 0), s["warm_branches"], s["branches"]["executed"]))
PY

echo
echo "== 4e. Model planner: the demo task asking a scripted chat-completions endpoint that answers after 300 ms"
mport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 - "$mport" > "$tmp/model.log" 2>&1 <<'PY' &
# A deterministic model: ranks the menu by the goal's words, best three.
import http.server, json, re, sys, time
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        req = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        user = req["messages"][1]["content"]
        goal = set(w.strip(".,").lower() for w in re.search(r"^Goal: (.*)$", user, re.M).group(1).split())
        menu = re.findall(r"^\[(\d+)\] (.*)$", user.split("\nEmpty fields")[0], re.M)
        ranked = sorted(menu, key=lambda m: -sum(w.strip('".,').lower() in goal for w in m[1].split()))
        content = json.dumps({"ranking": [int(m[0]) for m in ranked[:3]], "values": []})
        time.sleep(0.3)
        body = json.dumps({"model": req["model"], "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                           "usage": {"prompt_tokens": len(user) // 4, "completion_tokens": 12}}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(body)))
        self.end_headers(); self.wfile.write(body)
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
pids+=($!)
{ cat examples/procure-team-plan.yaml; printf '\nplanner:\n  proposer: llm\n  model: scripted\n  base_url: http://127.0.0.1:%s/v1\n' "$mport"; } > "$tmp/model-task.yaml"
sleep 1
bin/orchestrator run "$tmp/model-task.yaml" --start-url "http://127.0.0.1:$port/" --workers 4 --data-dir "$tmp/model" --no-cache \
  --json --quiet > "$tmp/model.json" || true
mrun=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["run_id"])' "$tmp/model.json")
bin/orchestrator events "$mrun" --data-dir "$tmp/model" --json > "$tmp/model-events.jsonl"
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
m = json.load(open(d + "/model.json"))["summary"]
h = json.load(open(d + "/c1.json"))["summary"]
asked = sum(1 for l in open(d + "/model-events.jsonl") if json.loads(l)["kind"] == "llm_request")
extra = (m["explore_ms"] - h["explore_ms"]) / 1e3
print("model planner: to the boundary %.2fs, %d branches in %d waves, %d questions; heuristic first run (4c) %.2fs"
      % (m["explore_ms"] / 1e3, m["branches"]["executed"], m["waves"], asked, h["explore_ms"] / 1e3))
print("the model's 300 ms answers added %.2fs; asked one by one they would add %.2fs (%.2fx of that)" % (extra, asked * 0.3, extra / (asked * 0.3)))
PY

echo
echo "== 4f. Warm engine: the demo task (no cached plan) run cold against submitted to a warm engine (4 workers, 4b's site)"
eport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
bin/orchestrator engine --addr "127.0.0.1:$eport" --data-dir "$tmp/engine" > "$tmp/engine.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do http GET "http://127.0.0.1:$eport/api/engine/health" 2> /dev/null && break; sleep 0.1; done
warm_run() { # name, then run's flags: the command's whole wall clock, its summary
  local name=$1; shift
  local t0 t1; t0=$(date +%s.%N)
  bin/orchestrator run examples/procure-team-plan.yaml --start-url "http://127.0.0.1:$port/" --workers 4 --no-cache --json --quiet "$@" \
    > "$tmp/$name.json" 2> "$tmp/$name.err" || true
  t1=$(date +%s.%N)
  echo "$t0 $t1" > "$tmp/$name.wall"
}
warm_run cold --data-dir "$tmp/coldrun"
warm_run engine1 --engine "127.0.0.1:$eport"
warm_run engine2 --engine "127.0.0.1:$eport"
python3 - "$tmp" <<'PY'
import json, re, sys
d = sys.argv[1]
def load(n):
    t0, t1 = map(float, open(f"{d}/{n}.wall").read().split())
    return t1 - t0, json.load(open(f"{d}/{n}.json"))["summary"]
cold, cs = load("cold")
print("cold run: %.2fs for the command, %.2fs in the run, %d branches" % (cold, cs["elapsed_ms"] / 1e3, cs["branches"]["executed"]))
for n in ("engine1", "engine2"):
    w, s = load(n)
    rid = s["run_id"]
    rep = json.load(open(f"{d}/engine/engine/{rid}.json"))
    print("on the engine (%s): %.2fs for the command, %.2fs in the run, %d branches; its first action started %d ms after the run started"
          % (n, w, s["elapsed_ms"] / 1e3, s["branches"]["executed"], rep.get("first_action_ms", 0)))
    print("  engine / cold, the command's wall clock: %.2f" % (w / cold))
PY
echo
echo "== 5. Distributed: worker processes on the demo site (100 ms latency)"
# every port is a free one the kernel picks: a fixed one may be a user's own site
sport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
bin/orchestrator site --addr "127.0.0.1:$sport" > "$tmp/site5.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do http GET "http://127.0.0.1:$sport/" 2> /dev/null && break; sleep 0.1; done
for n in 1 2 4; do
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  bin/orchestrator run examples/procure-team-plan.yaml --start-url "http://127.0.0.1:$sport/" --workers 0 \
    --nats-listen 127.0.0.1:$port --data-dir "$tmp/d$n" --json --quiet > "$tmp/d$n.json" &
  orch=$!
  wp=()
  for i in $(seq "$n"); do
    bin/worker --nats nats://127.0.0.1:$port --slots 1 --name "w$i" > "$tmp/w$n-$i.log" 2>&1 &
    wp+=($!)
  done
  wait "$orch" || true
  for p in "${wp[@]}"; do kill "$p" 2>/dev/null || true; done
  python3 - "$tmp/d$n.json" "$n" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
b = s["branches"]["executed"]
print("worker processes=%s  branches %d in %.2fs: %.2f branches/s; warm %d (routed %d, rerouted %d); orchestrator CPU %.2fs per 1,000 branches"
      % (sys.argv[2], b, s["explore_ms"] / 1e3, b / (s["explore_ms"] / 1e3), s["warm_branches"], s["routed_jobs"], s["rerouted_jobs"],
         s["cpu_ms"] / 1e3 / b * 1000))
PY
done

echo
echo "== 6. Gym: small task pages as tasks without commit (goal text, the page's verdict as success and failure),"
echo "==    default search vs a sequential greedy agent (one branch, one worker) on the same episodes;"
echo "==    tuning and evaluation families apart (the planner is never changed to pass evaluation families)"
echo "==    (first: a person's solution of every pattern family, explicit actions in Chromium, sees each page's success verdict)"
GYM_SEEDS=3 go test -count=1 -run '^TestPatternsAreFair$' ./sites/gym/ >/dev/null && echo "pattern families: fair on 3 seeds" || { echo "pattern families: a solution failed (go test -run TestPatternsAreFair -v ./sites/gym/)"; }
go run ./tools/gymbench -seeds "${GYM_SEEDS:-10}"
echo "== 6b. Gym on a warm engine's parts: the same episodes (3 seeds) with one NATS server and one Chromium kept"
echo "==     for all, so the time is the episodes' own: search against the greedy agent on those solved in 1-3 actions"
go run ./tools/gymbench -seeds 3 -warm | tail -2
