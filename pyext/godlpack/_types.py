"""The small Python-level types of godlpack: DLDeviceType and dtype."""

from __future__ import annotations

import enum


class DLDeviceType(enum.IntEnum):
    """DLPack device types (dlpack.h v1.3, DLDeviceType)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17
    kDLTrn = 18


_KINDS = ("bool", "int", "uint", "float", "complex")

#: godlpack's dtypes by name, and each one's (code, bits, kind index). Filled once
#: at import from the extension's table (dtype._make); read-only after that.
_BY_NAME: dict[str, dtype] = {}
_FIELDS: dict[str, tuple[int, int, int]] = {}


class dtype(str):  # noqa: N801 - named like numpy.dtype, which it stands in for
    """An element type. It is a ``str`` equal to its name (``"float32"``), and carries
    the DLPack type ``code`` and ``bits``, ``lanes`` (always 1), ``itemsize`` in
    bytes (1 for the packed sub-byte float6/float4 types) and ``kind``.

    ``dtype(x)`` is godlpack's dtype for x: a name (``"bfloat16"``), a dtype, a
    NumPy, ml_dtypes or PyTorch dtype (``np.float32``, ``ml_dtypes.bfloat16``,
    ``torch.bfloat16``) or ``bool``/``int``/``float``/``complex``, as every
    ``dtype=`` argument takes them. There is one object per dtype, and it is
    immutable: the fields describe the memory of every array of that dtype.
    ``dtype(name, code, bits, kind)`` checks the fields against godlpack's."""

    __slots__ = ()  # no instance dict: the fields cannot be set

    def __new__(
        cls,
        obj: object,
        code: int | None = None,
        bits: int | None = None,
        kind: int | str | None = None,
    ) -> dtype:
        if obj is None:
            raise TypeError("dtype() needs a dtype or its name (e.g. 'float32'), not None")
        d = _BY_NAME.get(obj) if type(obj) in (str, dtype) else None  # type: ignore[arg-type]
        if d is None:
            # The dtype= rule of every constructor, in one place (constructors.go)
            from . import _godlpack

            d = _godlpack.empty(0, obj).dtype
        given = (code, bits, kind)
        if given != (None, None, None) and not d._has_fields(*given):
            raise ValueError(
                f"dtype{(str(obj), *given)!r} does not describe godlpack's {d.name} "
                f"(code {d.code}, bits {d.bits}, kind {d.kind!r}); "
                f"leave the fields out: dtype({d.name!r})"
            )
        return d

    @classmethod
    def _make(cls, name: str, code: int, bits: int, kind: int) -> dtype:
        """The one dtype object of a row of the extension's table (at import)."""
        self = super().__new__(cls, name)
        _FIELDS[name] = (code, bits, kind)
        _BY_NAME[name] = self
        return self

    def _has_fields(self, code: object, bits: object, kind: object) -> bool:
        c, b, k = _FIELDS[self]
        if isinstance(kind, str):
            kind = _KINDS.index(kind) if kind in _KINDS else -1
        for v in (code, bits, kind):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
                raise TypeError(
                    f"dtype(): code, bits and kind must be ints, not {type(v).__name__}"
                )
        return all(v is None or v == want for v, want in ((code, c), (bits, b), (kind, k)))

    @property
    def code(self) -> int:
        """The DLPack type code (kDLFloat is 2, ...)."""
        return _FIELDS[self][0]

    @property
    def bits(self) -> int:
        """Bits per element."""
        return _FIELDS[self][1]

    @property
    def lanes(self) -> int:
        """DLPack lanes: always 1."""
        return 1

    @property
    def itemsize(self) -> int:
        """Bytes per element (1 for the packed sub-byte float6/float4 types)."""
        return (_FIELDS[self][1] + 7) // 8

    @property
    def kind(self) -> str:
        """'bool', 'int', 'uint', 'float' or 'complex'."""
        return _KINDS[_FIELDS[self][2]]

    @property
    def name(self) -> str:
        """The dtype's name, as a plain str."""
        return str.__str__(self)

    def __repr__(self) -> str:
        return f"dtype('{self.name}')"

    def __reduce__(self) -> tuple[object, tuple[str]]:  # pickles as godlpack's dtype
        return (_dtype_named, (self.name,))


def _dtype_named(name: str) -> dtype:
    """godlpack's dtype of this name (for unpickling); ValueError if there is none."""
    d = _BY_NAME.get(name) if type(name) is str else None
    if d is None:
        raise ValueError(f"godlpack has no dtype named {name!r}")
    return d
