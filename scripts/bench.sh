#!/usr/bin/env bash
# The benchmark report: Go benchmarks (orchestrator overhead per step,
# bus round trip, event log, artifacts, ledger) and the demo's wall clock
# with 1 and with 4 workers, measured in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/orchestrator ./cmd/orchestrator

echo "== Go benchmarks"
go test -run '^$' -bench 'BenchmarkOrchestratorStep' -benchtime 5x ./orchestrator/
go test -run '^$' -bench 'BenchmarkJobRoundTrip' -benchtime 500x ./bus/
go test -run '^$' -bench '.' -benchtime 200x ./eventlog/ ./artifacts/ ./commit/ledger/

echo
echo "== Demo wall clock (embedded demo site, 100 ms latency, real Chromium)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A wall
for w in 1 4; do
  out=$(bin/orchestrator demo --workers "$w" --data-dir "$tmp/w$w" --json --quiet)
  secs=$(printf '%s' "$out" | python3 -c 'import json,sys; s=json.load(sys.stdin)["summary"]; print("%.2f %.2f %d" % (s["elapsed_ns"]/1e9, s["explore_ns"]/1e9, s["branches"]["executed"]))')
  read -r total explore branches <<<"$secs"
  wall[$w]=$explore
  printf 'workers=%d  total %6.2fs  to the commit boundary %6.2fs  branches %d\n' "$w" "$total" "$explore" "$branches"
done
python3 -c "print('speedup to the boundary, 4 workers vs 1: %.2fx' % (${wall[1]}/${wall[4]}))"
