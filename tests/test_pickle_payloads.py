"""Every field of a pickle payload is hostile input.

An Array unpickles through ``_rebuild(dtype, shape, readonly, data[, writable_copy])``
(and shared-memory Arrays through ``_rebuild_shared``), which call ``_wrap_buffer``;
whatever a pickle holds reaches them. A dtype of None used to dereference a nil Go
pointer and abort the interpreter. Each case runs in a child interpreter, so a
regression fails its test instead of killing the run; the answers are the classes
NumPy gives for the same mistakes (TypeError for wrong types, ValueError for wrong
values and sizes).
"""

from __future__ import annotations

import os
import sys

import pytest
from conftest import run_python

HERE = os.path.dirname(os.path.abspath(__file__))


def run_cases(body: str) -> None:
    """Runs body in a child after the common imports; it must print 'ok'."""
    code = (
        "import pickle, godlpack as g, numpy as np\n"
        "from godlpack import _godlpack\n"
        "from godlpack._pickling import _rebuild\n"
        "def raises(exc, f, *args, match=''):\n"
        "    try:\n"
        "        f(*args)\n"
        "    except exc as e:\n"
        "        assert match in str(e), (f, args, e)\n"
        "    else:\n"
        "        raise AssertionError(f'no {exc.__name__}: {f} {args}')\n"
        + body
        + "\nprint('ok')\n"
    )
    proc = run_python(code, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), (
        f"child exited {proc.returncode}\nstdout: {proc.stdout[-2000:]}\n"
        f"stderr: {proc.stderr[-3000:]}"
    )


def test_none_dtype_is_type_error_on_every_entry_point():
    run_cases(
        """
class P:
    def __init__(self, *args): self.args = args
    def __reduce__(self): return (_rebuild, self.args)
for proto in (2, 4, 5):
    raises(TypeError, pickle.loads, pickle.dumps(P(None, (2,), False, bytearray(8)), proto),
           match="dtype must be a dtype or its name, not None")
raises(TypeError, _rebuild, None, (), False, b"")
raises(TypeError, _godlpack._wrap_buffer, b"", None, ())
raises(TypeError, _godlpack._wrap_buffer, bytearray(8), None, (2,), (1,), 0, False, None, True)
raises(TypeError, g.zeros(3)._bits_as, None, match="_bits_as(): dtype")
for dt in g.dtypes:  # and each array the None could land on
    raises(TypeError, g.zeros(2, dtype=dt)._bits_as, None)
"""
    )


