"""Shared set-up for godlpack's Python tests.

Import order: the in-tree build (``<repo>/pyext/godlpack/_godlpack*.so``, made by
``python build.py ext``) is preferred; without one, an importable godlpack (an installed
wheel, or PYTHONPATH) is used. With neither, the whole run fails at once with a message
saying how to build: a missing extension must never look like a passing (or skipped) run.

This file imports only what every test needs. Each test module imports the consumers it
uses (NumPy, ml_dtypes, PyTorch, JAX...) at its top, so a missing one fails the run when
that module is collected instead of skipping its tests. The only exception is a package
with no wheel for this interpreter, which the requirements file explains (why_unpinned,
optional_consumer). The test tiers' rule and hooks are tests/_tiers.py's.
"""

from __future__ import annotations

import ctypes
import gc
import glob
import importlib
import os
import pathlib
import signal
import subprocess
import sys
import sysconfig
import types

import pytest

# The test tiers' hooks (the heavy marker, the quick tier): tests/_tiers.py
from _tiers import (  # noqa: F401
    pytest_addoption,
    pytest_collection_modifyitems,
    pytest_ignore_collect,
    pytest_runtest_call,
    pytest_runtest_setup,
)

# godlpack._live_allocations() counts only when this is set at import; subprocesses
# started by tests inherit it.
os.environ.setdefault("GODLPACK_COUNT_ALLOCATIONS", "1")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYEXT = os.path.join(REPO, "pyext")
_SUFFIX = sysconfig.get_config_var("EXT_SUFFIX") or ".so"


def _in_tree_build() -> str | None:
    hits = glob.glob(os.path.join(PYEXT, "godlpack", "_godlpack*" + _SUFFIX))
    return hits[0] if hits else None


if _in_tree_build() is not None and PYEXT not in sys.path:
    sys.path.insert(0, PYEXT)

try:
    import godlpack
except ImportError as exc:  # pragma: no cover - the message is the point
    raise RuntimeError(
        "godlpack's extension module is not built and no installed godlpack was found.\n"
        f"Build it in place first:  {sys.executable} build.py ext   (from {REPO})\n"
        f"expected: {os.path.join(PYEXT, 'godlpack', '_godlpack' + _SUFFIX)}\n"
        f"import error: {exc!r}"
    ) from exc

#: A free-threaded build (3.13t): its suite runs with PYTHON_GIL=0 (tests/run).
FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))

#: sys.path entries a child interpreter needs to import the same godlpack.
GODLPACK_PATH = os.path.dirname(os.path.dirname(os.path.abspath(godlpack.__file__)))


def pytest_report_header(config):
    return f"godlpack from {os.path.dirname(godlpack.__file__)}"


def requirements_file() -> str:
    """This CPython's pinned test requirements (tests/run's req_file: 3.11's is the plain one;
    a free-threaded build's is requirements-3.Xt.txt)."""
    ver = "{}.{}".format(*sys.version_info[:2]) + ("t" if FREE_THREADED else "")
    name = "requirements.txt" if ver == "3.11" else f"requirements-{ver}.txt"
    return os.path.join(REPO, "tests", name)


def why_unpinned(dist: str) -> str | None:
    """None when this CPython's requirements file pins ``dist``; else why it does not, from
    its ``# dist: not pinned, ...`` comment (a package with no wheel for this interpreter).
    A package neither pinned nor explained is an error: a test must not skip silently
    because someone dropped a pin."""
    path = requirements_file()
    with open(path, encoding="utf-8") as f:
        lines = [line.strip() for line in f]
    if any(line.split("==")[0].strip().lower() == dist for line in lines if "==" in line):
        return None
    for i, line in enumerate(lines):
        if line.startswith(f"# {dist}: not pinned"):
            why = [line[2:]]
            for more in lines[i + 1 :]:  # the comment goes on until the next pin
                if not more.startswith("# "):
                    break
                why.append(more[2:])
            return f"{' '.join(why)} ({os.path.basename(path)})"
    raise RuntimeError(f"{path} neither pins {dist} nor says why not (# {dist}: not pinned, ...)")


def unpinned_skip(dist: str) -> pytest.MarkDecorator:
    """A mark that skips a test needing ``dist`` where this interpreter's requirements say
    why it is not pinned (why_unpinned), with that reason; a mark that does nothing
    elsewhere. For a test that uses the consumer in a child interpreter only."""
    why = why_unpinned(dist)
    return pytest.mark.skipif(False, reason="") if why is None else pytest.mark.skip(reason=why)


