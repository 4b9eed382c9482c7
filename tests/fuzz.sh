#!/usr/bin/env bash
# Runs every Go fuzz target of godlpack for a bounded time, one after another, and
# fails on the first crash (go test -fuzz exits non-zero and writes the failing
# input under the package's testdata/fuzz/<Target>/, where `go test` replays it
# from then on).
#
#   FUZZTIME   how long each target runs (go test -fuzztime syntax; default 30s)
#   FUZZ_ONLY  run only the targets whose name contains this string
#   FUZZ_WORKERS  the Go targets' fuzzing processes (go test -parallel; default: one
#              per CPU). tests/run sets 1: its other lane runs a CPython's tests meanwhile
#
# The targets:
#   ./dlpack               FuzzValidate      foreign-tensor validator vs a big-int model
#   ./dlpack               FuzzLayout        shape / stride / byte-size arithmetic
#   ./dlpack               FuzzDTypeScalar   dtype Get/Set round trips, encode/decode
#   ./internal/fastcheck   FuzzFastCheckAgreesWithValidator   C fast check vs Go
#   ./dlpack/tensor        FuzzRoundTrip     Go API produce -> C consumer -> consume
# Each has a committed seed corpus in <package>/testdata/fuzz/<Target>/.
# Then, for as long, the Python-level target (PY or PYTHON: the test venv's Python;
# the extension is built in place first):
#   tests/fuzz_hostile.py  PythonHostile     constructors, indexing and assignment with
#                                            hostile __index__/__float__ and a second
#                                            thread mutating the lists being read
#   tests/fuzz_pickle.py   PythonPickle      every field of a pickle payload (and of
#                                            shared-memory handles, _wrap_buffer and
#                                            _bits_as) given hostile values
#   tests/fuzz_goext_args.py  PythonGoextArgs  the arguments of Go extensions (goext,
#                                            goext2, built first): hostile and malformed
#                                            producers, aliased views, hostile numbers
# It runs in a child process, so a crash is an exit status, reported with its seed.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-30s}
targets=(
  "./dlpack FuzzValidate"
  "./dlpack FuzzLayout"
  "./dlpack FuzzDTypeScalar"
  "./internal/fastcheck FuzzFastCheckAgreesWithValidator"
  "./dlpack/tensor FuzzRoundTrip"
)
export GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=1

# deadline_race PKG NAME CORPUS BEFORE LOG: whether a failed fuzz run was Go's
# own race at the end of -fuzztime, not a crash (golang/go#75804, fixed in Go 1.27,
# not in 1.26): the coordinator reports "context deadline exceeded" as the
# target's failure when the deadline cancels a worker mid-input, and may save
# that input as a crasher. It was, if that is the failure's only message and
# every input saved by this run (none, or the one in flight) passes when
# replayed; those are removed, and the run counts as passed.
deadline_race() {
  local pkg=$1 name=$2 corpus=$3 before=$4 log=$5 new f
  grep -q -- "^--- FAIL: $name " "$log" && grep -q '^    context deadline exceeded$' "$log" || return 1
  [ "$(grep -c '^    ' "$log")" -eq 1 ] || return 1
  new=$(comm -13 <(echo "$before") <(ls "$corpus" 2>/dev/null || true))
  for f in $new; do
    go test -count=1 -run "^${name}/${f}\$" "$pkg" >/dev/null 2>&1 || return 1
  done
  for f in $new; do rm -f "$corpus/$f"; done
  echo "note: $name: Go's end-of-fuzztime race (golang/go#75804), not a crash; inputs it" \
    "saved, replayed clean and removed: ${new:-none}" >&2
}

