"""Builds an example extension written in Go (examples/goext, tests/goext2, ...) for the
tests with godlpack's build backend itself (godlpack_build.extension.build_go_extension: ``go
build -buildmode=c-shared -tags godlpack_python`` of the example's main package, the
generated ``PyInit_<name>`` file added by an overlay, a temporary go.mod whose replace
points at this checkout's Go sources), under any module name (goext_bad is built as a
name that does not match its godlpack.Module).

The Go experiments are those of the example's pyproject.toml ([tool.godlpack]
goexperiment, or the backend's default, simd, as pip's build would use), or the ones
asked for (none: the plain-Go loops of package dlpack/vec, which examples/goext uses).

Builds are cached per interpreter, Go release, cgocheck2 setting, experiments and content of the
Go sources, in the system's temporary folder: four CPythons run the suite in parallel on a small
machine, and a second run of the same sources costs nothing.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import sysconfig
import tempfile
from pathlib import Path

from godlpack_build.extension import build_go_extension
from godlpack_build.goreleases import go_env_value, go_mod_version
from godlpack_build.interpreter import interpreter_info
from godlpack_build.project import Project
from godlpack_build.toolchain import require_go

REPO = Path(__file__).resolve().parent.parent
CACHE = Path(tempfile.gettempdir()) / "godlpack-goext-builds"


def _go_version() -> str:
    """The version of the Go the backend builds with here (tests/run's second pass puts
    another release first on PATH): a build of one release is not another's."""
    go, env = require_go(go_mod_version(REPO))
    return go_env_value(go, "GOVERSION", env) or go


def _sources_digest(example: Path, cgocheck2: bool, goexperiment: list[str] | None) -> str:
    h = hashlib.sha256()
    h.update(
        f"{sys.version_info[:2]} {sysconfig.get_config_var('EXT_SUFFIX')} {cgocheck2}".encode()
    )
    h.update(_go_version().encode())
    h.update(("default" if goexperiment is None else ",".join(goexperiment)).encode())
    files = [p for p in REPO.glob("*") if p.suffix in (".go", ".c", ".h", ".mod", ".sum")]
    for pkgs in ("dlpack", "internal", "pyembed", "godlpacktest"):  # the library's other packages
        files += [p for p in (REPO / pkgs).rglob("*") if p.suffix in (".go", ".c", ".h")]
    files += [p for p in example.glob("*") if p.is_file()]
    # the backend, with the file it adds to the Go runtime
    backend = REPO / "pyext" / "godlpack_build"
    files += [p for p in backend.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    for p in sorted(files):
        if not p.name.endswith("_test.go"):
            h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:20]


def build(
    example: Path, name: str, *, cgocheck2: bool = False, goexperiment: list[str] | None = None
) -> Path:
    """The built extension module ``name`` of example, a folder holding only it
    (put it on sys.path), built with the Go experiments ``goexperiment`` (default:
    its pyproject.toml's, if it has one, which is the backend's default, simd, if that
    names none; none for a folder without one)."""
    if goexperiment is None and not (example / "pyproject.toml").is_file():
        goexperiment = []
    elif goexperiment is None:
        goexperiment = Project(example).goexperiment
    out_dir = CACHE / f"{name}-{_sources_digest(example, cgocheck2, goexperiment)}"
    target = out_dir / (name + (sysconfig.get_config_var("EXT_SUFFIX") or ".so"))
    if target.exists():
        return out_dir
    work = Path(tempfile.mkdtemp(prefix=f"godlpack-{name}-"))
    try:
        info = interpreter_info(None)
        tmp_target = build_go_extension(
            example,
            example,
            name,
            work / target.name,
            info,
            cgocheck2=cgocheck2,
            goexperiment=goexperiment,
        )
        out_dir.mkdir(parents=True, exist_ok=True)
        os.replace(tmp_target, target)  # atomic: parallel sessions see all or nothing
        return out_dir
    finally:
        shutil.rmtree(work, ignore_errors=True)


def cgocheck2_wanted() -> bool:
    """Whether this run tests a cgocheck2 build of godlpack (tests/run sets it): the
    extensions are then built the same way."""
    return os.environ.get("GODLPACK_EXPECT_CGOCHECK2") == "1"


#: Where each extension the tests build lives.
FOLDERS = {
    "goext": REPO / "examples" / "goext",
    "goext2": REPO / "tests" / "goext2",
    "goext_bad": REPO / "tests" / "goext_bad",
    "goext3": REPO / "tests" / "goext3",
    "streamstats": REPO / "examples" / "streamstats",
}


def folder(name: str, module: str | None = None, goexperiment: list[str] | None = None) -> str:
    """The folder holding the extension of FOLDERS[name] built as module ``module``
    (default: name) with the Go experiments ``goexperiment`` (default: build's), built
    now if needed."""
    return str(
        build(
            FOLDERS[name], module or name, cgocheck2=cgocheck2_wanted(), goexperiment=goexperiment
        )
    )


def cpu_kernels() -> str:
    """The kernels examples/goext's SIMD build runs on this CPU (package dlpack/vec, through
    archsimd's X86 checks): "avx512", "avx2" or "go"."""
    try:
        flags = set(Path("/proc/cpuinfo").read_text().split())
    except OSError:
        return "go"
    if {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"} <= flags:
        return "avx512"
    return "avx2" if "avx2" in flags else "go"


def load(name: str):
    """Builds (or finds cached) and imports the extension ``name``."""
    import importlib

    path = folder(name)
    if path not in sys.path:
        sys.path.insert(0, path)
    return importlib.import_module(name)


if __name__ == "__main__":  # python tests/goext_build.py goext: prints its folder
    print(folder(sys.argv[1]))
