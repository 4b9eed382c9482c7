#!/usr/bin/env bash
# Cost of one Go-to-Python call with one tensor argument and one tensor result (a
# Python function returning its input), against the same call made from Python in the
# same interpreter (pyembed/bench_test.go). Needs godlpack importable by PYTHON (its
# Python package; the Go side is compiled into the benchmark).
#
#   PYTHON=/path/to/venv/bin/python bash bench/bench_embed.sh      COUNT=3 rounds
#
# Rows (ns per call, best of the rounds; wall time, so a loaded machine inflates them):
#   CallTensor             FromSlice(16x16 float32) -> Call(x) -> result.Tensor() -> Close
#   CallTensorFromPython   identity(a) in a Python loop, a a godlpack.Array of 16x16
#   CallNoArgs             Call() of a Python function returning None: GIL + crossing
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-python3}
count=${COUNT:-3}
export PYTHONPATH="$PWD/pyext${PYTHONPATH:+:$PYTHONPATH}"
eval "$("$py" -m godlpack go-env --embed)"
go test -count="$count" -run '^$' -bench . -benchtime "${BENCHTIME:-1s}" ./pyembed/ | tee /dev/stderr |
  awk '/^Benchmark/ { n = $1; sub(/^Benchmark/, "", n); sub(/-[0-9]+$/, "", n)
         if (!(n in best) || $3 < best[n]) best[n] = $3 }
       END { printf "\nbest ns/call: Go->Python %.0f, Python->Python %.1f, Go->Python no args %.0f\n",
               best["CallTensor"], best["CallTensorFromPython"], best["CallNoArgs"]
             printf "ratio (Go->Python / Python->Python, one tensor in, one out): %.0fx\n",
               best["CallTensor"] / best["CallTensorFromPython"] }'