summary=()
for entry in "${targets[@]}"; do
  read -r pkg name <<<"$entry"
  if [ -n "${FUZZ_ONLY:-}" ] && [[ $name != *"$FUZZ_ONLY"* ]]; then
    continue
  fi
  echo "== fuzz $name ($pkg) for $fuzztime"
  log=$(mktemp)
  corpus="$pkg/testdata/fuzz/$name"
  before=$(ls "$corpus" 2>/dev/null || true)
  # -run replays the seed corpus first; -fuzz must name exactly one target.
  if ! go test -count=1 -run "^${name}\$" -fuzz "^${name}\$" -fuzztime "$fuzztime" ${FUZZ_WORKERS:+-parallel "$FUZZ_WORKERS"} "$pkg" 2>&1 | tee "$log"; then
    if ! deadline_race "$pkg" "$name" "$corpus" "$before" "$log"; then
      echo "FAIL: $name crashed; the failing input is in $corpus/" >&2
      rm -f "$log"
      exit 1
    fi
  fi
  # The last progress line: "fuzz: elapsed: 30s, execs: 1256187 (41596/sec), ..."
  last=$(grep -o 'elapsed: [0-9a-z]*, execs: [0-9]*' "$log" | tail -1 || true)
  execs=${last##*execs: }
  secs=$(grep -o 'elapsed: [0-9]*s' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
  rate=n/a
  if [ -n "$execs" ] && [ "${secs:-0}" -gt 0 ]; then
    rate=$((execs / secs))
  fi
  summary+=("$(printf '%-36s %12s execs %10s execs/s' "$name" "${execs:-?}" "$rate")")
  rm -f "$log"
done

# FUZZTIME in seconds for the Python target (go's syntax: 30s, 2m, 1h).
seconds_of() {
  case $1 in
    *h) echo $((${1%h} * 3600)) ;;
    *m) echo $((${1%m} * 60)) ;;
    *s) echo "${1%s}" ;;
    *) echo "$1" ;;
  esac
}
if [ -z "${FUZZ_ONLY:-}" ] || [[ PythonHostile == *"$FUZZ_ONLY"* ]]; then
  py=${PY:-${PYTHON:-python3}}
  echo "== fuzz PythonHostile (tests/fuzz_hostile.py) for $fuzztime"
  "$py" build.py ext --python "$py" >/dev/null
  log=$(mktemp)
  if ! PYTHONPATH=pyext "$py" tests/fuzz_hostile.py --seconds "$(seconds_of "$fuzztime")" 2>&1 | tee "$log"; then
    echo "FAIL: PythonHostile crashed (exit ${PIPESTATUS[0]}); replay: PYTHONPATH=pyext $py" \
      "tests/fuzz_hostile.py --$(grep -o 'seed=[0-9]*' "$log" | head -1) --no-thread" >&2
    rm -f "$log"
    exit 1
  fi
  summary+=("$(printf '%-36s %s' PythonHostile "$(grep -o '[0-9]* operations' "$log" | tail -1)")")
  rm -f "$log"
fi

if [ -z "${FUZZ_ONLY:-}" ] || [[ PythonPickle == *"$FUZZ_ONLY"* ]]; then
  py=${PY:-${PYTHON:-python3}}
  echo "== fuzz PythonPickle (tests/fuzz_pickle.py) for $fuzztime"
  "$py" build.py ext --python "$py" >/dev/null
  log=$(mktemp)
  if ! PYTHONPATH=pyext "$py" -W ignore tests/fuzz_pickle.py --seconds "$(seconds_of "$fuzztime")" 2>&1 | tee "$log"; then
    echo "FAIL: PythonPickle failed (exit ${PIPESTATUS[0]}); replay: PYTHONPATH=pyext $py" \
      "tests/fuzz_pickle.py --$(grep -o 'seed=[0-9]*' "$log" | head -1)" >&2
    rm -f "$log"
    exit 1
  fi
  summary+=("$(printf '%-36s %s' PythonPickle "$(grep -o '[0-9]* operations, [0-9]* loaded' "$log" | tail -1)")")
  rm -f "$log"
fi

if [ -z "${FUZZ_ONLY:-}" ] || [[ PythonGoextArgs == *"$FUZZ_ONLY"* ]]; then
  py=${PY:-${PYTHON:-python3}}
  echo "== fuzz PythonGoextArgs (tests/fuzz_goext_args.py) for $fuzztime"
  "$py" build.py ext --python "$py" >/dev/null
  folders=tests
  for ext in goext goext2; do
    folders="$folders:$(PYTHONPATH=pyext:tests "$py" tests/goext_build.py "$ext" 2>/dev/null | tail -1)"
  done
  log=$(mktemp)
  if ! PYTHONPATH="pyext:$folders" "$py" tests/fuzz_goext_args.py \
    --seconds "$(seconds_of "$fuzztime")" 2>&1 | tee "$log"; then
    echo "FAIL: PythonGoextArgs failed (exit ${PIPESTATUS[0]}); replay: PYTHONPATH=pyext:$folders" \
      "$py tests/fuzz_goext_args.py --$(grep -o 'seed=[0-9]*' "$log" | head -1)" >&2
    rm -f "$log"
    exit 1
  fi
  summary+=("$(printf '%-36s %s' PythonGoextArgs "$(grep -o '[0-9]* calls' "$log" | tail -1)")")
  rm -f "$log"
fi

echo "== fuzz summary (FUZZTIME=$fuzztime each)"
printf '%s\n' "${summary[@]}"
