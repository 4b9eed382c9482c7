#!/usr/bin/env bash
# Cost of a DLPack exchange through the Go API (package dlpack/tensor), against
# a C malloc+free from Go (two cgo calls) measured in the same run: the work a Go
# program that managed C memory by hand would do instead. Issue 9's goal is <= 3x.
#
#   bash bench/bench_go.sh            COUNT=5 rounds, best of each (default)
#   COUNT=2 BENCHTIME=200ms bash bench/bench_go.sh     a quick run
#
# Each round runs every case once, baseline included, so that a change in the
# machine's load between rounds moves the baseline with the cases.
#
# Rows (16x16 float32, one tensor per iteration; see dlpack/tensor/bench_test.go):
#   GoToCCMemory       New (C memory) -> Export -> a C consumer calls the deleter
#   GoToCPinnedSlice   FromSlice (pinned) -> Export -> a C consumer calls the deleter
#   CToGo              a C producer -> FromManaged (validate, wrap) -> Close
#   GoToGoCMemory      New -> Export -> FromManaged -> Close (both ends in Go)
#   GoToGoPinnedSlice  FromSlice -> Export -> FromManaged -> Close
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-5}
benchtime=${BENCHTIME:-1s}
bin=$(mktemp -d)/tensor.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" ./dlpack/tensor
out=$(for _ in $(seq "$count"); do
  (cd dlpack/tensor && "$bin" -test.run '^$' -test.bench . -test.benchtime "$benchtime" -test.benchmem)
done)
echo "$out" | grep -E '^(goos|goarch|cpu)' | sort -u || true
echo "$out" | awk '
/^Benchmark/ {
  name = $1; sub(/^Benchmark/, "", name); sub(/-[0-9]+$/, "", name)
  ns = $3 + 0
  if (!(name in best) || ns < best[name]) { best[name] = ns; allocs[name] = $7 }
  if (!(name in seen)) { seen[name] = 1; order[n++] = name }
}
END {
  base = best["MallocFree"]
  if (base == 0) { print "bench_go.sh: no MallocFree baseline" > "/dev/stderr"; exit 1 }
  printf "%-20s %10s %8s %8s\n", "case (best of runs)", "ns/op", "allocs", "ratio"
  for (i = 0; i < n; i++) {
    k = order[i]
    printf "%-20s %10.1f %8s %7.2fx\n", k, best[k], allocs[k], best[k] / base
  }
  print "ratio = ns/op / MallocFree ns/op (C malloc + free from Go), same run"
}'
