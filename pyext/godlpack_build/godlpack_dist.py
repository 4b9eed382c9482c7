"""godlpack's own distribution, built from its source tree or sdist: its metadata, the
extension godlpack._godlpack, the wheel's files (the packages godlpack and
godlpack_build, and the Go library's sources users' builds compile: copy_go_library) and
the sdist's. own.py (the PEP 517 backend pyproject.toml names) and build.py (the
developer CLI) run these."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from .compile import go_build_c_shared
from .errors import BuildError
from .golibrary import (
    GO_BUILD_TAG,
    GO_LIBRARY_PKGS,
    GO_MODULE_DIR,
    GO_PROXY_DIR,
    godlpack_version,
)
from .goreleases import go_mod_version
from .interpreter import MIN_PYTHON, PY_VERSIONS, interpreter_info
from .runtime_patches import RUNTIME_ADDED
from .toolchain import BUILD_REQUIREMENTS, check_modules, require_go
from .wheel import (
    BINARY_SUFFIXES,
    core_metadata,
    pack_wheel,
    wheel_tag,
    write_dist_info,
    write_sdist,
)

# godlpack's source tree: this file is its pyext/godlpack_build/godlpack_dist.py.
ROOT = Path(__file__).resolve().parent.parent.parent
# The Python packages of the wheel, from the tree's pyext/.
PYTHON_PACKAGES = ("godlpack", "godlpack_build")

EXT_NAME = "_godlpack"  # the extension module: godlpack._godlpack
GO_MAIN_PKG = "./pyext/extension"  # its Go main package (PyInit__godlpack)

NAME = "godlpack"
SUMMARY = (
    "DLPack for Python, implemented in Go: exchange CPU tensors with NumPy, PyTorch, JAX "
    "and TVM-FFI"
)
URL = "https://github.com/godlpack/godlpack"
# What copy_go_library copies of each package of the Go library (golibrary.GO_LIBRARY_PKGS)
# and of the module's root.
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
# Files of the Python packages that go into a wheel (the built extension is added apart).
WHEEL_PKG_SUFFIXES = (".py", ".pyi")
WHEEL_PKG_NAMES = ("py.typed",)

# --------------------------------------------------------------------------- the extension


def ext_filename(info: dict[str, Any]) -> str:
    suffix: str = info["ext_suffix"]
    return EXT_NAME + suffix


def build_ext(
    out_dir: Path,
    info: dict[str, Any],
    *,
    cgocheck2: bool = False,
    strip: bool = False,
    src: Path = ROOT,
) -> Path:
    """Build the extension (GO_MAIN_PKG of ``src``, with GO_BUILD_TAG) into ``out_dir``."""
    return go_build_c_shared(
        GO_MAIN_PKG,
        out_dir / ext_filename(info),
        info,
        cwd=src,
        want_go=go_mod_version(src),
        cgocheck2=cgocheck2,
        strip=strip,
    )


# --------------------------------------------------------------------------- metadata


def read_version(root: Path = ROOT) -> str:
    """``__version__`` from pyext/godlpack/_version.py, read without importing the package."""
    return godlpack_version(root / "pyext")


def godlpack_metadata(root: Path = ROOT) -> bytes:
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
    return core_metadata(fields, description)


def dist_info_name(version: str) -> str:
    return f"{NAME}-{version}.dist-info"


def write_godlpack_dist_info(dist_info: Path, root: Path, tag: str | None) -> None:
    """godlpack's .dist-info (METADATA, its LICENSE; WHEEL with ``tag``)."""
    write_dist_info(
        dist_info, godlpack_metadata(root), tag, "godlpack build.py", [root / "LICENSE"]
    )


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
    go, goroot_env = require_go(go_mod_version(root))
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
    # A Go program that embeds Python builds the godlpack module's package from these
    # sources too (pyembed imports it; arrayfmt is among its imports).
    tags = "-tags=" + GO_BUILD_TAG
    listed = _go_json(["list", "-deps", tags, "-json=Dir,Module", *GO_LIBRARY_PKGS], root)
    dst = pkg / GO_MODULE_DIR
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
    # and the files godlpack's builds add to the Go runtime, which are no package's
    for name in (*GO_MODULE_FILES, *RUNTIME_ADDED):
        (dst / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, dst / name)
    proxy = pkg / GO_PROXY_DIR
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
        for name in PYTHON_PACKAGES:
            _copy_package(staging / name, root / "pyext" / name)
        pkg = staging / "godlpack"
        ext = build_ext(pkg, info, cgocheck2=cgocheck2, strip=True, src=root)
        copy_go_library(pkg, root)
        tag = wheel_tag(info, ext)
        write_godlpack_dist_info(staging / dist_info_name(version), root, tag)
        return pack_wheel(staging, out_dir, NAME, version, tag)


def build_editable_file(out_dir: Path, *, cgocheck2: bool = False) -> Path:
    """PEP 660: build the extension in place and a wheel whose .pth points at pyext/."""
    info = interpreter_info(None)
    version = read_version()
    ext = build_ext(ROOT / "pyext" / "godlpack", info, cgocheck2=cgocheck2)
    tag = wheel_tag(info, ext)
    with tempfile.TemporaryDirectory(prefix="godlpack-editable-") as tmp:
        staging = Path(tmp)
        (staging / f"__editable__.{NAME}-{version}.pth").write_text(
            str(ROOT / "pyext") + "\n", encoding="utf-8"
        )
        write_godlpack_dist_info(staging / dist_info_name(version), ROOT, tag)
        return pack_wheel(staging, out_dir, NAME, version, tag)


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
    return write_sdist(
        out_dir, f"{NAME}-{version}", root, sdist_files(root), godlpack_metadata(root)
    )


def check_build_requirements() -> None:
    """`build.py wheel`/`sdist` outside pip: the packages pip would have installed."""
    check_modules(BUILD_REQUIREMENTS, "or use `pip wheel .`")
