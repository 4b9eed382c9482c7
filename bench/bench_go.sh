#!/usr/bin/env bash
# Cost of a DLPack exchange through the Go API (package dlpack/tensor), against
# a C malloc+free from Go (two cgo calls) measured in the same run: the work a Go
# program that managed C memory by hand would do instead. The goal is <= 3x.
#
#   bash bench/bench_go.sh            COUNT=5 rounds, best of each (default)
#   COUNT=2 BENCHTIME=200ms bash bench/bench_go.sh     a quick run
#
# Each round runs every case once, baseline included, so that a change in the
# machine's load between rounds moves the baseline with the cases. Two figures per
# case, best of the rounds:
#   ns/op    testing.B's wall-clock time per iteration;
#   cpu/op   the process's user+system CPU time per iteration over CPU_ITERS
#            iterations (less a 1-iteration run's start-up), every thread counted:
#            the collector's background work that the allocations cause included.
#            A loaded machine stretches wall time (the process waits for a core),
#            much less CPU time, so on a shared machine cpu/op is the steadier.
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
cpu_iters=${CPU_ITERS:-1000000}
bin=$(mktemp -d)/tensor.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" ./dlpack/tensor
cases=$(cd dlpack/tensor && "$bin" -test.list '^Benchmark' | sed 's/^Benchmark//')

# cpu_seconds ITERS CASE: user+system seconds of one run of CASE for ITERS iterations.
cpu_seconds() {
  local TIMEFORMAT='%U %S' t
  t=$( { time (cd dlpack/tensor && "$bin" -test.run '^$' -test.bench "^Benchmark$2\$" \
    -test.benchtime "$1x" >/dev/null); } 2>&1)
  awk '{ print $1 + $2 }' <<<"$t"
}

out=$(for _ in $(seq "$count"); do
  (cd dlpack/tensor && "$bin" -test.run '^$' -test.bench . -test.benchtime "$benchtime" -test.benchmem)
  for c in $cases; do
    echo "CPU $c $(cpu_seconds "$cpu_iters" "$c") $(cpu_seconds 1 "$c")"
  done
done)
echo "$out" | grep -E '^(goos|goarch|cpu)' | sort -u || true
echo "$out" | awk -v iters="$cpu_iters" '
/^Benchmark/ {
  name = $1; sub(/^Benchmark/, "", name); sub(/-[0-9]+$/, "", name)
  ns = $3 + 0
  if (!(name in best) || ns < best[name]) { best[name] = ns; allocs[name] = $7 }
  if (!(name in seen)) { seen[name] = 1; order[n++] = name }
}
/^CPU / {
  c = ($3 - $4) / iters * 1e9
  if (!($2 in cpu) || c < cpu[$2]) cpu[$2] = c
}
END {
  base = best["MallocFree"]; cbase = cpu["MallocFree"]
  if (base == 0 || cbase <= 0) { print "bench_go.sh: no MallocFree baseline" > "/dev/stderr"; exit 1 }
  printf "%-20s %10s %8s %8s %10s %8s\n", "case (best of runs)", "ns/op", "allocs", "ratio", "cpu/op", "ratio"
  for (i = 0; i < n; i++) {
    k = order[i]
    printf "%-20s %10.1f %8s %7.2fx %10.1f %7.2fx\n", k, best[k], allocs[k], best[k] / base, cpu[k], cpu[k] / cbase
  }
  print "ratio = the case / MallocFree (C malloc + free from Go), same run; goal <= 3x"
}'
