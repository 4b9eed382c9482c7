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
    code: int
    bits: int
    lanes: int
    itemsize: int
    kind: Literal["bool", "int", "uint", "float", "complex"]
    def __new__(cls, name: str, code: int, bits: int, kind: int) -> Self: ...
    @property
    def name(self) -> str: ...
    def __reduce__(self) -> tuple[object, tuple[str]]: ...

def _dtype_named(name: str) -> dtype: ...