def optional_consumer(
    module: str, dist: str
) -> tuple[types.ModuleType | None, pytest.MarkDecorator]:
    """A consumer some interpreters have no wheel of (TVM-FFI on 3.13t): the module (None
    where this interpreter's requirements say why ``dist`` is not pinned) and a mark that
    skips a test needing it, with that reason (unpinned_skip). A pinned one that fails to
    import fails the run, as a consumer a test module imports does."""
    mark = unpinned_skip(dist)
    return (importlib.import_module(module) if why_unpinned(dist) is None else None), mark


# The DLPack ABI (dlpack.h v1.3), to look inside the capsules we export.
from _dlpack_abi import (  # noqa: E402
    DELETER,
    FLAG_IS_COPIED,
    FLAG_IS_SUBBYTE_TYPE_PADDED,
    FLAG_READ_ONLY,
    DLManagedTensor,
    DLManagedTensorVersioned,
    DLTensor,
    int64s,
)

# A capsule keeps the name pointer it is given, so the names we set live forever.
_NAME_BUFFERS = {
    name: ctypes.create_string_buffer(name)
    for name in (b"dltensor", b"dltensor_versioned", b"used_dltensor", b"used_dltensor_versioned")
}

_api = ctypes.pythonapi
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_void_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]


def capsule_name(cap) -> str:
    return _api.PyCapsule_GetName(cap).decode()


def capsule_managed(cap):
    """The DLManagedTensor[Versioned] a fresh capsule holds, read through ctypes."""
    name = capsule_name(cap)
    ptr = _api.PyCapsule_GetPointer(cap, name.encode())
    assert ptr, f"capsule {name!r} holds NULL"
    kind = DLManagedTensorVersioned if name.endswith("versioned") else DLManagedTensor
    return kind.from_address(ptr)


def consume_capsule(cap):
    """Take ownership as a consumer does: read the pointer, rename to used_*.

    Returns (managed struct, deleter callable). The caller must call the deleter once.
    """
    m = capsule_managed(cap)
    used = b"used_" + capsule_name(cap).encode()
    assert _api.PyCapsule_SetName(cap, ctypes.addressof(_NAME_BUFFERS[used])) == 0
    assert capsule_name(cap) == used.decode()
    return m, DELETER(m.deleter)


def tensor_shape(t: DLTensor) -> tuple[int, ...]:
    return int64s(t.shape, t.ndim) or ()


def tensor_strides(t: DLTensor) -> tuple[int, ...] | None:
    return int64s(t.strides, t.ndim)


@pytest.fixture(scope="session")
def dl():
    """ctypes view of the DLPack ABI and capsule helpers."""
    return types.SimpleNamespace(
        DLTensor=DLTensor,
        DLManagedTensor=DLManagedTensor,
        DLManagedTensorVersioned=DLManagedTensorVersioned,
        FLAG_READ_ONLY=FLAG_READ_ONLY,
        FLAG_IS_COPIED=FLAG_IS_COPIED,
        FLAG_IS_SUBBYTE_TYPE_PADDED=FLAG_IS_SUBBYTE_TYPE_PADDED,
        DELETER=DELETER,
        capsule_name=capsule_name,
        capsule_managed=capsule_managed,
        consume_capsule=consume_capsule,
        shape=tensor_shape,
        strides=tensor_strides,
        is_valid=lambda cap, name: bool(_api.PyCapsule_IsValid(cap, name.encode())),
    )


# --------------------------------------------------------------------------------------
# Live-allocation accounting and memory
# --------------------------------------------------------------------------------------


def live_now(expect: int | None = None) -> int:
    """godlpack._live_allocations() after a full collection; or, given the count a test
    expects, without one when the count is that already. A collection only lowers
    the count (it frees what garbage held), so skipping it then hides no allocation
    kept alive, and saves one of the collections that cost ~10-25 ms each on a
    free-threaded CPython with PyTorch loaded (thousands of checks in a run)."""
    if expect is not None and godlpack._live_allocations() == expect:
        return expect
    # pytest keeps the last failure's traceback (and its frames' arrays) in sys.last_*:
    # drop it, so an earlier failing test cannot shift this test's counts.
    for name in ("last_type", "last_value", "last_traceback", "last_exc"):
        if hasattr(sys, name):
            delattr(sys, name)
    # A second collection for what the first one's finalizers dropped: none to drop
    # when it found nothing.
    if gc.collect():
        gc.collect()
    return godlpack._live_allocations()


class LiveCounter:
    """Counts godlpack's live C allocations relative to when the test started."""

    def __init__(self):
        self.baseline = live_now()

    def now(self) -> int:
        return live_now()

    def delta(self) -> int:
        return live_now(expect=self.baseline) - self.baseline


