#!/usr/bin/env bash
# Go calling Python (package pyembed, Object): godlpack's calls against a twin that
# calls CPython's C API itself through cgo (bench/embed/direct.go), in one process and
# in turns, with each ratio printed beside its goal (bench/embed/main.go says the rows).
# Needs godlpack importable by PYTHON (its Python package; the Go side is compiled into
# the program) and NumPy.
#
#   PYTHON=/path/to/venv/bin/python bash bench/bench_embed.sh
#   ROUNDS=9 CALLS=400000 TRIPS=40000 bash bench/bench_embed.sh     steadier on a loaded machine
#   ARGS="-only CallInt -cpuprofile /tmp/embed.prof" bash bench/bench_embed.sh   one row, profiled
#
# Goals: an int call <= 2x the twin; 8 goroutines' calls per second over one's >= 0.9x
# the twin's own ratio; a 1M float32 round trip Go -> NumPy -> Go <= 2x the twin.
# The go test benchmarks of pyembed/bench_test.go (a tensor in and out) run with
# `go test -run '^$' -bench . ./pyembed/` after the same eval.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-python3}
export PYTHONPATH="$PWD/pyext${PYTHONPATH:+:$PYTHONPATH}"
eval "$("$py" -m godlpack go-env --embed)"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/embed" ./bench/embed
# shellcheck disable=SC2086 # ARGS is a list of flags
"$bin/embed" -rounds "${ROUNDS:-5}" -calls "${CALLS:-200000}" -trips "${TRIPS:-20000}" ${ARGS:-}
