"""Type stubs for godlpack._godlpack, the extension module written in Go
(internal/arraymodule: module.c, array_type.c and the cgo binding). The docstrings live in
the extension itself: ``help(godlpack.Array.__dlpack__)``.

Only type checkers read this file, so it may name ``typing_extensions``: mypy and
pyright bundle its stubs, and nothing here is imported at run time. ``CapsuleType``
is ``types.CapsuleType`` on Python >= 3.13 and a stand-in class before, the same type
NumPy's stubs give ``ndarray.__dlpack__``, so an Array satisfies NumPy's
``from_dlpack`` protocol and NumPy's capsules are accepted by ``from_dlpack`` here.
"""

from collections.abc import Iterator, Sequence
from types import EllipsisType
from typing import (
    Any,
    ClassVar,
    Final,
    Literal,
    Protocol,
    Self,
    SupportsComplex,
    SupportsFloat,
    SupportsIndex,
    TypeAlias,
    TypedDict,
    final,
    overload,
    type_check_only,
)

from typing_extensions import Buffer, CapsuleType

from ._types import DLDeviceType
from ._types import dtype as _dtype

DLPACK_MAJOR_VERSION: Final[int]
DLPACK_MINOR_VERSION: Final[int]

# ---- argument and result types ----------------------------------------------------

#: A Python scalar as an element reads back: bool, int, float or complex by dtype kind.
_Scalar: TypeAlias = bool | int | float | complex
#: What tolist() returns: a scalar for a 0-d array, else nested lists of scalars.
_NestedList: TypeAlias = _Scalar | list[_NestedList]
#: A value an element can be set from: Python numbers and NumPy/ml_dtypes scalars.
_ScalarLike: TypeAlias = (
    bool | int | float | complex | SupportsIndex | SupportsFloat | SupportsComplex
)
#: A real number (arange's start, stop and step).
_RealLike: TypeAlias = int | float | SupportsIndex | SupportsFloat
#: Nested lists/tuples of scalars.
_NestedSequence: TypeAlias = Sequence[_ScalarLike | _NestedSequence]
#: What asarray() copies from (and what __setitem__ assigns): another Array, a
#: buffer-protocol object (NumPy arrays, bytes, array.array, memoryview...), nested
#: lists/tuples of scalars, or one scalar.
_ArrayLike: TypeAlias = Array | _SupportsDLPack | Buffer | _NestedSequence | _ScalarLike
#: A shape: one int or a tuple/list of ints.
_ShapeLike: TypeAlias = SupportsIndex | tuple[SupportsIndex, ...] | list[SupportsIndex]

@type_check_only
class _HasName(Protocol):
    @property
    def name(self) -> str: ...

#: A dtype: a godlpack.dtype or its name ('float32'), the Python types bool, int,
#: float and complex, a NumPy/ml_dtypes dtype (its .name) or scalar type (its __name__).
_DTypeLike: TypeAlias = str | type[Any] | _HasName

#: One index of basic indexing.
_Index1: TypeAlias = SupportsIndex | slice | EllipsisType | None
_Index: TypeAlias = _Index1 | tuple[_Index1, ...]

@type_check_only
class _SupportsDLPack(Protocol):
    # from_dlpack calls __dlpack__(max_version=(1, 3)[, dl_device=..., copy=...]) and
    # retries with no arguments for producers older than max_version, so any
    # __dlpack__ callable without arguments qualifies (NumPy, PyTorch, JAX, TVM-FFI).
    def __dlpack__(self, /) -> CapsuleType: ...

@type_check_only
class _Flags(TypedDict):
    readonly: bool
    is_copied: bool
    c_contiguous: bool
    owndata: bool
    subbyte_padded: bool

# ---- the Array type ---------------------------------------------------------------

