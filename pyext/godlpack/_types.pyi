"""Type stubs for godlpack._types (DLDeviceType and dtype).

A stub rather than the module itself, so that a type checker reads only stubs for the
whole public API of godlpack.
"""

import enum
from typing import Literal, Self

class DLDeviceType(enum.IntEnum):
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

class dtype(str):
    def __new__(
        cls,
        obj: object,
        code: int | None = None,
        bits: int | None = None,
        kind: int | str | None = None,
    ) -> Self: ...
    @classmethod
    def _make(cls, name: str, code: int, bits: int, kind: int) -> Self: ...
    def _has_fields(self, code: object, bits: object, kind: object) -> bool: ...
    @property
    def code(self) -> int: ...
    @property
    def bits(self) -> int: ...
    @property
    def lanes(self) -> int: ...
    @property
    def itemsize(self) -> int: ...
    @property
    def kind(self) -> Literal["bool", "int", "uint", "float", "complex"]: ...
    @property
    def name(self) -> str: ...
    def __reduce__(self) -> tuple[object, tuple[str]]: ...

_BY_NAME: dict[str, dtype]
_FIELDS: dict[str, tuple[int, int, int]]

def _dtype_named(name: str) -> dtype: ...
