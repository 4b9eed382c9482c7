"""Typed stubs of an extension written in Go (docs/typing.md): godlpack.build writes them from the
Go signatures the built module carries (godlpack_build.stubs), and the real tools read them.

- ``mypy --strict`` accepts correct use of examples/goext with NumPy, PyTorch, JAX and
  godlpack arrays and raw capsules, and reports misuse: a str for a tensor, a missing
  argument, a wrong keyword, a result used as the wrong type;
- ``stubtest`` finds the generated stub consistent with the imported module (names,
  parameters, defaults);
- ``inspect.signature``, ``__text_signature__`` and ``help()`` see each function as a
  built-in function of module goext with its signature and doc.

The installed layout (goext-stubs/ in the wheel, found by mypy through site-packages) is
checked by tests/test_goext_build.py, which pip-installs goext.
"""

from __future__ import annotations

import glob
import inspect
import os
import pydoc
import subprocess
import sys
from pathlib import Path

import godlpack
import pytest
from conftest import why_unpinned
from godlpack_build import stubs
from goext_build import folder, load

REPO = Path(__file__).resolve().parent.parent
GODLPACK_PATH = str(Path(godlpack.__file__).resolve().parent.parent)
# the stub writer is Go and mypy reads the stubs the same from any CPython
pytestmark = pytest.mark.ends_only
# the tests that run mypy: skipped, with the reason, where it has no wheel (3.13t)
needs_mypy = pytest.mark.skipif(why_unpinned("mypy") is not None, reason=str(why_unpinned("mypy")))
CACHE = REPO / ".mypy_cache" / f"goext-stubs-{sys.version_info[0]}.{sys.version_info[1]}"

GOOD = """
import godlpack
import jax.numpy as jnp
import numpy as np
import torch
import goext

x = np.arange(6, dtype=np.float32)
y: godlpack.Array = goext.scale(x, 2)  # an int for a float, as Python allows
z: godlpack.Array = goext.scale(torch.ones(3), k=0.5)
goext.scale_(jnp.ones(3), 3.0)
s: float = goext.sum(godlpack.asarray([1.0, 2.0]))
goext.fill(np.zeros(4))  # value has a default
goext.fill(np.zeros(4), value=1.5)
n: int = goext.hold(x.__dlpack__())  # a raw capsule
k: str = goext.kernels()
t: tuple[object, ...] = goext.describe(y)
goext.release()
"""

BAD = """
import numpy as np
import goext

x = np.zeros(3)
goext.scale("x", 2.0)
goext.scale(x)
goext.fill(x, valu=1.0)
n: str = goext.sum(x)
goext.scale(x, "2")
"""


@pytest.fixture(scope="module")
def stub_dir(tmp_path_factory) -> Path:
    """goext's stub as the backend writes it, in a folder for MYPYPATH."""
    ext = glob.glob(os.path.join(folder("goext"), "goext*.so"))[0]
    out = tmp_path_factory.mktemp("stubs")
    (out / "goext.pyi").write_text(stubs.render(stubs.read_stub_info(Path(ext), "goext")))
    return out


def _mypy(stub_dir: Path, source: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    use = tmp / "use.py"
    use.write_text(source)
    env = {**os.environ, "MYPYPATH": str(stub_dir), "PYTHONPATH": GODLPACK_PATH}
    cmd = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(CACHE), str(use)]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, cwd=tmp)


def _error_lines(r: subprocess.CompletedProcess[str]) -> set[int]:
    """The line numbers of the checked script that mypy reported an error on."""
    return {int(line.split(":")[1]) for line in r.stdout.splitlines() if ": error:" in line}


def test_stub_names_each_function_with_its_types(stub_dir):
    text = (stub_dir / "goext.pyi").read_text()
    assert "def scale(x: _Tensor, k: float) -> Array:" in text
    assert "def fill(x: _Tensor, value: float = 0.0) -> None:" in text
    assert "def sum(x: _Tensor) -> float:" in text
    assert "def describe(x: _Tensor) -> tuple[Any, ...]:" in text
    assert "def kernels() -> str:" in text


