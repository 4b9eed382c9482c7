"""Type stubs for the godlpack package.

``__init__.py`` adds the dtype objects (``godlpack.float32``, ...) to the module with
``globals().update``, which a type checker cannot see; this stub declares each of them.
``DLDeviceType`` and ``dtype`` are declared in ``_types.pyi``, so a type checker reads
only stubs for the whole public API.
"""

from typing import Final

from ._godlpack import DLPACK_MAJOR_VERSION as DLPACK_MAJOR_VERSION
from ._godlpack import DLPACK_MINOR_VERSION as DLPACK_MINOR_VERSION
from ._godlpack import Array as Array
from ._godlpack import _live_allocations as _live_allocations
from ._godlpack import arange as arange
from ._godlpack import asarray as asarray
from ._godlpack import empty as empty
from ._godlpack import from_dlpack as from_dlpack
from ._godlpack import full as full
from ._godlpack import ones as ones
from ._godlpack import zeros as zeros
from ._shared import is_shared as is_shared
from ._shared import shared_asarray as shared_asarray
from ._shared import shared_empty as shared_empty
from ._shared import shared_zeros as shared_zeros
from ._types import DLDeviceType as DLDeviceType
from ._types import dtype as dtype

__version__: Final[str]
DLPACK_VERSION: Final[tuple[int, int]]
dtypes: Final[tuple[dtype, ...]]

# The dtypes, one module attribute each (the names of godlpack.dtypes, in table order).
# Note: `bool` here is godlpack.bool, a dtype; this stub uses no builtins.bool.
bool: Final[dtype]
int8: Final[dtype]
int16: Final[dtype]
int32: Final[dtype]
int64: Final[dtype]
uint8: Final[dtype]
uint16: Final[dtype]
uint32: Final[dtype]
uint64: Final[dtype]
float16: Final[dtype]
float32: Final[dtype]
float64: Final[dtype]
bfloat16: Final[dtype]
complex64: Final[dtype]
complex128: Final[dtype]
float8_e3m4: Final[dtype]
float8_e4m3: Final[dtype]
float8_e4m3b11fnuz: Final[dtype]
float8_e4m3fn: Final[dtype]
float8_e4m3fnuz: Final[dtype]
float8_e5m2: Final[dtype]
float8_e5m2fnuz: Final[dtype]
float8_e8m0fnu: Final[dtype]
float6_e2m3fn: Final[dtype]
float6_e3m2fn: Final[dtype]
float4_e2m1fn: Final[dtype]

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
    # every dtype but bool: `from godlpack import *` must not shadow the builtin
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "bfloat16",
    "complex64",
    "complex128",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float4_e2m1fn",
]
