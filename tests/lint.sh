#!/usr/bin/env bash
# Hygiene checks of the whole tree; tests/run calls it, and it runs alone too:
#
#   PY=/path/to/venv/bin/python bash tests/lint.sh
#
# PY (or PYTHON, which tests/run sets) is the Python of the test venv, with ruff and
# mypy (tests/requirements.txt); its headers build the packages' Python bindings
# (the files behind golibrary.GO_BUILD_TAG) for go vet and staticcheck. Default: python3.
#
#   gofmt -l          no Go file may need formatting
#   go vet            every package twice: as a fresh clone builds it (no tag, no
#                     Python), and with the tag, as an extension in Go and build.py's
#                     godlpack._godlpack build it (the Python bindings included); and
#                     internal/forksafe with the fork repair's tag too
#   staticcheck       pinned (STATICCHECK_VERSION below), installed once from the Go
#                     module proxy into a cache outside the checkout, then reused;
#                     with the tag, and without it (U1000 aside)
#   ruff check        and ruff format --check
#   mypy --strict     examples/, against godlpack's stubs (pyext/godlpack/*.pyi)
#
# Every check runs even when an earlier one fails; the exit status is 1 if any failed,
# and the failures are listed at the end. Needs no built extension.
set -uo pipefail
cd "$(dirname "$0")/.."

PY=${PY:-${PYTHON:-python3}}
# 2026.2.2: its go.mod says go 1.26.0, so it knows the language and library this
# module is written against (go.mod: go 1.26). The proxy serves only the v0.x.y tag.
STATICCHECK_VERSION=v0.8.2

failed=()
step() { echo "== $1"; }
fail() { echo "FAILED: $1" >&2; failed+=("$1"); }

pyinc=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])') || {
  echo "lint.sh: cannot run PY=$PY" >&2
  exit 2
}
export CGO_CFLAGS="-I$pyinc ${CGO_CFLAGS:-}"
# The build tag of the bindings' files, from the backend (pyext/godlpack_build/golibrary.py),
# which sets it for every build (an extension and the godlpack module alike).
tag=$("$PY" -c 'import sys; sys.path.insert(0, "pyext"); from godlpack_build import golibrary as g; print(g.GO_BUILD_TAG)') || {
  echo "lint.sh: cannot read GO_BUILD_TAG from godlpack_build.golibrary" >&2
  exit 2
}

# Go files: tracked and new (not ignored) ones, or every one outside a git checkout.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t go_files < <(git ls-files --cached --others --exclude-standard -- '*.go' |
    while read -r f; do [ -f "$f" ] && echo "$f"; done)
else
  mapfile -t go_files < <(find . -name '*.go' -not -path './.git/*' -not -path './build/*')
fi

step "gofmt -l (${#go_files[@]} files)"
unformatted=$(gofmt -l "${go_files[@]}")
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"
  echo "$unformatted"
  fail "gofmt"
fi

step "go vet ./... (untagged), go vet -tags $tag ./..."
go vet ./... || fail "go vet"
go vet -tags "$tag" ./... || fail "go vet -tags $tag"
GOEXPERIMENT=simd go vet ./dlpack/vec/ || fail "go vet (GOEXPERIMENT=simd) dlpack/vec"
# The tag the backend adds with the runtime's fork repair (runtime_patches.RUNTIME_FORK_TAG):
# internal/forksafe/runtime_repair.go.
go vet -tags "$tag,godlpack_runtime_fork" ./internal/forksafe/ ||
  fail "go vet -tags godlpack_runtime_fork"

step "staticcheck $STATICCHECK_VERSION"
goversion=$(go env GOVERSION)
tools=${GODLPACK_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/godlpack/tools}
sc_dir=$tools/staticcheck-$STATICCHECK_VERSION-$goversion
staticcheck=$sc_dir/staticcheck
if [ ! -x "$staticcheck" ]; then
  echo "installing honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION into $sc_dir"
  mkdir -p "$sc_dir"
  GOBIN=$sc_dir GOFLAGS=-mod=mod go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION" ||
    fail "staticcheck install"
fi
if [ -x "$staticcheck" ]; then
  "$staticcheck" -version
  "$staticcheck" -tags "$tag" ./... || fail "staticcheck -tags $tag"
  # Without the tag too, as go doc and an extension's go test build the package; U1000
  # aside: what the untagged API files declare for the CPython glue is used only with it.
  "$staticcheck" -checks inherit,-U1000 ./... || fail "staticcheck (untagged)"
  GOEXPERIMENT=simd "$staticcheck" ./dlpack/vec/ || fail "staticcheck (GOEXPERIMENT=simd)"
  "$staticcheck" -tags "$tag,godlpack_runtime_fork" ./internal/forksafe/ ||
    fail "staticcheck (fork repair)"
fi

step "ruff check, ruff format --check"
"$PY" -m ruff check --quiet . || fail "ruff check"
"$PY" -m ruff format --check --quiet . || fail "ruff format"

step "mypy --strict examples/"
MYPYPATH=$PWD/pyext "$PY" -m mypy --strict --cache-dir .mypy_cache examples || fail "mypy"

if [ ${#failed[@]} -gt 0 ]; then
  echo "== lint.sh: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "== lint.sh: all checks passed"
