"""Every way to call godlpack wrongly, each with the exact exception type and a fragment
of its message: __dlpack__'s keywords (array API standard), constructors, indexing and
assignment."""

from __future__ import annotations

import re

import godlpack as g
import pytest


def vec():
    return g.arange(10)


def mat():
    return g.zeros((2, 3))


def scalar0d():
    return g.asarray(1.0)


def readonly():
    return g.arange(4).toreadonly()


def nested(depth):
    x = 0
    for _ in range(depth):
        x = [x]
    return x


def _setitem(a, key, value):
    a[key] = value


def _delitem(a, key):
    del a[key]


# (id, call, exact exception type, message fragment)
BAD = [
    # ---- __dlpack__: keyword-only arguments, CPU-only stream, version and device pairs
    ("dlpack-positional", lambda: vec().__dlpack__(None), TypeError,
     "takes no positional arguments"),
    ("dlpack-positional-two", lambda: vec().__dlpack__(None, (1, 0)), TypeError,
     "keyword-only"),
    ("dlpack-stream-1", lambda: vec().__dlpack__(stream=1), ValueError,
     "stream must be None"),
    ("dlpack-stream-minus-1", lambda: vec().__dlpack__(stream=-1), ValueError,
     "stream must be None"),
    ("dlpack-stream-0", lambda: vec().__dlpack__(stream=0), ValueError,
     "stream must be None"),
    ("dlpack-max-version-str", lambda: vec().__dlpack__(max_version="x"), TypeError,
     "max_version must be None or a (major, minor) tuple of ints"),
    ("dlpack-max-version-1-tuple", lambda: vec().__dlpack__(max_version=(1,)), TypeError,
     "max_version must be None or a (major, minor) tuple of ints"),
    ("dlpack-max-version-str-minor", lambda: vec().__dlpack__(max_version=(1, "a")),
     TypeError, "max_version must be None or a (major, minor) tuple of ints"),
    ("dlpack-max-version-3-tuple", lambda: vec().__dlpack__(max_version=(1, 0, 0)),
     TypeError, "max_version must be None"),
    ("dlpack-max-version-list", lambda: vec().__dlpack__(max_version=[1, 0]), TypeError,
     "max_version must be None"),
    ("dlpack-dl-device-cuda", lambda: vec().__dlpack__(dl_device=(2, 0)), BufferError,
     "cannot export to device (2, 0)"),
    ("dlpack-dl-device-cpu-1", lambda: vec().__dlpack__(dl_device=(1, 1)), BufferError,
     "cannot export to device (1, 1)"),
    ("dlpack-dl-device-str", lambda: vec().__dlpack__(dl_device="cpu"), TypeError,
     "dl_device must be None or a (device_type, device_id) tuple of ints"),
    ("dlpack-dl-device-1-tuple", lambda: vec().__dlpack__(dl_device=(1,)), TypeError,
     "dl_device must be None"),
    ("dlpack-copy-str", lambda: vec().__dlpack__(copy="yes"), TypeError,
     "copy must be True, False or None"),
    ("dlpack-copy-int", lambda: vec().__dlpack__(copy=1), TypeError,
     "copy must be True, False or None"),
    ("dlpack-unknown-keyword", lambda: vec().__dlpack__(foo=1), TypeError,
     "unexpected keyword argument 'foo'"),
    ("dlpack-readonly-legacy", lambda: readonly().__dlpack__(), BufferError,
     "read-only array cannot be exported as a legacy 'dltensor' capsule"),
    ("dlpack-readonly-version-0", lambda: readonly().__dlpack__(max_version=(0, 9)),
     BufferError, "read-only"),
    ("dlpack-device-with-arg", lambda: vec().__dlpack_device__(1), TypeError,
     "takes no arguments"),
    # ---- constructors: shapes
    ("shape-negative", lambda: g.zeros((-1, 2)), ValueError,
     "negative dimensions are not allowed"),
    ("shape-negative-int", lambda: g.empty(-3), ValueError, "negative dimensions"),
    ("shape-float-entry", lambda: g.zeros((1.0, 2)), TypeError,
     "shape entry must be an integer, not float"),
    ("shape-float", lambda: g.ones(2.0), TypeError,
     "shape must be an int or a tuple of ints, not float"),
    ("shape-str", lambda: g.full("3", 1), TypeError, "shape must be an int or a tuple"),
    ("shape-too-many-dims", lambda: g.zeros((1,) * 65), ValueError,
     "65 dimensions; at most 64 are supported"),
    ("nested-too-deep", lambda: g.asarray(nested(65)), ValueError,
     "deeper than 64 dimensions"),
    ("shape-elements-overflow", lambda: g.zeros((2**40, 2**40)), ValueError,
     "array is too big"),
    ("shape-bytes-overflow", lambda: g.zeros(2**62, dtype="float32"), ValueError,
     "array is too big"),
    ("shape-entry-over-int64", lambda: g.zeros(2**63), OverflowError,
     "does not fit in int64"),
    ("shape-unallocatable", lambda: g.empty(2**50), MemoryError, "cannot allocate"),
    # ---- constructors: dtypes and arguments
    ("dtype-unknown", lambda: g.zeros(2, dtype="float128"), TypeError,
     "data type 'float128' not understood"),
    ("dtype-unknown-asarray", lambda: g.asarray([1], dtype="int4"), TypeError,
     "data type 'int4' not understood"),
    ("dtype-not-a-type", lambda: g.zeros(2, dtype=dict), TypeError,
     "data type <class 'dict'> not understood"),
    ("missing-shape", lambda: g.zeros(), TypeError, "missing required argument 'shape'"),
    ("missing-obj", lambda: g.Array(), TypeError, "missing required argument 'obj'"),
    ("too-many-args", lambda: g.zeros(2, "float32", 3), TypeError,
     "takes at most 2 arguments (3 given)"),
    ("unknown-kwarg", lambda: g.ones(2, foo=1), TypeError,
     "unexpected keyword argument 'foo'"),
    ("duplicate-arg", lambda: g.zeros(2, shape=3), TypeError,
     "multiple values for argument 'shape'"),
    ("subclass", lambda: type("Sub", (g.Array,), {}), TypeError,
     "not an acceptable base type"),
    # ---- values that do not fit
    ("full-complex-into-float32", lambda: g.full(3, 1 + 2j, dtype="float32"), TypeError,
     "cannot store complex value in float32 array"),
    ("full-int-out-of-range", lambda: g.full(2, 300, dtype="uint8"), OverflowError,
     "Python integer 300 out of bounds for uint8"),
    ("asarray-int-out-of-range", lambda: g.asarray([1, 300], dtype="uint8"), OverflowError,
     "Python integer 300 out of bounds for uint8"),
    ("asarray-negative-into-uint", lambda: g.asarray([-1], dtype="uint16"), OverflowError,
     "Python integer -1 out of bounds for uint16"),
    ("asarray-int8-overflow", lambda: g.asarray([128], dtype="int8"), OverflowError,
     "Python integer 128 out of bounds for int8"),
    ("asarray-beyond-uint64", lambda: g.asarray(2**64), OverflowError,
     "Python integer 18446744073709551616 out of bounds"),
    ("asarray-inf-into-int", lambda: g.asarray([float("inf")], dtype="int32"), OverflowError,
     "cannot convert float infinity to integer"),
    ("asarray-nan-into-int", lambda: g.asarray([float("nan")], dtype="int8"), ValueError,
     "cannot convert float NaN to integer"),
    ("asarray-inhomogeneous", lambda: g.asarray([[1, 2], [3]]), ValueError,
     "inhomogeneous shape"),
    ("asarray-inhomogeneous-scalar", lambda: g.asarray([[1, 2], 3]), ValueError,
     "inhomogeneous shape"),
    ("asarray-str", lambda: g.asarray(["a"]), TypeError, "expected a number, got str"),
    ("asarray-none", lambda: g.asarray(None), TypeError, "expected a number, got NoneType"),
    ("full-str", lambda: g.full(2, "x"), TypeError, "expected a number, got str"),
    ("arange-zero-step", lambda: g.arange(0, 10, 0), ValueError, "step must not be zero"),
    ("arange-complex", lambda: g.arange(1j), TypeError, "arguments must be real numbers"),
    ("arange-nan", lambda: g.arange(float("nan")), ValueError, "must be finite"),
    # ---- indexing
    ("index-out-of-bounds", lambda: vec()[10], IndexError,
     "index 10 is out of bounds for axis 0 with size 10"),
    ("index-negative-out-of-bounds", lambda: vec()[-11], IndexError,
     "index -11 is out of bounds for axis 0 with size 10"),
    ("index-out-of-bounds-axis1", lambda: mat()[0, 3], IndexError,
     "index 3 is out of bounds for axis 1 with size 3"),
    ("index-huge", lambda: vec()[2**70], IndexError, "index"),
    ("too-many-indices", lambda: mat()[0, 0, 0], IndexError,
     "too many indices for array: array is 2-dimensional, but 3 were indexed"),
    ("index-0d", lambda: scalar0d()[0], IndexError,
     "array is 0-dimensional, but 1 were indexed"),
    ("two-ellipses", lambda: mat()[..., ...], IndexError, "single ellipsis"),
    ("index-str", lambda: vec()["x"], IndexError,
     "only integers, slices (`:`), ellipsis (`...`) and None are valid indices; got str"),
    ("index-float", lambda: vec()[1.0], IndexError, "valid indices; got float"),
    ("index-list", lambda: vec()[[0, 1]], IndexError, "valid indices; got list"),
    ("index-bool", lambda: vec()[True], IndexError, "valid indices; got bool"),
    ("index-out-of-bounds-setitem", lambda: _setitem(vec(), 10, 1), IndexError,
     "index 10 is out of bounds"),
    ("packed-subbyte-unaligned-view", lambda: g.zeros(3, dtype="float4_e2m1fn")[1:],
     ValueError, "cannot make a view of a packed float4_e2m1fn array"),
    # ---- assignment
    ("write-readonly-item", lambda: _setitem(readonly(), 0, 1), ValueError,
     "assignment destination is read-only"),
    ("write-readonly-slice", lambda: _setitem(readonly(), slice(None), [1, 2, 3, 4]),
     ValueError, "assignment destination is read-only"),
    ("setitem-broadcast-mismatch", lambda: _setitem(mat(), slice(None), [1, 2]), ValueError,
     "could not broadcast input array from shape"),
    ("setitem-sequence-into-element", lambda: _setitem(vec(), 0, [1, 2]), ValueError,
     "could not broadcast"),
    ("setitem-out-of-range", lambda: _setitem(g.zeros(2, dtype="uint8"), 0, 300),
     OverflowError, "Python integer 300 out of bounds for uint8"),
    ("setitem-complex-into-float", lambda: _setitem(g.zeros(2), 0, 1j), TypeError,
     "cannot store complex value in float32 array"),
    ("setitem-str", lambda: _setitem(g.zeros(2), 0, "x"), TypeError, "expected a number"),
    ("delitem", lambda: _delitem(vec(), 0), ValueError, "cannot delete array elements"),
    # ---- len, iteration, reshape
    ("len-0d", lambda: len(scalar0d()), TypeError, "len() of a 0-d array"),
    ("iter-0d", lambda: iter(scalar0d()), TypeError, "0-d array"),
    ("reshape-mismatch", lambda: vec().reshape(3, 4), ValueError,
     "cannot reshape array of size 10 into shape"),
    ("reshape-empty-shape", lambda: vec().reshape(()), ValueError,
     "cannot reshape array of size 10"),
    ("reshape-two-unknown", lambda: vec().reshape(-1, -1), ValueError,
     "can only specify one unknown dimension"),
    ("reshape-non-contiguous", lambda: mat()[:, ::2].reshape(4), ValueError,
     "non-contiguous"),
]  # fmt: skip


@pytest.mark.parametrize("call,exc,fragment", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_argument_raises_exact_exception(call, exc, fragment):
    with pytest.raises(BaseException) as info:
        call()
    assert type(info.value) is exc, f"raised {type(info.value).__name__}: {info.value}"
    assert re.search(re.escape(fragment), str(info.value)), str(info.value)


def test_bad_index_error_leaves_no_half_made_view():
    a = g.arange(10)
    with pytest.raises(IndexError):
        a[1:3, 0]
    assert a.tolist() == list(range(10))


def test_failed_readonly_write_leaves_data_unchanged():
    a = g.arange(4)
    r = a.toreadonly()
    with pytest.raises(ValueError):
        r[:] = 0
    assert a.tolist() == [0, 1, 2, 3]


def test_failed_export_leaves_array_usable_and_counts_nothing(live):
    a = g.arange(3).toreadonly()
    for kwargs in ({}, {"stream": 1}, {"dl_device": (2, 0)}, {"copy": "x"}):
        with pytest.raises((BufferError, ValueError, TypeError)):
            a.__dlpack__(**kwargs)
    assert live.delta() == 1  # only a's owner
    assert a.__dlpack__(max_version=(1, 0)) is not None
