"""Pickling and copying of godlpack.Array.

An Array pickles as ``_rebuild(dtype name, shape, readonly, data)`` where data holds
its own elements only (a view pickles what it sees), C-contiguous and packed:

- protocol 5: data is a ``pickle.PickleBuffer`` over the array's memory, so a
  ``buffer_callback`` sends it out of band (Dask, Ray) with no copy, and loading
  wraps whatever buffer comes back without copying (in band: a bytearray);
- protocols 2-4: data is ``bytes`` that only this array will use; loading writes
  into it when it is large, as NumPy does (copies it when small), so a writable
  array stays writable without a second copy.

Loading checks every field against the buffer (``_wrap_buffer``): damaged or
tampered data raises ValueError or TypeError, never reads outside the buffer.
"""

from __future__ import annotations

import pickle
from typing import Any

from . import _godlpack


def reduce_ex(self: Any, protocol: int) -> tuple[Any, ...]:
    """``__reduce_ex__``: see the module docstring."""
    try:
        raw = self._bytes()
    except BufferError:  # strided or padded: a view pickles only its own elements,
        raw = self.copy()._bytes()  # in C order, packed
    if protocol >= 5:
        return (_rebuild, (self.dtype.name, self.shape, self.readonly, pickle.PickleBuffer(raw)))
    in_band = bytes(memoryview(raw))
    return (_rebuild, (self.dtype.name, self.shape, self.readonly, in_band, True))


def _rebuild(
    dtype: str, shape: tuple[int, ...], readonly: bool, data: Any, writable_copy: bool = False
) -> Any:
    """The Array over data (no copy). writable_copy (protocols 2-4): data is bytes
    the unpickler made for this array alone; a writable array takes it over when it
    is large (_wrap_buffer's own_bytes, NumPy's rule) and copies it otherwise."""
    a = _godlpack._wrap_buffer(data, dtype, shape, readonly=readonly, own_bytes=writable_copy)
    if writable_copy and a.readonly and not readonly:
        a = a.copy()
    return a


def copy(self: Any) -> Any:
    """``__copy__``: a writable C-contiguous copy, like ``a.copy()``."""
    return self.copy()


def deepcopy(self: Any, memo: dict[int, Any]) -> Any:
    """``__deepcopy__``: a writable C-contiguous copy (elements hold no references)."""
    return self.copy()