@needs_mypy
def test_mypy_strict_accepts_correct_use(stub_dir, tmp_path):
    r = _mypy(stub_dir, GOOD, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


@needs_mypy
def test_mypy_strict_reports_misuse(stub_dir, tmp_path):
    r = _mypy(stub_dir, BAD, tmp_path)
    errors = [line for line in r.stdout.splitlines() if ": error:" in line]
    lines = {int(line.split(":")[1]) for line in errors}
    assert lines == {6, 7, 8, 9, 10}, r.stdout
    out = r.stdout
    assert 'Argument 1 to "scale" has incompatible type "str"' in out
    assert 'Missing positional argument "k" in call to "scale"' in out
    assert 'Unexpected keyword argument "valu" for "fill"' in out
    assert 'Incompatible types in assignment (expression has type "float"' in out
    assert 'Argument 2 to "scale" has incompatible type "str"; expected "float"' in out


@needs_mypy
def test_stubtest_finds_the_stub_consistent(stub_dir, tmp_path):
    config = tmp_path / "stubtest.ini"
    config.write_text(f"[mypy]\ncache_dir = {CACHE / 'stubtest'}\n")
    env = {
        **os.environ,
        "MYPYPATH": str(stub_dir),
        "PYTHONPATH": os.pathsep.join([folder("goext"), GODLPACK_PATH]),
    }
    cmd = [sys.executable, "-m", "mypy.stubtest", "goext", "--mypy-config-file", str(config)]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


def test_signature_and_help():
    goext = load("goext")
    assert goext.fill.__text_signature__ == "(x, value=0.0)"
    assert str(inspect.signature(goext.fill)) == "(x, value=0.0)"
    assert str(inspect.signature(goext.scale)) == "(x, k)"
    text = pydoc.render_doc(goext.scale, renderer=pydoc.plaintext)
    assert "built-in function scale in module goext" in text, text
    assert "scale(x, k)" in text and "A new array x * k" in text, text
    assert goext.scale.__module__ == "goext"


def test_where_the_backend_puts_the_stub(tmp_path):
    ext = Path(glob.glob(os.path.join(folder("goext"), "goext*.so"))[0])
    top = tmp_path / "top"
    written = stubs.write_stubs(ext, "goext", top)
    assert written == [top / "goext-stubs" / "__init__.pyi"]  # PEP 561 stub-only package
    # a module in a package: <package>/<module>.pyi and py.typed; the project's own win
    pkg = tmp_path / "pkg"
    (pkg / "goext").mkdir(parents=True)
    (pkg / "goext" / "goext.pyi").write_text("# hand-written\n")
    written = stubs.write_stubs(ext, "goext.goext", pkg)
    assert written == [pkg / "goext" / "py.typed"]
    assert (pkg / "goext" / "goext.pyi").read_text() == "# hand-written\n"


SS_GOOD = """
import numpy as np
import streamstats

h: streamstats.Histogram = streamstats.Histogram(10, hi=2.0)
h.add(np.zeros(3))
h.merge(streamstats.Histogram(10, hi=2.0))
n: int = h.count
lo: float = h.lo
h.name = "label"
q: float = h.quantile(0.5)
m: dict[str, object] = streamstats.moments(np.ones(2), 0, center=False, clip=None)
"""

SS_BAD = """
import streamstats

h = streamstats.Histogram(10)
h.merge(3)
h.count = 4
s: str = h.lo
streamstats.moments(h, 0, False)
"""


# clip is an overload set: each alternative type-checks, docs/classes.md's list call included
SS_OVERLOADS_GOOD = """
from typing import assert_type

import numpy as np
import torch
import streamstats

streamstats.clip(np.zeros(3, np.float32), 0.0, 1.0)  # the tensor alternative, in place
streamstats.clip(torch.zeros(3), lo=-1, hi=1)
assert_type(streamstats.clip([0.5, 3.0], 0, 1), list[float])  # the list alternative
ys: list[float] = streamstats.clip(x=[1.0], lo=0.0, hi=2.0)
"""

SS_OVERLOADS_BAD = """
import numpy as np
import streamstats

streamstats.clip("abc", 0, 1)
n: int = streamstats.clip([0.5], 0, 1)
streamstats.clip(np.zeros(3), 0)
"""


@pytest.fixture(scope="module")
def ss_stub_dir(tmp_path_factory) -> Path:
    """examples/streamstats's stub as the backend writes it: a bound class and keyword-only
    parameters."""
    ext = glob.glob(os.path.join(folder("streamstats"), "streamstats*.so"))[0]
    out = tmp_path_factory.mktemp("ss-stubs")
    text = stubs.render(stubs.read_stub_info(Path(ext), "streamstats"))
    (out / "streamstats.pyi").write_text(text)
    return out


def test_stub_defines_bound_classes(ss_stub_dir, tmp_path):
    """A bound class is a class of the stub (constructor, methods, read-only and
    read-write properties) and parameters of its *T name it, not Any; keyword-only
    parameters follow a "*"."""
    text = (ss_stub_dir / "streamstats.pyi").read_text()
    assert "\nclass Histogram:\n" in text
    assert "def __init__(self, bins: int, lo: float = 0.0, hi: float = 1.0) -> None:" in text
    assert "def merge(self, other: Histogram) -> None:" in text
    assert "def quantile(self, q: float) -> float:" in text
    assert "@property\n    def count(self) -> int:" in text
    assert "@name.setter\n    def name(self, value: str) -> None: ..." in text
    assert "@count.setter" not in text
    assert "def moments(x: _Tensor, ddof: int = 0, *, center: bool = True," in text
    if why_unpinned("mypy") is not None:  # the text checked; mypy has no wheel here (3.13t)
        pytest.skip(f"the stub's text checked; mypy's checks not run: {why_unpinned('mypy')}")
    r = _mypy(ss_stub_dir, SS_GOOD, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    r = _mypy(ss_stub_dir, SS_BAD, tmp_path)
    lines = _error_lines(r)
    assert lines == {5, 6, 7, 8}, r.stdout
    assert 'Argument 1 to "merge" of "Histogram" has incompatible type "int"' in r.stdout
    assert 'Property "count" defined in "Histogram" is read-only' in r.stdout
    assert 'Too many positional arguments for "moments"' in r.stdout


def test_stub_of_an_overload_set_has_an_overload_per_alternative(ss_stub_dir, tmp_path):
    """An overload set (streamstats.clip) is one typing.overload def per alternative, in
    the order a call tries them, with Python types and each alternative's doc; not one
    def of no parameters that mypy refuses every call of."""
    text = (ss_stub_dir / "streamstats.pyi").read_text()
    assert "\n@overload\ndef clip(x: _Tensor, lo: float, hi: float) -> None:\n" in text
    assert "\n@overload\ndef clip(x: list[float], lo: float, hi: float) -> list[float]:\n" in text
    assert text.index("x: _Tensor, lo") < text.index("x: list[float], lo")
    assert "def clip() ->" not in text and text.count("def clip(") == 2
    assert "Clips a float tensor to [lo, hi] in place." in text
    if why_unpinned("mypy") is not None:  # the text checked; mypy has no wheel here (3.13t)
        pytest.skip(f"the stub's text checked; mypy's checks not run: {why_unpinned('mypy')}")
    r = _mypy(ss_stub_dir, SS_OVERLOADS_GOOD, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    r = _mypy(ss_stub_dir, SS_OVERLOADS_BAD, tmp_path)
    lines = _error_lines(r)
    assert lines == {5, 6, 7}, r.stdout
    assert 'No overload variant of "clip" matches argument types "str", "int", "int"' in r.stdout
    assert 'expression has type "list[float]", variable has type "int"' in r.stdout


SS_CLASSLEVEL_GOOD = """
from typing import assert_type

import numpy as np
import streamstats


class Sub(streamstats.Histogram):
    pass


n: int = streamstats.MAX_BINS
mode: streamstats.Scale = streamstats.Scale.LOG
e: list[float] = streamstats.edges(4, 1.0, 2.0)
e = streamstats.edges(4, 1.0, 2.0, streamstats.Scale.LOG)
e = streamstats.edges(4, 1.0, 2.0, scale=streamstats.Scale.LINEAR)
h = streamstats.Histogram.from_counts([1, 2], lo=0.0, hi=2.0)
assert_type(h, streamstats.Histogram)
assert_type(Sub.from_counts(np.array([1, 2])), Sub)
i: int = streamstats.Histogram.bin_of(0.5, 4, 0.0, 1.0)
i = h.bin_of(0.5, 4, 0.0, 1.0)
"""

SS_CLASSLEVEL_BAD = """
import streamstats

streamstats.Scale.CUBIC
s: str = streamstats.MAX_BINS
streamstats.edges(4, 1.0, 2.0, "log")
streamstats.Histogram.bin_of(0.5, "4", 0.0, 1.0)
streamstats.Histogram.from_counts("abc")
"""


def test_stub_of_static_and_class_methods_constants_and_enums(ss_stub_dir, tmp_path):
    """MAX_BINS is an int constant, Scale an IntEnum class, edges' enum default is its
    member; bin_of is a @staticmethod (no self) and from_counts a @classmethod returning
    Self (a subclass's call types as the subclass)."""
    text = (ss_stub_dir / "streamstats.pyi").read_text()
    assert "\nMAX_BINS: int\n" in text
    assert "\nclass Scale(IntEnum):\n" in text and "    LINEAR = 0\n    LOG = 1\n" in text
    assert (
        "\ndef edges(bins: int, lo: float, hi: float, scale: Scale = Scale.LINEAR) -> list[float]:"
        in text
    )
    assert "\n    @staticmethod\n    def bin_of(v: float, bins: int, lo: float, hi: float)" in text
    assert "\n    @classmethod\n    def from_counts(cls, counts: _Tensor | list[int]" in text
    assert "lo: float = 0.0, hi: float = 1.0) -> Self:" in text
    if why_unpinned("mypy") is not None:  # the text checked; mypy has no wheel here (3.13t)
        pytest.skip(f"the stub's text checked; mypy's checks not run: {why_unpinned('mypy')}")
    r = _mypy(ss_stub_dir, SS_CLASSLEVEL_GOOD, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    r = _mypy(ss_stub_dir, SS_CLASSLEVEL_BAD, tmp_path)
    lines = _error_lines(r)
    assert lines == {4, 5, 6, 7, 8}, r.stdout
    assert '"type[Scale]" has no attribute "CUBIC"' in r.stdout
    assert 'Argument 4 to "edges" has incompatible type "str"; expected "Scale"' in r.stdout


SS_VAR_GOOD = """
import streamstats

a = streamstats.Histogram(4)
m: streamstats.Histogram = streamstats.merged(a, streamstats.Histogram(4), a)
m = streamstats.merged(*[a, a])
a.set_tags(site="a", run="7")
a.set_tags(**{"k": "v"})
tags: dict[str, str] = a.tags
"""

SS_VAR_BAD = """
import streamstats

a = streamstats.Histogram(4)
streamstats.merged(a, 3)
a.set_tags(run=7)
a.tags = {}
n: int = streamstats.merged(a)
"""


def test_stub_of_args_and_kwargs(ss_stub_dir, tmp_path):
    """*args and **kwargs are annotated per element, as Python's stubs write them
    (*hists: Histogram, **tags: str); tags is a read-only property."""
    text = (ss_stub_dir / "streamstats.pyi").read_text()
    assert "\ndef merged(*hists: Histogram) -> Histogram:\n" in text
    assert "\n    def set_tags(self, **tags: str) -> None:\n" in text
    assert "@property\n    def tags(self) -> dict[str, str]:" in text
    assert "@tags.setter" not in text
    if why_unpinned("mypy") is not None:  # the text checked; mypy has no wheel here (3.13t)
        pytest.skip(f"the stub's text checked; mypy's checks not run: {why_unpinned('mypy')}")
    r = _mypy(ss_stub_dir, SS_VAR_GOOD, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    r = _mypy(ss_stub_dir, SS_VAR_BAD, tmp_path)
    lines = _error_lines(r)
    assert lines == {5, 6, 7, 8}, r.stdout
    assert 'Argument 2 to "merged" has incompatible type "int"; expected "Histogram"' in r.stdout
    assert 'Argument "run" to "set_tags" of "Histogram" has incompatible type "int"' in r.stdout
    assert 'Property "tags" defined in "Histogram" is read-only' in r.stdout


SS_DTYPE_GOOD = """
from typing import assert_type

import godlpack
import numpy as np
import torch
import streamstats

f32 = np.ones(3, np.float32)
f64 = np.ones(3)
i64 = np.ones(3, np.int64)
assert_type(streamstats.total(f32), float)
assert_type(streamstats.total(f64), float)
assert_type(streamstats.total(i64), int)
assert_type(streamstats.total(torch.ones(3)), float | int)
assert_type(streamstats.total(godlpack.asarray([1.0])), float | int)
assert_type(streamstats.total(f64.__dlpack__()), float | int)
"""

SS_DTYPE_BAD = """
import numpy as np
import streamstats

streamstats.total("x")
n: str = streamstats.total(np.ones(3, np.float32))
streamstats.total()
"""


def test_stub_of_an_overload_set_on_dtypes(ss_stub_dir, tmp_path):
    """total's three alternatives differ only in their tensor's dtype, which a tensor's
    static type carries for NumPy alone: an @overload per alternative taking NumPy arrays
    of its dtype (in the order a call tries them), then one taking any tensor and
    returning the union of their results; mypy finds no overload that can never match."""
    text = (ss_stub_dir / "streamstats.pyi").read_text()
    for dt, result in [("float32", "float"), ("float64", "float"), ("int64", "int")]:
        want = (
            f"\n@overload\ndef total(x: numpy.ndarray[Any, numpy.dtype[numpy.{dt}]]) -> {result}:"
        )
        assert want in text
    assert "\n@overload\ndef total(x: _Tensor) -> float | int:\n" in text
    assert text.count("def total(") == 4 and "\nimport numpy  # type: ignore" in text
    assert "\n@overload\ndef clip(x: _Tensor, lo: float, hi: float) -> None:\n" in text  # as it was
    if why_unpinned("mypy") is not None:  # the text checked; mypy has no wheel here (3.13t)
        pytest.skip(f"the stub's text checked; mypy's checks not run: {why_unpinned('mypy')}")
    r = _mypy(ss_stub_dir, SS_DTYPE_GOOD, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    r = _mypy(ss_stub_dir, SS_DTYPE_BAD, tmp_path)
    lines = _error_lines(r)
    assert lines == {5, 6, 7}, r.stdout
    assert 'No overload variant of "total" matches argument type "str"' in r.stdout
    assert "streamstats.pyi" not in r.stdout  # the stub itself is clean


SS_PROTOCOLS_GOOD = """
from typing import assert_type
import copy
import itertools

import streamstats

h = streamstats.Histogram(4)
for left, right, count in h:
    assert_type(left, float)
    assert_type(count, int)
assert_type(next(iter(h)), tuple[float, float, int])
firsts: list[tuple[float, float, int]] = list(itertools.islice(iter(h), 2))
view: memoryview = memoryview(h)
raw: bytes = bytes(h)
twin: streamstats.Histogram = copy.deepcopy(h)
state: tuple[object, ...] = h.__getstate__()
total: streamstats.Histogram = h + streamstats.Histogram(4)
first: int = h[0]
same: bool = h == h and h != 3
"""

SS_PROTOCOLS_BAD = """
import streamstats

h = streamstats.Histogram(4)
for left, right in h:
    pass
s: str = next(iter(h))[2]
memoryview(streamstats.edges(2, 0.0, 1.0))
h + 1
h["x"]
"""


def test_stub_of_the_protocols(ss_stub_dir, tmp_path):
    """iter(h) iterates over (left_edge, right_edge, count) tuples: the Go iter.Seq[Bin]'s
    struct fields, typed; memoryview(h) and bytes(h) take h, a Buffer (PEP 688's
    __buffer__), and refuse a list; Pickle's __getstate__ and __setstate__; the operators
    (h + h, h[i], ==) typed and misuse reported; __hash__ None, as at run time (mypy's
    hash() takes any object: it reports nothing for hash(h))."""
    text = (ss_stub_dir / "streamstats.pyi").read_text()
    assert "def __iter__(self) -> Iterator[tuple[float, float, int]]:" in text
    assert "def __buffer__(self, flags: int, /) -> memoryview: ..." in text
    assert "def __getstate__(self) -> tuple[Any, ...]:" in text
    assert "def __setstate__(self, state: tuple[Any, ...], /) -> None: ..." in text
    assert "def __eq__(self, other: object) -> bool:" in text
    assert "__hash__: ClassVar[None]" in text
    assert "def __add__(self, other: Histogram) -> Histogram:" in text
    assert "def __getitem__(self, i: int) -> int:" in text
    if why_unpinned("mypy") is not None:  # the text checked; mypy has no wheel here (3.13t)
        pytest.skip(f"the stub's text checked; mypy's checks not run: {why_unpinned('mypy')}")
    r = _mypy(ss_stub_dir, SS_PROTOCOLS_GOOD, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    r = _mypy(ss_stub_dir, SS_PROTOCOLS_BAD, tmp_path)
    lines = _error_lines(r)
    assert lines == {5, 7, 8, 9, 10}, r.stdout


# every streamstats name, used correctly: mypy --strict reports nothing
SS_ALL_GOOD = """
import copy
import pickle
from typing import Any, assert_type

import numpy as np
import numpy.typing as npt
import torch
import godlpack
import streamstats

n: int = streamstats.MAX_BINS
mode: streamstats.Scale = streamstats.Scale.LOG
e: list[float] = streamstats.edges(4, 1.0, 2.0, scale=streamstats.Scale.LOG)
h = streamstats.Histogram(4, hi=2.0)
h.add(np.zeros(3))
h.merge(streamstats.Histogram.from_counts([1, 2, 3, 4], lo=0.0, hi=2.0))
i: int = streamstats.Histogram.bin_of(0.5, 4, 0.0, 1.0)
for left, right, count in h:
    assert_type(count, int)
view: memoryview = memoryview(h)
twin: streamstats.Histogram = pickle.loads(pickle.dumps(h))
same: bool = copy.copy(h) == h
both: streamstats.Histogram = h + h
first: int = h[0]
m: streamstats.Histogram = streamstats.merged(h, h)
h.set_tags(unit="s")
tags: dict[str, str] = h.tags
t: float | int = streamstats.total(np.ones(3))
try:
    h.quantile(0.5)
except streamstats.EmptyError as err:
    assert_type(err, streamstats.EmptyError)
    v: ValueError = err
ys: list[float] = streamstats.clip([0.5, 3.0], 0, 1)
assert_type(streamstats.scale(np.ones(3), 2.0), np.ndarray[Any, Any])
assert_type(streamstats.scale(torch.ones(3), 2.0), torch.Tensor)
reveal_type(streamstats.scale(torch.ones(3), 2.0))
a: godlpack.Array = streamstats.scale(godlpack.asarray([1.0]), 2.0)
counts: npt.NDArray[np.int64] = h.counts()
rows: npt.NDArray[np.float64] = streamstats.apply_rows(np.ones((2, 2)), lambda i, r: float(r.sum()))
tr: torch.Tensor = streamstats.apply_rows(torch.ones(2, 2, dtype=torch.float64), lambda i, r: 0.0)
d: dict[str, object] = streamstats.moments(np.ones(2), center=False)
"""

# one misuse a line, from line 7 on: mypy --strict reports each
SS_ALL_BAD = """
from typing import Any

import numpy as np
import streamstats

h = streamstats.Histogram("10")
streamstats.apply_rows(np.ones((2, 2)), lambda row: 0.0)
streamstats.total("x")
streamstats.Scale.CUBIC
h.tags = {}
f32: np.ndarray[Any, np.dtype[np.float32]] = h.counts()
"""


def test_mypy_strict_on_every_streamstats_name(ss_stub_dir, tmp_path):
    """The stub of examples/streamstats types every name: an ExceptionFor class is a class
    of its base (except streamstats.EmptyError); ResultLike's result is in the argument's
    framework (numpy.ndarray for NumPy, torch.Tensor for PyTorch, through @overloads) and
    ResultIn(NumPy)'s a numpy.ndarray (of int64 for h.counts(), a Go []int64: a float32
    array annotation is an error); a Go func parameter is a Callable of its signature, so
    a callback of the wrong arity is an error."""
    text = (ss_stub_dir / "streamstats.pyi").read_text()
    assert "\nclass EmptyError(ValueError):\n" in text
    ndarray = "numpy.ndarray[Any, Any]"
    assert f"\n@overload\ndef scale(x: {ndarray}, k: float) -> {ndarray}:  # type: ignore" in text
    assert "\n@overload\ndef scale(x: torch.Tensor, k: float) -> torch.Tensor:  # type: i" in text
    assert "\n@overload\ndef scale(x: _Tensor, k: float) -> Array:" in text
    # a []int64 result in NumPy: its dtype is in its type (an int64 array is not a float32 one)
    assert "def counts(self) -> numpy.ndarray[Any, numpy.dtype[numpy.int64]]:" in text
    # a callback's tensor arguments are in the function's framework too (ResultLike)
    assert (
        f"\n@overload\ndef apply_rows(x: {ndarray}, fn: Callable[[int, {ndarray}], float]) -> "
        "numpy.ndarray[Any, numpy.dtype[numpy.float64]]:  # type: ignore" in text
    )
    assert (
        "def apply_rows(x: torch.Tensor, fn: Callable[[int, torch.Tensor], float]) -> torch.Te"
        in text
    )
    assert "def apply_rows(x: _Tensor, fn: Callable[[int, Array], float]) -> Array:" in text
    assert "\nimport torch  # type: ignore[import-not-found, unused-ignore]\n" in text
    if why_unpinned("mypy") is not None:  # the text checked; mypy has no wheel here (3.13t)
        pytest.skip(f"the stub's text checked; mypy's checks not run: {why_unpinned('mypy')}")
    r = _mypy(ss_stub_dir, SS_ALL_GOOD, tmp_path)
    notes = [line for line in r.stdout.splitlines() if ": error:" in line]
    assert notes == [], r.stdout + r.stderr
    assert 'Revealed type is "torch._tensor.Tensor"' in r.stdout
    r = _mypy(ss_stub_dir, SS_ALL_BAD, tmp_path)
    lines = _error_lines(r)
    assert lines == {7, 8, 9, 10, 11, 12}, r.stdout
    assert "streamstats.pyi" not in r.stdout  # the stub itself is clean


def test_docstrings_start_with_a_typed_signature():
    """help(streamstats.Histogram) and every function's docstring start with a typed
    signature line (as nanobind's do), an overload set's a line per alternative, while
    __text_signature__ (CPython's "name(...)\\n--\\n\\n" head, no annotations) keeps
    inspect.signature working."""
    ss = load("streamstats")
    first = {n: getattr(ss, n).__doc__.splitlines()[0] for n in ("edges", "scale", "apply_rows")}
    assert first["edges"] == (
        "edges(bins: int, lo: float, hi: float, scale: Scale = Scale.LINEAR) -> list[float]"
    )
    assert first["scale"].startswith("scale(x: SupportsDLPack[float32 | float64], k: float) -> ")
    assert "numpy.ndarray | torch.Tensor" in first["scale"]
    assert first["apply_rows"].startswith("apply_rows(x: SupportsDLPack[float64], fn: Callable[[")
    assert ss.edges.__text_signature__ == "(bins, lo, hi, scale=Scale.LINEAR)"
    total = ss.total.__doc__.splitlines()
    assert total[:3] == [
        "total(x: SupportsDLPack[float32]) -> float",
        "total(x: SupportsDLPack[float64]) -> float",
        "total(x: SupportsDLPack[int64]) -> int",
    ]
    assert str(inspect.signature(ss.total)) == "(*args, **kwargs)"
    h = ss.Histogram
    assert h.__doc__.splitlines()[0] == "Histogram(bins: int, lo: float = 0.0, hi: float = 1.0)"
    assert str(inspect.signature(h)) == "(bins, lo=0.0, hi=1.0)"
    assert h.counts.__doc__.splitlines()[0] == (
        "counts(self) -> numpy.ndarray[dtype=int64, shape=(*)]"
    )
    assert h.from_counts.__doc__.startswith("from_counts(cls, counts: ")
    assert str(inspect.signature(h.add)) == "(self, x)"
    text = pydoc.render_doc(h, renderer=pydoc.plaintext)
    assert "Histogram(bins: int, lo: float = 0.0, hi: float = 1.0)" in text
    assert "quantile(self, q: float) -> float" in text
    for name in dir(ss):  # every function's
        f = getattr(ss, name)
        if callable(f) and not isinstance(f, type) and f.__doc__:
            assert f.__doc__.startswith(name + "("), (name, f.__doc__)


@needs_mypy
def test_a_framework_not_installed_is_any(ss_stub_dir, tmp_path):
    """Where a framework a stub names is not installed at type-check time (here: the
    stub's torch made a module that does not exist), its import error is ignored and its
    arrays are Any: the stub stays clean and correct code still type checks."""
    text = (ss_stub_dir / "streamstats.pyi").read_text()
    absent = text.replace("import torch ", "import no_such_framework ")
    absent = absent.replace("torch.Tensor", "no_such_framework.Tensor")
    assert "no_such_framework.Tensor, k: float) -> no_such_framework.Tensor:" in absent
    stub_dir = tmp_path / "absent"
    stub_dir.mkdir()
    (stub_dir / "streamstats.pyi").write_text(absent)
    use = """
import torch
import streamstats

reveal_type(streamstats.scale(torch.ones(3), 2.0))
"""
    r = _mypy(stub_dir, use, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert 'Revealed type is "Any"' in r.stdout, r.stdout
