"""godlpack is typed: its stubs match the extension, and typed code using it checks.

- ``mypy --strict examples/`` passes (the examples use godlpack with NumPy, PyTorch,
  JAX and TVM-FFI, all through their own type information);
- ``stubtest`` finds the stubs (``_godlpack.pyi``, ``__init__.pyi``, ``_types.pyi``)
  consistent with the built extension: every public function, class, method and
  attribute, with its parameters;
- the stubs alone check, and give the types asserted below, for every Python
  godlpack supports (3.11 to 3.15), and reject what the extension rejects.

mypy is required wherever this interpreter's pinned test requirements list it
(tests/requirements.txt for 3.11, tests/requirements-3.X.txt for the others): there a
missing mypy fails these tests. Where the pins leave it out, they are skipped, saying so.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import textwrap

import godlpack
import pytest
from conftest import requirements_file

# runs mypy and stubtest, on the stubs of every supported CPython (from any one of them)
pytestmark = [pytest.mark.slow, pytest.mark.ends_only]

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG_DIR = os.path.dirname(os.path.abspath(godlpack.__file__))
GODLPACK_PATH = os.path.dirname(PKG_DIR)
CACHE = os.path.join(REPO, ".mypy_cache")
#: tests/run runs the versions in parallel: caches written by two at once are kept apart.
RUNNING = f"{sys.version_info[0]}.{sys.version_info[1]}"


def _installed(path: str) -> bool:
    """True if path is a site-packages directory (where mypy finds packages itself)."""
    site_dirs = {sysconfig.get_paths()[k] for k in ("purelib", "platlib")}
    return os.path.realpath(path) in {os.path.realpath(p) for p in site_dirs}


def _mypy(*args: str, mypypath: str | None = None, cwd: str = REPO) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("MYPYPATH", None)
    if mypypath is not None:
        env["MYPYPATH"] = mypypath
    env["PYTHONPATH"] = os.pathsep.join(p for p in (GODLPACK_PATH, env.get("PYTHONPATH")) if p)
    return subprocess.run(
        [sys.executable, "-m", "mypy", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _pinned_mypy() -> str | None:
    """The mypy version this interpreter's test requirements pin, or None."""
    try:
        with open(requirements_file()) as f:
            for line in f:
                m = re.match(r"\s*mypy==(\S+)", line)
                if m:
                    return m.group(1)
    except FileNotFoundError:
        pass
    return None


def _mypy_version() -> str | None:
    try:
        from mypy.version import __version__
    except ImportError:
        return None
    return __version__.split("+")[0]


@pytest.fixture(autouse=True, scope="module")
def _need_mypy():
    pinned, have = _pinned_mypy(), _mypy_version()
    if pinned is None and have is None:
        pytest.skip(f"mypy is not among this Python's test requirements ({requirements_file()})")
    assert have is not None, f"mypy=={pinned} is pinned in {requirements_file()} but missing"


def test_mypy_is_the_pinned_version():
    pinned = _pinned_mypy()
    if pinned is not None:
        assert _mypy_version() == pinned


def test_mypy_strict_examples():
    assert os.path.isdir(os.path.join(REPO, "examples"))
    mypypath = None if _installed(GODLPACK_PATH) else GODLPACK_PATH
    r = _mypy("--strict", "--cache-dir", CACHE, "examples", mypypath=mypypath)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("Success: no issues found")


def test_stubtest_matches_the_extension(tmp_path):
    # Imports the built godlpack and compares it with the stubs, name by name. The
    # consumers godlpack/__main__.py imports are not analysed (10x faster).
    config = tmp_path / "stubtest.ini"
    # Its own cache: sharing the examples' one would invalidate it (other options).
    config.write_text(
        f"[mypy]\ncache_dir = {os.path.join(CACHE, 'stubtest')}\n"
        "[mypy-numpy.*,torch.*,jax.*,jaxlib.*,tvm_ffi.*,ml_dtypes.*]\n"
        "follow_imports = skip\nignore_missing_imports = True\n"
    )
    mypypath = None if _installed(GODLPACK_PATH) else GODLPACK_PATH
    r = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "godlpack", "--mypy-config-file", str(config)],
        cwd=REPO,
        env={
            **os.environ,
            "PYTHONPATH": GODLPACK_PATH,
            **({"MYPYPATH": mypypath} if mypypath else {}),
        },
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_package_ships_its_type_information():
    for name in ("py.typed", "__init__.pyi", "_godlpack.pyi", "_types.pyi"):
        assert os.path.isfile(os.path.join(PKG_DIR, name)), name


