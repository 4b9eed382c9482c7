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


class dtype(str):  # noqa: N801 - named like numpy.dtype, which it stands in for
    """An element type. It is a ``str`` equal to its name (``"float32"``), and carries
    the DLPack type ``code`` and ``bits``, ``lanes`` (always 1), ``itemsize`` in
    bytes (1 for the packed sub-byte float6/float4 types) and ``kind``."""

    code: int
    bits: int
    lanes: int
    itemsize: int
    kind: str

    def __new__(cls, name: str, code: int, bits: int, kind: int) -> dtype:
        self = super().__new__(cls, name)
        self.code = code
        self.bits = bits
        self.lanes = 1
        self.itemsize = (bits + 7) // 8
        self.kind = _KINDS[kind]
        return self

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
    import godlpack

    for d in godlpack.dtypes:
        if d.name == name:
            return d
    raise ValueError(f"godlpack has no dtype named {name!r}")
