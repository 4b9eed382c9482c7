"""cgo's settings: the environment of ``go build`` for an extension (the target's
headers, GOEXPERIMENT, no toolchain download, no go.work) and, for ``python -m godlpack
go-env``, what a user's own go build needs to build Go code against godlpack for the
running interpreter (cgo_settings, with --embed: a program that embeds it)."""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .errors import BuildError
from .golibrary import GO_BUILD_TAG
from .goreleases import SUPPORTED_GO, go_version


def _quote_flag(flag: str) -> str:
    # CGO_CFLAGS is split like a shell word list (cmd/internal/quoted): quote paths with spaces.
    return f'"{flag}"' if any(c.isspace() for c in flag) else flag


def default_goexperiment(go: str, goroot_env: dict[str, str]) -> list[str]:
    """The experiments of a project that names none: ["simd"] (simd/archsimd, which
    package dlpack/vec's kernels use) when the toolchain ``go`` is a release vec has
    kernels for (SUPPORTED_GO) and the caller's GOEXPERIMENT does not already say simd
    or nosimd (theirs wins), else none."""
    callers = {e.strip() for e in os.environ.get("GOEXPERIMENT", "").split(",")}
    if callers & {"simd", "nosimd"}:
        return []
    have = go_version(go, goroot_env)
    return ["simd"] if have is not None and have[:2] in SUPPORTED_GO else []


def go_env(
    info: dict[str, Any],
    *,
    cgocheck2: bool = False,
    goexperiment: Iterable[str] = (),
    extra: dict[str, str] | None = None,
    include_dirs: Iterable[Path] = (),
) -> dict[str, str]:
    """The environment for ``go build``: cgo on, the target's headers (and
    ``include_dirs``), no toolchain fetch; ``extra`` (the toolchain's GOROOT, the C
    compiler) goes on top. GOEXPERIMENT: the caller's, then ``goexperiment`` (a project's
    [tool.godlpack] goexperiment), then cgocheck2 if asked, each once."""
    env = {**os.environ, **(extra or {})}
    includes = list(dict.fromkeys([info["include"], info["platinclude"], *map(str, include_dirs)]))
    cflags = " ".join(_quote_flag("-I" + p) for p in includes) + " -O2"
    if env.get("CGO_CFLAGS"):
        cflags += " " + env["CGO_CFLAGS"]
    env["CGO_CFLAGS"] = cflags
    env["CGO_ENABLED"] = "1"
    env["GOTOOLCHAIN"] = "local"  # never download a toolchain
    env["GOWORK"] = "off"  # a go.work above the sources must not take over
    exps = [e for e in env.get("GOEXPERIMENT", "").split(",") if e]
    exps += [*goexperiment, *(["cgocheck2"] if cgocheck2 else [])]
    if exps:
        env["GOEXPERIMENT"] = ",".join(dict.fromkeys(exps))
    if not any(env.get(k) for k in ("GOCACHE", "XDG_CACHE_HOME", "HOME")):
        # go refuses to run without a build cache; an isolated build may have no HOME.
        env["GOCACHE"] = str(Path(tempfile.gettempdir()) / "godlpack-gocache")
    return env


