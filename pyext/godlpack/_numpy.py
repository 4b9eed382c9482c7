"""NumPy's ``__array__`` protocol for godlpack.Array (NumPy 2 semantics).

``np.asarray(a)`` reaches the buffer protocol first (internal/arraymodule/array_buffer.c)
for every dtype with a PEP 3118 format; NumPy calls ``__array__`` for the others, and for
explicit ``dtype=``/``copy=`` requests. bfloat16 and the float8 types (and float6/float4 stored
one element per byte) become zero-copy views with ml_dtypes' dtypes when ml_dtypes is
importable; without it, or for packed float6/float4 (ml_dtypes has no packed layout),
a TypeError says so. Nothing walks the array element by element.
"""

from __future__ import annotations

from typing import Any

# Raw unsigned dtype of each storage width, to view bytes NumPy cannot name itself.
_RAW_BY_BITS = {8: "uint8", 16: "uint16"}


def _numpy_view(a: Any) -> Any:
    """A NumPy array over a's memory (zero-copy; read-only stays read-only)."""
    import numpy as np

    if a.dtype.kind != "float" or a.dtype.name in ("float16", "float32", "float64"):
        return np.asarray(memoryview(a))
    name = a.dtype.name
    try:
        import ml_dtypes
    except ImportError:
        raise TypeError(
            f"NumPy has no {name} dtype: install ml_dtypes to view this array zero-copy"
        ) from None
    if a.dtype.bits < 8 and not a.flags["subbyte_padded"]:
        raise TypeError(
            f"packed {name} (two or more elements a byte) has no NumPy layout: "
            "ml_dtypes stores one element per byte"
        )
    raw = a._bits_as(_RAW_BY_BITS[8 if a.dtype.bits < 8 else a.dtype.bits])
    return np.asarray(memoryview(raw)).view(getattr(ml_dtypes, name))


def array(self: Any, dtype: Any = None, copy: bool | None = None) -> Any:
    """``__array__(dtype=None, copy=None)``: a NumPy array of the same elements.

    copy=None shares memory unless a dtype conversion needs a copy; copy=True always
    copies; copy=False never does (ValueError when it would have to)."""
    import numpy as np

    view = _numpy_view(self)
    if dtype is not None and np.dtype(dtype) != view.dtype:
        if copy is False:
            raise ValueError(
                f"converting a {self.dtype.name} godlpack.Array to {np.dtype(dtype)} "
                "needs a copy, and copy=False was given"
            )
        return view.astype(dtype)
    return view.copy() if copy else view


def from_ml_dtypes(obj: Any) -> Any:
    """asarray's import of a NumPy array of an ml_dtypes dtype (bfloat16, float8...,
    float6/float4 one element a byte), which NumPy's ``__dlpack__`` refuses and whose
    buffer has no PEP 3118 code: the same memory viewed as unsigned ints, imported
    through DLPack (any strides, read-only kept), then given the dtype back. None for
    anything else (asarray then goes on as before). Called from asarray_copy.go."""
    import sys

    np = sys.modules.get("numpy")  # obj can only be an ndarray if NumPy is loaded
    if np is None or not isinstance(obj, np.ndarray):
        return None
    scalar = obj.dtype.type
    if getattr(scalar, "__module__", None) != "ml_dtypes" or obj.dtype.byteorder not in "=|":
        return None
    from . import _godlpack
    from ._types import _BY_NAME

    dt = _BY_NAME.get(scalar.__name__)
    raw_name = _RAW_BY_BITS.get(obj.dtype.itemsize * 8)
    if dt is None or raw_name is None:
        return None
    return _godlpack.from_dlpack(obj.view(raw_name))._bits_as(dt)
