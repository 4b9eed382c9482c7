#!/usr/bin/env bash
# A free-threaded CPython (3.13t: `--disable-gil`) for the test suite, built from the CPython
# source that Debian trixie's python3.13 source package carries:
#
#   bash tests/freethreaded_python.sh DEST
#
# leaves DEST/3.13t/bin/python3.13t, a free-threaded interpreter with its headers and a
# shared libpython3.13t.so (the embedding tests link it), and DEST/3.13t/.complete naming
# the source it was built from. tests/run calls it when it finds no python3.13t elsewhere.
# No free-threaded binary package and no newer CPython source is reachable from here, so the
# interpreter is built, once, and cached: the build takes ~15 minutes on 2 cores.
#
#   1. apt runs on a private configuration and state under DEST/apt-src whose only source is
#      a deb-src entry for trixie (tests/private_apt.sh): nothing of the system's apt is touched;
#   2. `apt-get source --download-only` fetches the .dsc and its tarballs (apt checks them
#      against the signed Sources index); only the upstream tarball (*.orig.tar.xz, CPython
#      as released) is unpacked: Debian's patches adapt the layout to /usr, which a private
#      prefix does not want;
#   3. ./configure --disable-gil --enable-shared --prefix=DEST/3.13t with an RPATH on its
#      lib/ (the interpreter finds its libpython wherever DEST is), `nice make -j2`, install.
# The root's name is keyed by nothing but the version: a different source version (trixie's
# package updated) replaces it, as .complete records which one it was built from.
set -euo pipefail

suite=trixie
srcpkg=python3.13
if [ $# -ne 1 ]; then
  echo "usage: $0 DEST" >&2
  exit 2
fi
dest=$(mkdir -p "$1" && cd "$1" && pwd)
root=$dest/3.13t
jobs=${GODLPACK_BUILD_JOBS:-2}

for tool in apt-get make sha256sum tar; do
  command -v "$tool" >/dev/null || {
    echo "FAIL: $0 needs $tool" >&2
    exit 1
  }
done
cc=${CC:-gcc}
command -v "$cc" >/dev/null || {
  echo "FAIL: $0 needs a C compiler ($cc)" >&2
  exit 1
}

# The source version decides whether the cached root is still the one wanted: ask the index
# (a small download) before deciding, unless the cache is fresh enough to skip even that.
if [ -f "$root/.complete" ] && [ -z "${GODLPACK_FT_REFRESH:-}" ]; then
  exit 0
fi
. "$(dirname "$0")/private_apt.sh"
private_apt "$dest/apt-src" deb-src "$suite" freethreaded_python || exit 1
work=$dest/src-3.13t
rm -rf "$work"
mkdir -p "$work"
(cd "$work" && "${apt[@]}" source --download-only "$srcpkg/$suite" >download.log 2>&1) || {
  cat "$work/download.log"
  echo "FAIL: apt-get source --download-only $srcpkg/$suite" >&2
  exit 1
}
dsc=$(ls "$work"/*.dsc)
version=$(sed -n 's/^Version: //p' "$dsc")
if [ -f "$root/.complete" ] && grep -qx "source: $srcpkg $version" "$root/.complete"; then
  echo "freethreaded_python: $root is already built from $srcpkg $version"
  rm -rf "$work"
  exit 0
fi
orig=$(ls "$work"/*.orig.tar.* | grep -v '\.asc$' | head -n1)
tar -C "$work" -xf "$orig"
srcdir=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'Python-*' | head -n1)
[ -n "$srcdir" ] || {
  echo "FAIL: $orig unpacked no Python-*/ folder" >&2
  exit 1
}

echo "freethreaded_python: building $(basename "$srcdir") --disable-gil into $root (make -j$jobs; ~15 min)"
rm -rf "$root"
(
  cd "$srcdir"
  ./configure --disable-gil --enable-shared --prefix="$root" \
    LDFLAGS="-Wl,-rpath,$root/lib" >"$work/configure.log" 2>&1 || {
    tail -n 40 "$work/configure.log"
    exit 1
  }
  nice -n 10 make -j"$jobs" >"$work/make.log" 2>&1 || {
    tail -n 60 "$work/make.log"
    exit 1
  }
  make install >"$work/install.log" 2>&1 || {
    tail -n 40 "$work/install.log"
    exit 1
  }
) || {
  echo "FAIL: building the free-threaded CPython (logs in $work)" >&2
  exit 1
}

# It must run, free-threaded, with what the test venvs and builds need, before it counts.
"$root/bin/python3.13t" -c '
import ctypes, hashlib, lzma, bz2, sqlite3, ssl, sys, sysconfig, venv, zlib, os
assert sysconfig.get_config_var("Py_GIL_DISABLED") == 1, "not a free-threaded build"
assert not sys._is_gil_enabled(), "the GIL is enabled at start"
inc = sysconfig.get_paths()["include"]
assert os.path.isfile(os.path.join(inc, "Python.h")), inc
assert os.path.isfile(os.path.join(sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("LDLIBRARY")))
'
{
  echo "source: $srcpkg $version"
  echo "tarball: $(basename "$orig") $(sha256sum "$orig" | cut -d' ' -f1)"
  echo "configure: --disable-gil --enable-shared"
} >"$root/.complete"
rm -rf "$work"
echo "freethreaded_python: CPython 3.13t ready: $root/bin/python3.13t ($("$root/bin/python3.13t" -VV | head -n1))"