GOOD = """
from typing import Literal

from typing_extensions import CapsuleType, assert_type

import godlpack as g

a = g.arange(12, dtype=g.float32).reshape(3, 4)
assert_type(a, g.Array)
assert_type(g.Array([1, 2]), g.Array)
assert_type(g.asarray([[1, 2.5], [3, 4j]], dtype="complex64"), g.Array)
assert_type(g.zeros((2, 3), dtype=float), g.Array)
assert_type(g.full(3, True), g.Array)
assert_type(g.empty([2, 2]), g.Array)
assert_type(g.ones(4, dtype=g.bfloat16), g.Array)
assert_type(a.shape, tuple[int, ...])
assert_type(a.strides, tuple[int, ...])
assert_type(a.dtype, g.dtype)
assert_type(a.dtype.kind, Literal["bool", "int", "uint", "float", "complex"])
assert_type(a.ndim + a.size + a.itemsize + a.nbytes + a.data_ptr, int)
assert_type(a.readonly, bool)
assert_type(a.flags["is_copied"], bool)
assert_type(a[1:, ::2], g.Array)
assert_type(a[..., None], g.Array)
assert_type(a[0, 1:], g.Array)
assert_type(a[0, 0], g.Array | bool | int | float | complex)
y: float = a.item(0, 0)  # item() is for this: a[0, 0] is a union
z: int = g.arange(3).item(1)
assert_type(g.asarray(a, dtype=g.float64, device="cpu", copy=False), g.Array)
assert_type(g.asarray(a, copy=True, device=(1, 0)), g.Array)
assert_type(a.copy().toreadonly().reshape((4, 3)).reshape(-1), g.Array)
assert_type(len(a), int)
a[0, 0] = 1.5
a[1] = [1, 2, 3, 4]
a[:] = a.copy()
cap = a.__dlpack__(max_version=(1, 3), dl_device=(g.DLDeviceType.kDLCPU, 0), copy=False)
assert_type(cap, CapsuleType)
assert_type(a.__dlpack_device__(), tuple[g.DLDeviceType, int])
assert_type(g.from_dlpack(cap), g.Array)
assert_type(g.from_dlpack(a, device="cpu", copy=True), g.Array)
assert_type(g.from_dlpack(a, device=(1, 0)), g.Array)
assert_type(g.float4_e2m1fn, g.dtype)
assert_type(g.dtypes, tuple[g.dtype, ...])
assert_type(g.DLPACK_VERSION, tuple[int, int])
assert_type(g.__version__, str)
for row in a:
    assert_type(row, g.Array | bool | int | float | complex)
"""

#: Each line must be rejected (as the extension rejects it at run time).
BAD = [
    "a.__dlpack__(stream=1)",  # stream must be None on CPU
    "a.__dlpack__((1, 3))",  # keywords only
    "a.__dlpack__(max_version=1)",
    "a.__dlpack__(unknown=1)",
    "g.from_dlpack(3)",  # no DLPack
    "g.from_dlpack(a, device='cuda')",
    "g.asarray([1], 'float32')",  # dtype is keyword-only
    "g.asarray([1], copy='yes')",
    "g.zeros('3')",  # shape is not an int
    "a.shape = (1, 2)",  # read-only attribute
    "a.nosuch",
    "del a[0]",  # elements cannot be deleted
]


@pytest.fixture(scope="module")
def stubs_only(tmp_path_factory):
    """A directory holding only godlpack's type information, nothing runnable."""
    root = tmp_path_factory.mktemp("stubs")
    os.mkdir(root / "godlpack")
    for name in os.listdir(PKG_DIR):
        if name.endswith(".pyi") or name == "py.typed":
            shutil.copy(os.path.join(PKG_DIR, name), root / "godlpack" / name)
    return root


@pytest.mark.parametrize("pyver", ["3.11", "3.12", "3.13", "3.14", "3.15"])
def test_stubs_give_precise_types(stubs_only, tmp_path, pyver):
    src = tmp_path / "good.py"
    src.write_text(textwrap.dedent(GOOD))
    r = _mypy(
        "--strict",
        "--python-version",
        pyver,
        "--no-site-packages",
        "--cache-dir",
        os.path.join(CACHE, f"stubs-{pyver}-on-{RUNNING}"),
        str(src),
        mypypath=str(stubs_only),
        cwd=str(tmp_path),
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_stubs_reject_what_the_extension_rejects(stubs_only, tmp_path):
    lines = ["import godlpack as g", "a = g.zeros((2, 2))", *BAD]
    src = tmp_path / "bad.py"
    src.write_text("\n".join(lines) + "\n")
    r = _mypy(
        "--strict",
        "--no-site-packages",
        "--cache-dir",
        os.path.join(CACHE, f"stubs-bad-on-{RUNNING}"),
        str(src),
        mypypath=str(stubs_only),
        cwd=str(tmp_path),
    )
    assert r.returncode == 1, r.stdout + r.stderr
    flagged = {int(line.split(":")[1]) for line in r.stdout.splitlines() if ": error:" in line}
    for lineno, code in enumerate(lines, start=1):
        if lineno > 2:
            assert lineno in flagged, f"mypy accepted {code!r}:\n{r.stdout}"
    assert not flagged & {1, 2}, r.stdout
