"""godlpack's patches to the Go runtime its builds link, given to ``go build -overlay``:
the per-call lock's (runtime_patch) and the fork child's repair with the vector
registers' clearing on the way to C (runtime_fork_repair, which adds the Go library's
internal/forksafe/overlay files to package runtime). Each is written against the
runtime sources of the releases of goreleases.SUPPORTED_GO and refused (None) where a
toolchain's runtime does not read as expected."""

from __future__ import annotations

from pathlib import Path

from .errors import BuildError
from .golibrary import go_library
from .goreleases import SUPPORTED_GO, go_version, goroot

# The per-call lock. Every call from C into Go on a thread not already inside a Go->C
# call (a Python thread calling godlpack or an extension) waits for the library's
# package initialization. Go 1.26 does it with a blocking receive from
# runtime.main_init_done, a channel closed once init is done. A blocking receive from a
# closed channel still takes the channel's lock, so every such call of every thread
# writes that one lock's cache line: on a free-threaded CPython, two threads calling Go
# scaled x1.05 instead of x2 (bench/bench_threads.py, touch, 3.13t;
# docs/internals/free-threading.md, "The runtime's per-call lock"). godlpack's patch of
# that release's runtime/cgocall.go (each build compiles a copy through go build -overlay;
# Go caches it) asks a flag of its own first, one atomic load that no call writes once it
# is set: only while it is unset does the call receive (blocking, the same wait), and a
# receive that returned, which only the channel's close lets happen, sets it. The memory-model
# edge stays the runtime's: the close is synchronized before that receive, the receive
# before the store, the store before every load that sees it. (An earlier patch, a
# non-blocking receive first, answered without the lock too, but through a call into
# the channel code on every crossing: ~2 ns of a ~120 ns call.) Go 1.27's runtime does
# the same itself (cgocall.go: `if raceenabled || !mainInitDone.Load()`, the flag
# stored before the channel's close), so it needs no patch. A runtime that reads as
# neither is refused (runtime_patch None: toolchain_gap).
RUNTIME_CGOCALL = ("src", "runtime", "cgocall.go")
_INIT_WAIT = "\t\t<-main_init_done\n"
_INIT_WAIT_ONCE = (
    "\t\tif !godlpackInitDone.Load() { "
    "// godlpack's patch (godlpack_build/runtime_patches.py)\n"
    "\t\t\t<-main_init_done\n"
    "\t\t\tgodlpackInitDone.Store(true)\n"
    "\t\t}\n"
)
_CGOCALL_IMPORT = '\t"internal/goexperiment"\n'
_CGOCALL_IMPORT_ATOMIC = _CGOCALL_IMPORT + '\t"internal/runtime/atomic"\n'
_INIT_FLAG = (
    "\n// godlpackInitDone is set once a call from C has seen main_init_done closed\n"
    "// (godlpack's patch, godlpack_build/runtime_patches.py).\n"
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


# The fork child's repair of its runtime (internal/forksafe): a file added to package
# runtime, written against the internals of the releases of SUPPORTED_GO (checked against
# each: CONTRIBUTING.md, "Upgrading Go"), so added only for those, with the build tag
# RUNTIME_FORK_TAG that lets internal/forksafe call it (runtime_repair.go; other builds:
# runtime_norepair.go). It lives in the Go library (golibrary.go_library), under this path,
# with a //go:build ignore line that keeps it out of the library's own packages and that
# the copy given to the runtime drops.
RUNTIME_FORK_SOURCE = Path("internal", "forksafe", "overlay", "godlpack_fork.go")
# With it, the vector registers' clearing where Go leaves for C (godlpack_clearupper_amd64.s
# says why): its assembly, its declaration, and an empty one for other architectures.
RUNTIME_ADDED = (
    RUNTIME_FORK_SOURCE,
    RUNTIME_FORK_SOURCE.with_name("godlpack_clearupper_amd64.s"),
    RUNTIME_FORK_SOURCE.with_name("godlpack_clearupper_amd64.go"),
    RUNTIME_FORK_SOURCE.with_name("godlpack_clearupper_other.go"),
)
_IGNORE_LINE = "//go:build ignore\n\n"
_IGNORE_AND = "//go:build ignore && "


def runtime_fork_file() -> Path:
    """RUNTIME_FORK_SOURCE in the Go library this backend builds against."""
    return go_library()[0] / RUNTIME_FORK_SOURCE


def runtime_added_files() -> list[Path]:
    """RUNTIME_ADDED in the Go library this backend builds against."""
    library = go_library()[0]
    return [library / f for f in RUNTIME_ADDED]


def runtime_copy(text: str) -> str | None:
    """A file of RUNTIME_ADDED as package runtime gets it: without the ``ignore`` that keeps
    it out of the Go library's own packages (a whole first line, or the first term of a
    constraint); None for a file that does not start so."""
    if text.startswith(_IGNORE_LINE):
        return text.removeprefix(_IGNORE_LINE)
    if text.startswith(_IGNORE_AND):
        return "//go:build " + text.removeprefix(_IGNORE_AND)
    return None


RUNTIME_FORK_TAG = "godlpack_runtime_fork"

# With it, three functions of proc.go; startlockedm drops a goroutine locked to an M whose thread
# a fork left in the parent, instead of handing it a P nobody would run
# (godlpack_fork.go's godlpackMarkVanishedMs says why).
_STARTLOCKEDM = "func startlockedm(gp *g) {\n\tmp := gp.lockedm.ptr()\n"
_STARTLOCKEDM_FORKED = (
    _STARTLOCKEDM + "\tif godlpackVanishedM(mp) { // godlpack's patch (godlpack_fork.go)\n"
    "\t\treturn\n\t}\n"
)


# And gopreempt_m, in proc.go too, lets the forking thread's goroutine go on in a fork child
# not repaired yet instead of yielding (godlpack_fork.go's godlpackStaleThread says why);
# resumed as newstack resumes a goroutine that cannot be preempted.
_GOPREEMPT_M = "func gopreempt_m(gp *g) {\n"
_GOPREEMPT_M_FORKED = (
    _GOPREEMPT_M + "\tif godlpackStaleThread(gp.m) { // godlpack's patch (godlpack_fork.go)\n"
    "\t\tgp.preempt = false\n\t\tgp.syncSafePoint = false\n"
    "\t\tgp.stackguard0 = gp.stack.lo + stackGuard\n\t\tgogo(&gp.sched)\n\t}\n"
)


# And reentersyscall, where Go leaves for C or the kernel, clears the vector registers'
# upper halves first (godlpack_clearupper_amd64.s says why).
_REENTERSYSCALL = "func reentersyscall(pc, sp, bp uintptr) {\n\tgp := getg()\n"
_REENTERSYSCALL_CLEARED = _REENTERSYSCALL.replace(
    "{\n", "{\n\tgodlpackClearUpper() // godlpack's patch (godlpack_clearupper_amd64.s)\n", 1
)


def runtime_fork_repair(go: str, goroot_env: dict[str, str], into: Path) -> dict[str, str] | None:
    """The overlay entries that add RUNTIME_ADDED to the runtime of the toolchain
    ``go`` and patch its proc.go (written in ``into``), or None for a release outside
    SUPPORTED_GO, a wheel without the file or a proc.go that does not read as expected."""
    have = go_version(go, goroot_env)
    root = goroot(go, goroot_env)
    if have is None or have[:2] not in SUPPORTED_GO or root is None:
        return None
    proc = root / "src" / "runtime" / "proc.go"
    try:
        source = proc.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    try:
        added = [runtime_copy(f.read_text(encoding="utf-8")) for f in runtime_added_files()]
    except (OSError, UnicodeDecodeError, BuildError):
        return None
    if (
        any(text is None for text in added)
        or source.count(_STARTLOCKEDM) != 1
        or source.count(_GOPREEMPT_M) != 1
        or source.count(_REENTERSYSCALL) != 1
    ):
        return None
    replace = {}
    for f, text in zip(runtime_added_files(), added, strict=True):
        into_runtime = into / f.name
        into_runtime.write_text(text, encoding="utf-8")
        replace[str(root / "src" / "runtime" / f.name)] = str(into_runtime)
    patched = into / "godlpack_runtime_proc.go"
    patched.write_text(
        source.replace(_STARTLOCKEDM, _STARTLOCKEDM_FORKED)
        .replace(_GOPREEMPT_M, _GOPREEMPT_M_FORKED)
        .replace(_REENTERSYSCALL, _REENTERSYSCALL_CLEARED),
        encoding="utf-8",
    )
    replace[str(proc)] = str(patched)
    return replace


def runtime_patch(go: str, goroot_env: dict[str, str], into: Path) -> dict[str, str] | None:
    """The overlay entry ({runtime's cgocall.go: patched copy written in ``into``}) of the
    per-call lock's patch above for the toolchain ``go``; {} where its runtime has the
    fix already; None where it reads as neither."""
    root = goroot(go, goroot_env)
    if root is None:
        return None
    original = root.joinpath(*RUNTIME_CGOCALL)
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
