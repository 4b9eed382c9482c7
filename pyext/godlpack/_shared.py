"""Arrays in shared memory, sent between processes as a handle, not as bytes.

``shared_zeros``/``shared_empty``/``shared_asarray`` put an Array's memory in a memfd
(``os.memfd_create``: anonymous shared memory with no name in /dev/shm). Pickled by
multiprocessing (its ``ForkingPickler``: Process arguments, Pool and
ProcessPoolExecutor arguments and results, Queues, Pipes), such an Array travels as
a duplicate of the memfd's file descriptor (``multiprocessing.reduction.DupFd``: fd
inheritance while spawning, else the sender's resource sharer passes it over a Unix
socket), and the receiver maps the same pages: writes on either side are seen by the
other, and the cost does not depend on the array's size.

Lifetime: the kernel frees a memfd when its last descriptor and last mapping are
gone, and a process killed with SIGKILL closes both, so no segment outlives the last
process using it and nothing is ever left in /dev/shm. Each process keeps one
descriptor and one mapping per segment it holds (``_Segment``), released with the
last Array or view over it. Plain ``pickle`` (Dask, Ray, files) copies the elements
as for any Array: a descriptor means nothing outside the machine's process tree.
"""

from __future__ import annotations

import errno
import math
import mmap
import operator
import os
import pickle
from typing import Any

from . import _godlpack


class _Segment:
    """One memfd mapped in this process: its descriptor (to send it on), its size,
    the mapping, and the address the mapping starts at (to send views as offsets)."""

    __slots__ = ("address", "fd", "map", "size")

    def __init__(self, fd: int, size: int) -> None:
        self.fd = fd
        self.size = size
        self.address = 0
        try:
            self.map = mmap.mmap(fd, max(size, 1))  # MAP_SHARED; mmap refuses length 0
        except BaseException:
            os.close(fd)
            self.fd = -1
            raise

    def __del__(self, _close: Any = os.close) -> None:  # _close: still there at exit
        if self.fd >= 0:
            _close(self.fd)
            self.fd = -1

    def wrap(self, dtype: Any, shape: Any, strides: Any, offset: int, readonly: bool) -> Any:
        """An Array over this segment (it keeps the segment alive)."""
        view = memoryview(self.map)[: self.size]
        a = _godlpack._wrap_buffer(view, dtype, shape, strides, offset, readonly, self)
        self.address = a.data_ptr - offset
        return a


_registered = False


def _register() -> None:
    """Teach multiprocessing's pickler to send shared Arrays as handles. Done on the
    first shared array of a process, so plain Arrays pay no import of multiprocessing."""
    global _registered
    if not _registered:
        from multiprocessing.reduction import ForkingPickler

        ForkingPickler.register(_godlpack.Array, _reduce_for_processes)
        _registered = True


def _reduce_for_processes(a: Any) -> tuple[Any, ...]:
    seg = a._keep()
    if not isinstance(seg, _Segment) or a.flags["subbyte_padded"]:
        return a.__reduce_ex__(pickle.DEFAULT_PROTOCOL)  # not shared: the elements
    from multiprocessing.reduction import DupFd

    handle = (seg.size, a.data_ptr - seg.address, a.dtype.name, a.shape, a.strides, a.readonly)
    return (_rebuild_shared, (DupFd(seg.fd), *handle))


def _rebuild_shared(
    dupfd: Any,
    size: int,
    offset: int,
    dtype: str,
    shape: tuple[int, ...],
    strides: tuple[int, ...],
    readonly: bool,
) -> Any:
    _register()
    return _Segment(dupfd.detach(), size).wrap(dtype, shape, strides, offset, readonly)


def shared_zeros(shape: Any, dtype: Any = "float32") -> Any:
    """A new zero-filled C-contiguous Array in shared memory (see the module doc)."""
    if not hasattr(os, "memfd_create"):
        raise NotImplementedError("shared-memory arrays need os.memfd_create (Linux)")
    dt = _godlpack.empty((0,), dtype).dtype  # the dtype, resolved as empty() does
    try:
        dims: tuple[int, ...] = (operator.index(shape),)
    except TypeError:
        dims = tuple(operator.index(d) for d in shape)
    if any(d < 0 for d in dims):
        raise ValueError(f"negative dimensions are not allowed: {dims}")
    n = math.prod(dims)
    if n * dt.bits >= 2**63:  # element offsets are counted in bits (zeros' rule)
        raise ValueError(f"array is too big: {n} elements of {dt.name} overflow int64 bytes")
    nbytes = (n * dt.bits + 7) // 8
    fd = os.memfd_create("godlpack", os.MFD_CLOEXEC)
    try:
        os.ftruncate(fd, max(nbytes, 1))
    except BaseException:
        os.close(fd)
        raise
    _register()
    try:
        segment = _Segment(fd, nbytes)
    except OSError as e:  # the mapping: more than memory, as zeros' MemoryError
        if e.errno != errno.ENOMEM:
            raise
        raise MemoryError(
            f"cannot map {nbytes} bytes of shared memory for a {dims} {dt.name} array"
        ) from None
    return segment.wrap(dt, dims, None, 0, False)


def shared_empty(shape: Any, dtype: Any = "float32") -> Any:
    """Like shared_zeros (new shared memory is always zero-filled)."""
    return shared_zeros(shape, dtype)


def shared_asarray(obj: Any, dtype: Any = None) -> Any:
    """A copy of obj (anything godlpack.asarray takes) in shared memory."""
    src = _godlpack.asarray(obj, dtype=dtype)  # may share obj: copied below
    if src.flags["subbyte_padded"] or not src.flags["c_contiguous"]:
        src = src.copy()
    out = shared_zeros(src.shape, src.dtype)
    memoryview(out._bytes())[:] = memoryview(src._bytes())
    return out


def is_shared(a: Any) -> bool:
    """True if a's memory is a shared-memory segment (it travels as a handle)."""
    return isinstance(a._keep(), _Segment)