def test_each_payload_field_raises_what_numpy_raises():
    run_cases(
        """
good = (g.float32, (2, 2), False, bytearray(16))
def field(i, v):
    args = list(good); args[i] = v
    return args
# dtype
for bad in (0, 3.5, b"float32", object(), ("float32",), "float128", "", "x" * 100000,
            np.dtype("U3")):
    raises(TypeError, _rebuild, *field(0, bad), match="not understood")
# shape: wrong types are TypeError, wrong values ValueError, past int64 OverflowError
for bad in (None, 4, [2, 2], "22", {2: 2}, (2.0, 2), (None,), ([2],)):
    raises(TypeError, _rebuild, *field(1, bad))
for bad in ((-2, -2), (1,) * 65, (3, 3), (2,), (2**62, 2**62), (2**31, 2**31, 4)):
    raises(ValueError, _rebuild, *field(1, bad))
raises(OverflowError, _rebuild, *field(1, (2**64, 1)))
class Boom:
    def __index__(self): raise ZeroDivisionError("boom")
    def __bool__(self): raise ZeroDivisionError("boom")
raises(ZeroDivisionError, _rebuild, *field(1, (Boom(), 2)))  # the object's own error
# readonly
raises(ZeroDivisionError, _rebuild, *field(2, Boom()))
assert _rebuild(*field(2, "yes")).readonly
# data: not a buffer is TypeError, a wrong size ValueError, a strided one BufferError
for bad in (None, 12345, "text" * 4, [0] * 16):
    raises(TypeError, _rebuild, *field(3, bad))
for n in (0, 15, 17, 1 << 16):
    raises(ValueError, _rebuild, *field(3, bytearray(n)), match="needs exactly 16")
raises(BufferError, _rebuild, *field(3, memoryview(bytearray(32))[::2]))
# data of another format or read-only still loads, read-only stays read-only
assert _rebuild(*field(3, memoryview(bytearray(16)).cast("d"))).tolist() == [[0.0, 0.0], [0.0, 0.0]]
assert _rebuild(*field(3, bytes(16))).readonly
assert _rebuild(*field(3, pickle.PickleBuffer(bytes(16)))).readonly
# writable_copy: a raising __bool__ is the object's error, anything else a flag
raises(ZeroDivisionError, _rebuild, *good, Boom())
assert not _rebuild(*good, "x").readonly
# arity
raises(TypeError, _rebuild, *good, True, "extra")
raises(TypeError, _rebuild, g.float32, (2, 2))
# _wrap_buffer's own fields (shared memory and views): strides, offset, keep
wb = _godlpack._wrap_buffer
raises(TypeError, wb, bytearray(16), "float32", (4,), 3, match="strides must be None or a tuple")
raises(ValueError, wb, bytearray(16), "float32", (4,), (1, 1), match="tuple of 1 ints")
raises(ValueError, wb, bytearray(16), "float32", (4,), (2,), match="too small")
raises(ValueError, wb, bytearray(16), "float32", (2,), (-1,), match="too small")
raises(ValueError, wb, bytearray(16), "float32", (4,), (2**62,))
raises(ValueError, wb, bytearray(16), "float32", (4,), (-(2**63),))
raises(OverflowError, wb, bytearray(16), "float32", (4,), (2**63,))
raises(ValueError, wb, bytearray(16), "float32", (4,), None, -1, match="negative offset")
raises(ValueError, wb, bytearray(16), "float32", (1,), None, 2**63 - 1)
raises(TypeError, wb, bytearray(16), "float32", (4,), None, 1.5)
raises(ValueError, wb, bytearray(16), "float4_e2m1fn", (4,), (1,), match="take no strides")
assert wb(bytearray(16), "float32", (2**40,), (0,)).shape == (2**40,)  # broadcast: 4 bytes read
assert wb(bytearray(16), "float32", (3,), (-1,), 8).tolist() == [0.0, 0.0, 0.0]
"""
    )


def test_shared_memory_handles_with_hostile_fields_raise():
    run_cases(
        """
import os
from godlpack._shared import _rebuild_shared
class Fd:
    def __init__(self, fd): self.fd = fd
    def detach(self): return os.dup(self.fd)
fd = os.memfd_create("t", os.MFD_CLOEXEC)
os.ftruncate(fd, 64)
args = (64, 0, "float32", (4,), (1,), False)
def field(i, v):
    a = list(args); a[i] = v
    return (Fd(fd), *a)
assert _rebuild_shared(Fd(fd), *args).tolist() == [0.0] * 4
raises(TypeError, _rebuild_shared, *field(2, None))
raises(ValueError, _rebuild_shared, *field(0, 8), match="too small")          # size lies
raises(ValueError, _rebuild_shared, *field(0, -8), match="too small")
raises((ValueError, OverflowError, OSError), _rebuild_shared, *field(0, 2**40))  # past the file
raises(ValueError, _rebuild_shared, *field(1, 60), match="too small")         # offset lies
raises(ValueError, _rebuild_shared, *field(1, -8), match="negative offset")
raises(TypeError, _rebuild_shared, *field(1, None))
raises(ValueError, _rebuild_shared, *field(4, (100,)), match="too small")
raises(TypeError, _rebuild_shared, *field(4, 1))
raises(TypeError, _rebuild_shared, *field(3, None))
"""
    )


@pytest.mark.parametrize("seed", [19, 20])
def test_fuzzed_payload_fields_raise_or_load_sound_arrays(seed):
    # tests/fuzz_pickle.py: random hostile values in every field of every entry point
    # (tests/fuzz.sh runs it for FUZZTIME).
    proc = run_python(
        f"import sys\nsys.argv = ['fuzz_pickle', '--seconds', '4', '--seed', '{seed}']\n"
        f"sys.path.insert(0, {HERE!r})\nimport warnings\nwarnings.simplefilter('ignore')\n"
        "import fuzz_pickle\nfuzz_pickle.main()",
        timeout=180,
    )
    assert proc.returncode == 0 and "fuzz_pickle ok" in proc.stdout, (
        f"child exited {proc.returncode}\nstdout: {proc.stdout[-2000:]}\n"
        f"stderr: {proc.stderr[-3000:]}"
    )
    assert "loaded" in proc.stdout and "TypeError" in proc.stdout, proc.stdout


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