@final
class Array:
    # The DLPack C exchange API (DLPack v1.3): a PyCapsule named "dlpack_exchange_api",
    # and the same table's address as an int under the name used before the rename.
    __dlpack_c_exchange_api__: ClassVar[CapsuleType]
    __c_dlpack_exchange_api__: ClassVar[int]

    def __new__(cls, obj: _ArrayLike, dtype: _DTypeLike | None = None) -> Self: ...
    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def strides(self) -> tuple[int, ...]: ...
    @property
    def dtype(self) -> _dtype: ...
    @property
    def ndim(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def itemsize(self) -> int: ...
    @property
    def nbytes(self) -> int: ...
    @property
    def readonly(self) -> bool: ...
    @property
    def flags(self) -> _Flags: ...
    @property
    def data_ptr(self) -> int: ...
    def __dlpack__(
        self,
        /,
        *,
        stream: None = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> CapsuleType: ...
    def __dlpack_device__(self, /) -> tuple[DLDeviceType, int]: ...
    def tolist(self, /) -> _NestedList: ...
    # Any, as numpy.ndarray.item: the dtype is not known statically, and the point of
    # item() is `x: float = a.item()` type checking where a[0, 0] (a union) cannot.
    def item(self, /, *index: SupportsIndex | tuple[SupportsIndex, ...]) -> Any: ...
    def copy(self, /) -> Array: ...
    @overload
    def reshape(self, shape: tuple[SupportsIndex, ...] | list[SupportsIndex], /) -> Array: ...
    @overload
    def reshape(self, *shape: SupportsIndex) -> Array: ...
    def toreadonly(self, /) -> Array: ...
    # Truth and Python scalars like NumPy: bool() needs exactly one element,
    # float/int/complex() one element, operator.index() a 0-d integer array.
    def __bool__(self) -> bool: ...
    def __float__(self) -> float: ...
    def __int__(self) -> int: ...
    def __complex__(self, /) -> complex: ...
    def __index__(self) -> int: ...
    # NumPy's __array__ (NumPy 2 semantics); the PEP 3118 buffer protocol is a C slot
    # (memoryview(a)), which type checkers see as __buffer__ from Python 3.12 on.
    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Any: ...
    # Pickling (protocols 2-5, out of band with 5) and copying (godlpack/_pickling.py).
    def __reduce_ex__(self, protocol: SupportsIndex, /) -> tuple[Any, ...]: ...
    def __copy__(self) -> Array: ...
    def __deepcopy__(self, memo: dict[int, Any]) -> Array: ...
    def _bytes(self, /) -> Array: ...
    def _bits_as(self, dtype: _DTypeLike, /) -> Array: ...
    def _keep(self, /) -> Any: ...
    def __len__(self) -> int: ...
    # Iterating walks the first axis: Arrays, or scalars for a 1-d array.
    def __iter__(self) -> Iterator[Array | _Scalar]: ...
    # Indexing with ints only gives a scalar when every axis is indexed, else a view;
    # a slice, ... or None anywhere always gives a view (an Array sharing memory).
    @overload
    def __getitem__(self, key: slice | EllipsisType | None, /) -> Array: ...
    @overload
    def __getitem__(  # type: ignore[overload-overlap]  # ints only: depends on ndim
        self, key: SupportsIndex | tuple[SupportsIndex, ...], /
    ) -> Array | _Scalar: ...
    @overload
    def __getitem__(self, key: tuple[_Index1, ...], /) -> Array: ...
    def __setitem__(self, key: _Index, value: _ArrayLike, /) -> None: ...

# ---- module functions -------------------------------------------------------------

def empty(shape: _ShapeLike, dtype: _DTypeLike | None = "float32") -> Array: ...
def zeros(shape: _ShapeLike, dtype: _DTypeLike | None = "float32") -> Array: ...
def ones(shape: _ShapeLike, dtype: _DTypeLike | None = "float32") -> Array: ...
def full(shape: _ShapeLike, fill_value: _ScalarLike, dtype: _DTypeLike | None = None) -> Array: ...
def arange(
    start: _RealLike,
    stop: _RealLike | None = None,
    step: _RealLike = 1,
    dtype: _DTypeLike | None = None,
) -> Array: ...
def asarray(
    obj: _ArrayLike,
    /,
    *,
    dtype: _DTypeLike | None = None,
    device: Literal["cpu"] | tuple[int, int] | None = None,
    copy: bool | None = None,
) -> Array: ...
def from_dlpack(
    x: _SupportsDLPack | CapsuleType,
    /,
    *,
    device: Literal["cpu"] | tuple[int, int] | None = None,
    copy: bool | None = None,
) -> Array: ...

# ---- internal: for the package's __init__, tests and benchmarks --------------------

def _live_allocations() -> int: ...
def _wrap_buffer(
    buffer: Buffer,
    dtype: _DTypeLike,
    shape: tuple[SupportsIndex, ...],
    strides: tuple[SupportsIndex, ...] | None = None,
    offset: SupportsIndex = 0,
    readonly: bool = False,
    keep: object = None,
    own_bytes: bool = False,
) -> Array: ...
def _set_device_enum(e: type[DLDeviceType], /) -> None: ...
def _set_dtypes(dtypes: tuple[_dtype, ...], /) -> None: ...
def _dtype_table() -> tuple[tuple[str, int, int, int], ...]: ...
def _before_fork() -> None: ...
def _after_fork_parent() -> None: ...
def _after_fork_child() -> None: ...
def _noop_c() -> None: ...
def _noop_go() -> None: ...
