"""Python functions the Go tests of embedding (embed_test.go) call."""

from __future__ import annotations

import threading
import time
import weakref
from typing import Any

import godlpack
import numpy as np
import torch


class CustomError(Exception):
    pass


def fail(msg: str) -> None:
    raise ValueError(msg)


def fail_custom() -> None:
    try:
        fail("inner")
    except ValueError as e:
        raise CustomError("outer") from e


def kinds(*args: Any, **kwargs: Any) -> list[Any]:
    return [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]


def echo(x: Any) -> Any:
    return x


def array_info(a: godlpack.Array) -> list[Any]:
    """What Python sees of a tensor Go passed: type, address, shape, strides, dtype, read-only."""
    n = np.from_dlpack(a) if a.dtype.name in ("float32", "int64") else None
    return [
        type(a).__name__,
        a.data_ptr,
        list(a.shape),
        list(a.strides),
        a.dtype.name,
        bool(a.readonly),
        None if n is None else n.ctypes.data,
    ]


def scale_in_place(a: godlpack.Array, k: float) -> None:
    torch.from_dlpack(a).mul_(k)


def strided_torch() -> torch.Tensor:
    return torch.arange(12, dtype=torch.float32).reshape(3, 4)[:, ::2]


def readonly_numpy() -> np.ndarray:
    a = np.arange(6, dtype=np.int64)
    a.flags.writeable = False
    return a


_live: dict[str, Any] = {}


def tracked_numpy() -> np.ndarray:
    """An array whose death Python can report (weakref to its base buffer)."""
    a = np.arange(4, dtype=np.float64)
    _live["ref"] = weakref.ref(a)
    return a


def tracked_alive() -> bool:
    import gc

    gc.collect()
    return _live["ref"]() is not None


def slow_square(x: float) -> float:
    time.sleep(0.001)  # releases the GIL: other goroutines' calls run meanwhile
    return x * x


def model_rows(x: godlpack.Array) -> torch.Tensor:
    t = torch.from_dlpack(x)
    return (t * 2 + 1).sum(dim=1)


def thread_names() -> list[str]:
    return [threading.current_thread().name, threading.main_thread().name]


def identity(x: Any) -> Any:
    return x


def time_identity(n: int) -> None:
    """n calls of identity(a) made from Python, a a tensor (a godlpack.Array over
    memory of the same size as the Go benchmark's): the baseline of BenchmarkCallTensor."""
    a = godlpack.zeros((16, 16), dtype="float32")
    f = identity
    for _ in range(n):
        f(a)


def noop() -> None:
    pass


def inc(x: int) -> int:
    return x + 1


def numpy_int(x: int) -> np.int32:
    return np.int32(x)


def half(x: float) -> float:
    return x / 2


def to_numpy(a: godlpack.Array) -> np.ndarray:
    return np.from_dlpack(a)
