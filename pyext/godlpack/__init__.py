"""godlpack: Go-backed n-dimensional arrays that speak DLPack.

``godlpack.Array`` memory is owned by Go (C memory managed by the Go extension)
or borrowed zero-copy from another DLPack producer. Hand an Array to
``numpy.from_dlpack``, ``torch.from_dlpack``, JAX or TVM-FFI with no copy.

Functions: ``from_dlpack`` (import any DLPack producer, zero-copy), ``asarray``,
``empty``, ``zeros``, ``ones``, ``full``, ``arange``; shared memory that travels
between processes as a handle: ``shared_zeros``, ``shared_empty``,
``shared_asarray``, ``is_shared``; types: ``Array``, ``dtype``,
``DLDeviceType``. Module attributes:

DLPACK_VERSION
    The DLPack version godlpack speaks, as ``(major, minor)``.
dtypes
    Every supported dtype, a tuple of ``godlpack.dtype`` in the extension's table
    order. Each is also a module attribute of its name: ``godlpack.float32``,
    ``godlpack.bfloat16``, ``godlpack.float8_e4m3fn``, ...
__version__
    The version of this godlpack, a str.

``python -m godlpack`` runs a demo; ``python -m godlpack info`` prints the versions
of godlpack, DLPack and the installed consumers. Typed: the package ships stubs
(``py.typed``).
"""

from __future__ import annotations

from . import _godlpack, _numpy, _pickling
from ._godlpack import (
    DLPACK_MAJOR_VERSION,
    DLPACK_MINOR_VERSION,
    Array,
    _live_allocations,  # noqa: F401 - for tests: live C allocations
    arange,
    asarray,
    empty,
    from_dlpack,
    full,
    ones,
    zeros,
)
from ._shared import is_shared, shared_asarray, shared_empty, shared_zeros
from ._types import DLDeviceType, dtype
from ._version import __version__

#: The DLPack version godlpack speaks, as (major, minor).
DLPACK_VERSION = (DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION)

#: Every supported dtype, in the extension's table order.
dtypes: tuple[dtype, ...] = tuple(dtype._make(*row) for row in _godlpack._dtype_table())
_godlpack._set_dtypes(dtypes)
_godlpack._set_device_enum(DLDeviceType)
globals().update({d.name: d for d in dtypes})  # godlpack.float32, godlpack.bfloat16, ...

__all__ = [
    "DLPACK_VERSION",
    "Array",
    "DLDeviceType",
    "__version__",
    "arange",
    "asarray",
    "dtype",
    "dtypes",
    "empty",
    "from_dlpack",
    "full",
    "is_shared",
    "ones",
    "shared_asarray",
    "shared_empty",
    "shared_zeros",
    "zeros",
    # every dtype but `bool`: `from godlpack import *` must not shadow the builtin
    # (godlpack.bool stays the dtype)
    *(d.name for d in dtypes if d.name != "bool"),
]

# Protocols written in Python on the C type: NumPy's __array__ (_numpy.py), pickling
# and copying (_pickling.py). The buffer protocol and the scalar slots are C/Go.
Array.__array__ = _numpy.array  # type: ignore[method-assign]
Array.__reduce_ex__ = _pickling.reduce_ex  # type: ignore[method-assign,assignment]
Array.__copy__ = _pickling.copy  # type: ignore[attr-defined]
Array.__deepcopy__ = _pickling.deepcopy  # type: ignore[attr-defined]

# fork support: _godlpack's exec registered its runtime's os.register_at_fork hooks
# (internal/forksafe), as every extension written in Go does for its own runtime.
