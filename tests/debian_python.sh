#!/usr/bin/env bash
# CPython X.Y for the test suite, from Debian's "forky" binary packages, on a machine whose
# own release has no such Python (Debian 12 has 3.11; pyenv here stops at 3.13):
#
#   bash tests/debian_python.sh DEST X.Y [X.Y...]
#
# leaves DEST/X.Y/usr/bin/pythonX.Y, a working interpreter with its headers, ssl, sqlite3,
# ctypes and venv (ensurepip included), and DEST/X.Y/.complete naming the packages it was
# made from. tests/run calls it for a version it finds neither in pyenv nor on PATH.
#
# forky's packages need forky's glibc, newer than the system's, so nothing is installed:
#   1. apt runs on a private configuration and state under DEST/apt whose only source is
#      forky (tests/private_apt.sh): nothing of the system's apt is touched;
#   2. `apt-get download` of the interpreter's packages and of every library they load;
#   3. `dpkg -x` of each into DEST/X.Y (a private root: usr/lib/<multiarch> holds forky's
#      ld.so and libc beside libpython's dependencies);
#   4. patchelf (forky's, run through that ld.so) points the interpreter's ELF at the
#      private ld.so and gives it an RPATH (not RUNPATH: an RPATH also serves the
#      libraries that its dlopen()ed stdlib modules need, such as _ssl's libssl) on the
#      private library directory. The two edits are two patchelf runs, RPATH first:
#      patchelf 0.18 given both at once wrote an interpreter that segfaulted at start;
#   5. two repairs of the Debian layout, which assumes it is installed at /: pyconfig.h
#      is a stub that includes <multiarch/pythonX.Y/pyconfig.h> from the compiler's
#      default path, so the real one is copied over it (every -I <include> build works
#      unchanged), and sysconfig's WHEEL_PKG_DIR (where ensurepip takes pip from) is
#      /usr/share/python-wheels, so it is pointed at the root's copy.
# A version whose root has .complete is left alone: delete DEST/X.Y to refresh it.
set -euo pipefail

suite=forky
if [ $# -lt 2 ]; then
  echo "usage: $0 DEST X.Y [X.Y...]" >&2
  exit 2
fi
dest=$(mkdir -p "$1" && cd "$1" && pwd)
shift
versions=()
for v in "$@"; do [ -f "$dest/$v/.complete" ] || versions+=("$v"); done
[ ${#versions[@]} -eq 0 ] && exit 0

for tool in apt-get dpkg sha256sum; do
  command -v "$tool" >/dev/null || {
    echo "FAIL: $0 needs $tool (a Debian system)" >&2
    exit 1
  }
done

. "$(dirname "$0")/private_apt.sh"
private_apt "$dest/apt" deb "$suite" debian_python || exit 1

# What the interpreter and its stdlib's extension modules load, by Debian package name.
libs=(libc6 libgcc-s1 libstdc++6 libffi8 libssl3t64 libsqlite3-0 libexpat1 zlib1g liblzma5
  libbz2-1.0 libzstd1 libmpdec4 libuuid1 libcrypt1 libncursesw6 libtinfo6 libreadline8t64
  libdb5.3t64 python3-pip-whl patchelf)
for v in "${versions[@]}"; do
  root=$dest/$v
  rm -rf "$root" "$dest/debs-$v"
  mkdir -p "$root" "$dest/debs-$v"
  pkgs=("python$v" "python$v-minimal" "python$v-dev" "python$v-venv" "libpython$v"
    "libpython$v-minimal" "libpython$v-stdlib" "libpython$v-dev" "${libs[@]}")
  echo "debian_python: CPython $v: downloading ${#pkgs[@]} packages from $suite"
  (cd "$dest/debs-$v" && "${apt[@]}" download "${pkgs[@]}" >download.log 2>&1) || {
    cat "$dest/debs-$v/download.log"
    echo "FAIL: apt-get download for CPython $v from $suite" >&2
    exit 1
  }
  for deb in "$dest/debs-$v"/*.deb; do dpkg -x "$deb" "$root"; done

  ldso=$(ls "$root"/usr/lib/*/ld-linux*.so.* | head -n1)
  libdir=$(dirname "$ldso")
  multiarch=$(basename "$libdir")
  patchelf=("$ldso" --library-path "$libdir" "$root/usr/bin/patchelf")
  "${patchelf[@]}" --force-rpath --set-rpath "$libdir" "$root/usr/bin/python$v"
  "${patchelf[@]}" --set-interpreter "$ldso" "$root/usr/bin/python$v"

  cp "$root/usr/include/$multiarch/python$v/pyconfig.h" "$root/usr/include/python$v/pyconfig.h"
  sed -i "s|'/usr/share/python-wheels/'|'$root/usr/share/python-wheels/'|" \
    "$root"/usr/lib/python"$v"/_sysconfigdata_*.py

  # It must run, with what the test venvs and builds need, before it counts as made.
  "$root/usr/bin/python$v" -c '
import ctypes, hashlib, lzma, bz2, sqlite3, ssl, sys, sysconfig, venv, zlib, os
inc = sysconfig.get_paths()["include"]
assert os.path.isfile(os.path.join(inc, "Python.h")), inc
assert sys.prefix.startswith(sys.argv[1]), sys.prefix
wheels = sysconfig.get_config_var("WHEEL_PKG_DIR")
assert any(f.startswith("pip-") for f in os.listdir(wheels)), wheels
' "$root"
  (cd "$dest/debs-$v" && ls -- *.deb) >"$root/.complete"
  rm -rf "$dest/debs-$v"
  echo "debian_python: CPython $v ready: $root/usr/bin/python$v ($("$root/usr/bin/python$v" -V))"
done
