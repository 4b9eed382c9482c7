"""The godlpack Go library that extensions build against: its module path and build tags,
the Go packages godlpack's wheel carries and where, how a backend finds them
(go_library: the installed wheel's copy, or the checkout it runs from) and godlpack's
version."""

from __future__ import annotations

import ast
from pathlib import Path

from .errors import BuildError

# The Go module users' extensions import.
GO_MODULE_PATH = "github.com/godlpack/godlpack"
# The build tag of the godlpack library's files that include Python.h: without it the
# library's cgo packages hold only their Go API (or nothing), so plain `go build ./...`
# needs no Python.
GO_BUILD_TAG = "godlpack_python"
# The Go packages whose sources godlpack's wheel carries (godlpack_dist.copy_go_library):
# these, every package of the module they import (with GO_BUILD_TAG), and, as a file
# GOPROXY, the modules outside it they import: the extension API (the root), the
# embedding runtime (pyembed, which links the godlpack module's package for a Go program
# to make it in-process), the test helpers, the Go DLPack packages and the generator of
# bindings (bind.py runs it). The one list to
# change when the module's packages move.
GO_LIBRARY_PKGS = (".", "./pyembed", "./godlpacktest", "./dlpack/...", "./cmd/godlpack-bind")
# Where the wheel carries them, relative to the godlpack package: the library's sources,
# and the modules outside it (gonum, for dlpack/dlgonum) as a file GOPROXY. godlpack's
# build writes them, users' builds build from them with no network.
GO_MODULE_DIR = "_go/module"
GO_PROXY_DIR = "_go/proxy"

# The folder that holds the packages godlpack and godlpack_build: site-packages, or a
# checkout's pyext/.
PACKAGES_DIR = Path(__file__).resolve().parent.parent
GODLPACK_DIR = PACKAGES_DIR / "godlpack"


def godlpack_version(packages: Path = PACKAGES_DIR) -> str:
    """``__version__`` of ``packages``/godlpack/_version.py (default: the godlpack beside
    this backend), read without importing godlpack, which needs its built extension."""
    path = packages / "godlpack" / "_version.py"
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            if isinstance(value, str):
                return value
    raise BuildError(f"no __version__ = '...' in {path}")


def go_library() -> tuple[Path, Path | None]:
    """The godlpack Go module to build against and the file GOPROXY of its dependencies:
    the sources the wheel carries, or, for godlpack run from its checkout (in place or
    editable), the checkout itself, whose dependencies come from Go's module cache."""
    shipped = GODLPACK_DIR / GO_MODULE_DIR
    if (shipped / "go.mod").is_file():
        proxy = GODLPACK_DIR / GO_PROXY_DIR
        return shipped, proxy if proxy.is_dir() else None
    checkout = PACKAGES_DIR.parent
    go_mod = checkout / "go.mod"
    if go_mod.is_file() and f"module {GO_MODULE_PATH}\n" in go_mod.read_text("utf-8"):
        return checkout, None
    raise BuildError(f"{GODLPACK_DIR} carries no Go sources ({GO_MODULE_DIR}): reinstall godlpack")