@pytest.fixture
def live():
    return LiveCounter()


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        resident_pages = int(f.read().split()[1])
    return resident_pages * os.sysconf("SC_PAGE_SIZE")


@pytest.fixture
def rss():
    return rss_bytes


# --------------------------------------------------------------------------------------
# A fresh interpreter, for calls that may take the whole process down
# --------------------------------------------------------------------------------------


def run_python(
    code: str, timeout: float = 60, env_extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """Runs code in a child interpreter that imports the same godlpack as this run
    (with env_extra added to its environment)."""
    env = dict(os.environ, **(env_extra or {}))
    env["PYTHONPATH"] = os.pathsep.join([GODLPACK_PATH, env.get("PYTHONPATH", "")]).rstrip(
        os.pathsep
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# For a script that forks: stacks(pid) gives a stuck child's threads (gdb, where
# installed), for the failure message before the child is killed.
HUNG_CHILD_STACKS = """
import shutil, subprocess

def stacks(pid):
    if shutil.which("gdb") is None:
        return "(no gdb to show its stacks)"
    cmd = ["gdb", "-p", str(pid), "-batch", "-ex", "thread apply all bt 12"]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout
    except subprocess.TimeoutExpired:
        return "(gdb timed out)"
    return "\\n".join(line for line in out.splitlines() if line.startswith(("#", "Thread ")))
"""


def run_script(tmp_path, name: str, source: str, timeout: float = 120, args=()) -> str:
    """Runs source as the file tmp_path/name.py (a real file: spawn and forkserver
    workers import their functions from it) with the godlpack of this run; returns
    its stdout. A hang fails the test and kills the script's whole process group
    (workers included); so does a non-zero exit or a traceback on stderr."""
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([GODLPACK_PATH, env.get("PYTHONPATH", "")]).rstrip(
        os.pathsep
    )
    proc = subprocess.Popen(
        [sys.executable, str(path), *args],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: a hang kills every worker too
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{name} hung for {timeout} s\nstdout:\n{out}\nstderr:\n{err[-4000:]}")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # stray workers, if any
        except ProcessLookupError:
            pass
    assert proc.returncode == 0, f"{name} exited {proc.returncode}\nstdout:\n{out}\nstderr:\n{err}"
    for bad in ("Fatal", "Segmentation", "panic", "Traceback"):
        assert bad not in err, f"{name}: {bad!r} on stderr:\n{err}"
    # What else the script said there (a hung fork child's stacks): pytest shows it
    # with a failure of the test's own assertions.
    sys.stderr.write(err)
    return out


#: godlpack's wheel is built with this SOURCE_DATE_EPOCH: test_wheel builds the sdist's
#: with it too, and the two must be the same bytes.
WHEEL_EPOCH = 1_700_000_000


@pytest.fixture(scope="session")
def godlpack_wheel(tmp_path_factory) -> pathlib.Path:
    """godlpack's wheel for this interpreter, built from the tree once a session, alone
    in its folder (pip's --find-links): test_wheel, test_bind and test_goext_build
    share it (each built its own before, on every CPython)."""
    out = tmp_path_factory.mktemp("godlpack-wheel")
    res = subprocess.run(
        [sys.executable, os.path.join(REPO, "build.py"), "wheel", "-o", str(out)]
        + ["--python", sys.executable],
        cwd=REPO,
        env={**os.environ, "SOURCE_DATE_EPOCH": str(WHEEL_EPOCH)},
        capture_output=True,
        text=True,
    )
    wheels = list(out.glob("*.whl"))
    assert res.returncode == 0 and len(wheels) == 1, (wheels, res.stdout, res.stderr)
    assert res.stdout.strip().endswith(wheels[0].name), res.stdout  # build.py prints its path
    return wheels[0]


@pytest.fixture(scope="session")
def isolated():
    """``isolated(code)`` runs code in a child interpreter; returns the CompletedProcess."""
    return run_python


def pytest_collection_finish(session):
    # NumPy, PyTorch, JAX and TVM-FFI leave ~10^6 long-lived objects; moving them to
    # the permanent generation keeps each full collection cheap (tests collect often).
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True, scope="module")
def _freeze_what_earlier_modules_left():
    """Freezes again before each test module: what earlier modules left alive (lazily
    imported torch and JAX submodules, compiled JAX functions, hypothesis' state, ...)
    would otherwise be scanned by every full collection of every later test, and the
    leak and deleter checks collect thousands of times (test_properties went from 2 s
    alone to 200 s at the end of the suite)."""
    gc.collect()
    gc.freeze()