def cgo_settings(*, embed: bool) -> dict[str, str]:
    """What ``go build`` needs to build Go code against the godlpack library for the
    running interpreter, as environment settings: its headers and the build tag; with
    ``embed``, a Go program that embeds it (``python -m godlpack go-env --embed``):
    libpython too (linked, found at run time by an rpath and LD_LIBRARY_PATH) and the
    interpreter's path for pyembed.Start. The caller's own CGO_CFLAGS, CGO_LDFLAGS and
    GOFLAGS are kept after these (a flag already present is not repeated)."""
    import sysconfig

    paths = sysconfig.get_paths()
    cflags = [*("-I" + d for d in dict.fromkeys([paths["include"], paths["platinclude"]])), "-O2"]
    # A program that embeds Python makes godlpack._godlpack from its own copy of the
    # module's package, which it links by importing pyembed: the same tag.
    tags = [GO_BUILD_TAG]
    settings = {
        "CGO_ENABLED": "1",
        "CGO_CFLAGS": _join_flags(cflags, os.environ.get("CGO_CFLAGS", "")),
        "GOFLAGS": _join_flags(["-tags=" + ",".join(tags)], os.environ.get("GOFLAGS", "")),
    }
    if not embed:
        return settings
    var = sysconfig.get_config_var
    libdir = var("LIBDIR") or ""
    loader = _elf_interpreter(sys.executable)
    if var("Py_ENABLE_SHARED"):
        ldversion = var("LDVERSION") or "{}.{}".format(*sys.version_info[:2])
        # An interpreter unpacked away from the prefix it was built for (a Debian
        # package extracted into a private root: tests/debian_python.sh) still reports
        # the build's LIBDIR; its libpython then sits under sys.base_prefix.
        base_lib = Path(sys.base_prefix) / "lib"
        found = [
            d
            for d in (libdir, var("LIBPL") or "", base_lib / (var("MULTIARCH") or ""), base_lib)
            if d and (Path(d) / ("libpython" + ldversion + ".so")).exists()
        ]
        if not found:
            raise BuildError(
                f"libpython{ldversion}.so not found in {libdir}: install the development "
                f"files of {sys.executable} (e.g. the libpython{ldversion}-dev package)"
            )
        libdir = str(found[0])
        ldflags = ["-L" + libdir, "-lpython" + ldversion, "-Wl,-rpath," + libdir]
        if loader is not None and loader != _SYSTEM_LOADER:
            # That interpreter runs on its own C library (its ELF loader says which, as
            # the patched Debian roots do): the program must load the same one, or
            # libpython meets an older libc than it was built for.
            # (the linker checks libpython's symbols against the system's older libc;
            # at run time that loader finds its own libc by the rpath)
            ldflags += [
                "-Wl,--dynamic-linker=" + loader,
                "-Wl,--allow-shlib-undefined",
                "-Wl,--disable-new-dtags",  # an RPATH, which libpython's own needs follow too
            ]
            if str(Path(loader).parent) != libdir:
                ldflags.append("-Wl,-rpath," + str(Path(loader).parent))
    else:
        # A static libpython: linked whole, its symbols exported for extension modules.
        libpl = var("LIBPL") or libdir
        library = Path(libpl) / (var("LIBRARY") or "")
        if not library.is_file():
            raise BuildError(
                f"{sys.executable} was built without a shared libpython and "
                f"its static one ({library}) is missing"
            )
        ldflags = [
            str(library),
            *shlex.split(var("LIBS") or ""),
            *shlex.split(var("SYSLIBS") or ""),
            "-Wl,--export-dynamic",
        ]
    settings["CGO_LDFLAGS"] = _join_flags(ldflags, os.environ.get("CGO_LDFLAGS", ""))
    library_path = [libdir, *(d for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if d)]
    if loader is not None and loader != _SYSTEM_LOADER:
        # the rpath finds libpython; that folder on LD_LIBRARY_PATH would also hand
        # its newer C library to every other program the shell runs (go, gcc...)
        library_path = library_path[1:]
    settings["LD_LIBRARY_PATH"] = ":".join(dict.fromkeys(library_path))
    settings["GODLPACK_PYTHON"] = sys.executable
    return settings


_SYSTEM_LOADER = "/lib64/ld-linux-x86-64.so.2"


def _elf_interpreter(path: str) -> str | None:
    """The ELF loader (PT_INTERP) of a 64-bit little-endian executable, else None."""
    import struct

    try:
        with open(os.path.realpath(path), "rb") as f:
            head = f.read(64)
            if head[:6] != b"\x7fELF\x02\x01":
                return None
            (phoff,) = struct.unpack_from("<Q", head, 32)
            phentsize, phnum = struct.unpack_from("<HH", head, 54)
            for i in range(phnum):
                f.seek(phoff + i * phentsize)
                ptype, _, offset, _, _, filesz = struct.unpack("<IIQQQQ", f.read(40))
                if ptype == 3:  # PT_INTERP
                    f.seek(offset)
                    return f.read(filesz).rstrip(b"\0").decode()
    except (OSError, struct.error, UnicodeDecodeError):
        return None
    return None


def _join_flags(ours: list[str], theirs: str) -> str:
    """``ours`` then the flags of ``theirs`` (a cgo flag string) not already in it."""
    flags = [*ours, *(f for f in shlex.split(theirs) if f not in ours)]
    return " ".join(_quote_flag(f) for f in flags)
