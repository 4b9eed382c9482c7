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
#   go.work           lists every module of the tree (every go.mod), and in each nested
#                     one (examples, test extensions) plain `go vet ./...` and
#                     `go build ./...` work: no flags, no tags, no cgo settings
#   go generate       in a copy of the tree without its generated files (*_gen*.go, the
#                     testdata goldens), `go generate ./...` writes each of them back as
#                     it is here, and nothing else; a Go file marked generated
#                     ("// Code generated ... DO NOT EDIT.") is named *_gen*.go. The
#                     goldens' generators need PY's NumPy and ml_dtypes (the pinned ones)
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
step() { echo "== [$((SECONDS))s] $1"; }
fail() { echo "FAILED: $1" >&2; failed+=("$1"); }

pyinc=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])') || {
  echo "lint.sh: cannot run PY=$PY" >&2
  exit 2
}
# Python's headers for the tagged runs only: the untagged ones build as a fresh clone does,
# with tests/run's go test's very settings, so they reuse its cgo output (the root
# package's cgo pass is most of a vet's time)
pyflags="-I$pyinc ${CGO_CFLAGS:-}"
# The build tag of the bindings' files, from the backend (pyext/godlpack_build/golibrary.py),
# which sets it for every build (an extension and the godlpack module alike).
tag=$("$PY" -c 'import sys; sys.path.insert(0, "pyext"); from godlpack_build import golibrary as g; print(g.GO_BUILD_TAG)') || {
  echo "lint.sh: cannot read GO_BUILD_TAG from godlpack_build.golibrary" >&2
  exit 2
}

# The tree's files: tracked and new (not ignored) ones, or every one outside a git checkout.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t tree_files < <(git ls-files --cached --others --exclude-standard |
    while read -r f; do [ -f "$f" ] && echo "$f"; done)
else
  mapfile -t tree_files < <(find . -type f -not -path './.git/*' -not -path './build/*' |
    sed 's|^\./||')
fi
mapfile -t go_files < <(printf '%s\n' "${tree_files[@]}" | grep '\.go$')

step "gofmt -l (${#go_files[@]} files)"
unformatted=$(gofmt -l "${go_files[@]}")
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"
  echo "$unformatted"
  fail "gofmt"
fi

step "go vet ./... (untagged), go vet -tags $tag ./..."
go vet ./... || fail "go vet"
CGO_CFLAGS=$pyflags go vet -tags "$tag" ./... || fail "go vet -tags $tag"
GOEXPERIMENT=simd go vet ./dlpack/vec/ || fail "go vet (GOEXPERIMENT=simd) dlpack/vec"
# The tag the backend adds with the runtime's fork repair (runtime_patches.RUNTIME_FORK_TAG):
# internal/forksafe/runtime_repair.go.
CGO_CFLAGS=$pyflags go vet -tags "$tag,godlpack_runtime_fork" ./internal/forksafe/ ||
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
  CGO_CFLAGS=$pyflags "$staticcheck" -tags "$tag" ./... || fail "staticcheck -tags $tag"
  # Without the tag too, as go doc and an extension's go test build the package; U1000
  # aside: what the untagged API files declare for the CPython glue is used only with it.
  "$staticcheck" -checks inherit,-U1000 ./... || fail "staticcheck (untagged)"
  GOEXPERIMENT=simd "$staticcheck" ./dlpack/vec/ || fail "staticcheck (GOEXPERIMENT=simd)"
  CGO_CFLAGS=$pyflags "$staticcheck" -tags "$tag,godlpack_runtime_fork" ./internal/forksafe/ ||
    fail "staticcheck (fork repair)"
fi

step "ruff check, ruff format --check"
"$PY" -m ruff check --quiet . || fail "ruff check"
"$PY" -m ruff format --check --quiet . || fail "ruff format"

step "mypy --strict examples/"
MYPYPATH=$PWD/pyext "$PY" -m mypy --strict --cache-dir .mypy_cache examples || fail "mypy"

step "go.work: every go.mod of the tree in it; go vet and go build in each nested module, plain"
root=$PWD
mapfile -t modules < <(printf '%s\n' "${tree_files[@]}" | grep -E '(^|/)go\.mod$' |
  sed -E 's|/?go\.mod$||; s|^$|.|' | sort)
mapfile -t in_work < <(go list -m -f '{{.Dir}}' | sed "s|^$root\$|.|; s|^$root/||" | sort)
if [ "${modules[*]}" != "${in_work[*]}" ]; then
  echo "go.work's modules: ${in_work[*]}"
  echo "the tree's go.mod folders: ${modules[*]}"
  fail "go.work (add the missing folder: go work use DIR)"
fi
for dir in "${modules[@]}"; do
  [ "$dir" = . ] && continue
  # as a user's shell runs go there: no GOFLAGS, tags, experiments or cgo settings
  if ! (cd "$dir" && env -u GOFLAGS -u GOWORK -u GOEXPERIMENT -u CGO_CFLAGS -u CGO_LDFLAGS \
    sh -c 'go vet ./... && go build -o /dev/null ./...'); then
    fail "plain go vet/build in $dir"
  fi
done

step "go generate ./...: regenerates every generated file as it is here, and nothing else"
gen=$(mktemp -d "${TMPDIR:-/tmp}/godlpack-generate.XXXXXX")
mkdir "$gen/here" "$gen/regen"
printf '%s\0' "${tree_files[@]}" | xargs -0 cp --parents -t "$gen/here"
cp -a "$gen/here/." "$gen/regen"
(cd "$gen/regen" && find . -type f \( -name '*_gen*.go' -o -path '*/testdata/*_golden.*' \) -delete)
# the goldens' generators run with PY's NumPy and ml_dtypes, the pinned ones (tools/_golden.py)
if (cd "$gen/regen" && PATH="$(dirname "$PY"):$PATH" go generate ./...) >"$gen/log" 2>&1; then
  if ! (cd "$gen" && diff -rq here regen); then
    fail "go generate (run it, with the test venv's python3 first on PATH, and commit the result)"
  fi
else
  cat "$gen/log"
  fail "go generate"
fi
rm -rf "$gen"
marked=$(awk 'FNR == 1 && /^\/\/ Code generated .* DO NOT EDIT\.$/ { print FILENAME } { nextfile }' \
  "${go_files[@]}" | grep -v '_gen[^/]*\.go$')
if [ -n "$marked" ]; then
  echo "generated Go files not named *_gen*.go (go generate's check deletes and remakes those):"
  echo "$marked"
  fail "generated file names"
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "== lint.sh: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "== lint.sh: all checks passed"
