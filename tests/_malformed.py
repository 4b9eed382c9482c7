"""Hand-made DLPack producers in ctypes, for the import tests.

``ManagedTensor`` builds a DLManagedTensorVersioned (or a legacy DLManagedTensor) in
ctypes-owned memory, describing a ctypes byte buffer, with every field settable to any
value, including invalid ones. Its deleter is a ctypes callback that counts its calls,
so a test can prove that godlpack calls it exactly once, and when.

``ManagedTensor.capsule()`` wraps it in a PyCapsule made by ``PyCapsule_New`` whose
destructor follows the DLPack rule: it calls the deleter only while the capsule still
has its unused name ('dltensor_versioned' / 'dltensor'); a consumer that renamed it to
'used_*' owns the tensor.

Every ManagedTensor (its structs, shape/strides arrays, buffer and deleter callback) is
kept alive for the rest of the session: an Array that outlives a test, or a deleter
called late, must never touch freed memory.

The ABI comes from _dlpack_abi.py (declared from dlpack.h v1.3, shared with
conftest.py). This module leaves the argtypes of ``ctypes.pythonapi`` functions (which
conftest sets) alone: it calls the C API through its own prototypes.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import sys
import threading

from _dlpack_abi import (  # noqa: F401 - re-exported: the tests import them from here
    CODE_BFLOAT,
    CODE_BOOL,
    CODE_COMPLEX,
    CODE_FLOAT,
    CODE_FLOAT4_E2M1FN,
    CODE_FLOAT6_E2M3FN,
    CODE_FLOAT6_E3M2FN,
    CODE_INT,
    CODE_OPAQUE,
    CODE_UINT,
    DELETER,
    FLAG_IS_COPIED,
    FLAG_IS_SUBBYTE_TYPE_PADDED,
    FLAG_READ_ONLY,
    DLDataType,
    DLDevice,
    DLManagedTensor,
    DLManagedTensorVersioned,
    DLPackExchangeAPI,
    DLPackExchangeAPIHeader,
    DLPackVersion,
    DLTensor,
    kDLCPU,
    kDLCUDA,
    kDLCUDAHost,
    kDLCUDAManaged,
    kDLOneAPI,
    kDLROCMHost,
)

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if os.path.join(_REPO, "pyext") not in sys.path:  # when no conftest did it already
    sys.path.insert(0, os.path.join(_REPO, "pyext"))


# --------------------------------------------------------------------------------------
# The capsule C API, through private prototypes
# --------------------------------------------------------------------------------------

CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def _capi(name, restype, *argtypes):
    return ctypes.PYFUNCTYPE(restype, *argtypes)((name, ctypes.pythonapi))


_PyCapsule_New = _capi(
    "PyCapsule_New", ctypes.py_object, ctypes.c_void_p, ctypes.c_void_p, CAPSULE_DESTRUCTOR
)
# Raw-pointer variants, for the destructor (the dying capsule must not be touched as an
# object: its refcount is already zero).
_IsValid_raw = _capi("PyCapsule_IsValid", ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
_GetPointer_raw = _capi("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
_GetName = _capi("PyCapsule_GetName", ctypes.c_void_p, ctypes.py_object)
_SetName = _capi("PyCapsule_SetName", ctypes.c_int, ctypes.py_object, ctypes.c_void_p)
_GetPointer = _capi("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.py_object, ctypes.c_void_p)

# A capsule keeps the name pointer it is given: the names live for the session.
_NAMES: dict[bytes, ctypes.Array] = {}


def _name_ptr(name: str | bytes | None) -> int | None:
    if name is None:
        return None
    if isinstance(name, str):
        name = name.encode()
    if name not in _NAMES:
        _NAMES[name] = ctypes.create_string_buffer(name)
    return ctypes.addressof(_NAMES[name])


NAME_VERSIONED = "dltensor_versioned"
NAME_LEGACY = "dltensor"
_DELETER_OFFSET = {
    NAME_VERSIONED: DLManagedTensorVersioned.deleter.offset,
    NAME_LEGACY: DLManagedTensor.deleter.offset,
}

#: Errors raised inside the capsule destructor (which cannot raise): tests may assert [].
DESTRUCTOR_ERRORS: list[BaseException] = []


@CAPSULE_DESTRUCTOR
def _capsule_destructor(cap):
    """The DLPack rule: call the deleter only if the capsule still has its unused name."""
    try:
        for name, offset in _DELETER_OFFSET.items():
            if _IsValid_raw(cap, _name_ptr(name)):
                managed = _GetPointer_raw(cap, _name_ptr(name))
                deleter = ctypes.c_void_p.from_address(managed + offset).value
                if deleter:
                    DELETER(deleter)(managed)
                return
    except BaseException as exc:  # pragma: no cover - reported through DESTRUCTOR_ERRORS
        DESTRUCTOR_ERRORS.append(exc)


def new_capsule(address: int, name: str | bytes | None):
    """PyCapsule_New(address, name, destructor-following-the-DLPack-rule)."""
    return _PyCapsule_New(address, _name_ptr(name), _capsule_destructor)


def capsule_name(cap) -> str | None:
    p = _GetName(cap)
    return None if p is None else ctypes.string_at(p).decode()


def capsule_pointer(cap, name: str) -> int:
    """PyCapsule_GetPointer without renaming: peek at a capsule the caller does not take."""
    ptr = _GetPointer(cap, _name_ptr(name))
    assert ptr
    return ptr


def consume(cap) -> int:
    """Take a capsule as a consumer does: rename it to used_*, return its pointer."""
    name = capsule_name(cap)
    assert name in (NAME_VERSIONED, NAME_LEGACY), name
    ptr = _GetPointer(cap, _name_ptr(name))
    assert ptr
    assert _SetName(cap, _name_ptr("used_" + name)) == 0
    return ptr


def call_deleter_of(ptr: int, versioned: bool) -> None:
    """Calls the deleter stored in the managed tensor at ptr (GIL released meanwhile)."""
    kind = DLManagedTensorVersioned if versioned else DLManagedTensor
    DELETER(kind.from_address(ptr).deleter)(ptr)


# --------------------------------------------------------------------------------------
# The hand-made producer
# --------------------------------------------------------------------------------------

_ALIVE: list = []  # every ManagedTensor ever made: nothing here is ever freed
_UNSET = object()


def _int64_array(values):
    arr = (ctypes.c_int64 * max(len(values), 1))(*values)
    return arr


class ManagedTensor:
    """A managed tensor over ``buffer``, every field under the test's control.

    shape / strides: sequences, or None for a NULL pointer. ndim defaults to len(shape)
    (0 when shape is None). data defaults to the buffer's address; pass an int address,
    or 0 for NULL. version/flags apply to the versioned struct only. deleter=False puts
    a NULL deleter in the struct.

    ``deleted`` counts the deleter's calls; ``deleter_args`` holds the pointers it got.
    When the deleter runs, the buffer is overwritten with 0xEE bytes, so an Array still
    reading it afterwards would show garbage instead of the values.
    """

    def __init__(
        self,
        buffer=None,
        *,
        nbytes: int = 64,
        dtype: tuple[int, int, int] = (CODE_FLOAT, 64, 1),
        shape=(),
        strides=_UNSET,
        ndim: int | None = None,
        byte_offset: int = 0,
        device: tuple[int, int] = (kDLCPU, 0),
        data=_UNSET,
        versioned: bool = True,
        version: tuple[int, int] = (1, 3),
        flags: int = 0,
        deleter: bool = True,
    ):
        if buffer is None:
            buffer = (ctypes.c_uint8 * nbytes)()
        self.buffer = buffer
        self.versioned = versioned
        self.deleter_args: list[int] = []
        self.deleter_threads: list[int] = []  # threading.get_ident() of each call
        if versioned:
            self.managed = DLManagedTensorVersioned()
            self.managed.version.major, self.managed.version.minor = version
            self.managed.flags = flags
        else:
            self.managed = DLManagedTensor()
        self.address = ctypes.addressof(self.managed)
        t = self.tensor = self.managed.dl_tensor

        if strides is _UNSET:  # C-contiguous, in elements
            strides = None if shape is None else _c_strides(shape)
        self._shape = None if shape is None else _int64_array(list(shape))
        self._strides = None if strides is None else _int64_array(list(strides))
        t.data = ctypes.addressof(buffer) if data is _UNSET else (data or None)
        t.device.device_type, t.device.device_id = device
        t.ndim = ndim if ndim is not None else (0 if shape is None else len(shape))
        t.dtype.code, t.dtype.bits, t.dtype.lanes = dtype
        t.shape = None if self._shape is None else ctypes.addressof(self._shape)
        t.strides = None if self._strides is None else ctypes.addressof(self._strides)
        t.byte_offset = byte_offset

        def on_delete(ptr):
            self.deleter_args.append(ptr)
            self.deleter_threads.append(threading.get_ident())
            ctypes.memset(self.buffer, 0xEE, ctypes.sizeof(self.buffer))

        self._deleter = DELETER(on_delete)
        self.managed.deleter = (
            ctypes.cast(self._deleter, ctypes.c_void_p).value if deleter else None
        )
        _ALIVE.append(self)

    @property
    def deleted(self) -> int:
        assert all(p == self.address for p in self.deleter_args), "deleter got another pointer"
        return len(self.deleter_args)

    @property
    def buffer_address(self) -> int:
        return ctypes.addressof(self.buffer)

    @property
    def name(self) -> str:
        return NAME_VERSIONED if self.versioned else NAME_LEGACY

    def capsule(self, name: str | bytes | None | object = _UNSET):
        """A new capsule holding this tensor (named for its struct unless name is given)."""
        return new_capsule(self.address, self.name if name is _UNSET else name)


def _c_strides(shape):
    strides, s = [], 1
    for d in reversed(list(shape)):
        strides.append(s)
        s *= max(d, 1)
    return tuple(reversed(strides))


def filled(values: bytes, **kw) -> ManagedTensor:
    """A ManagedTensor whose buffer holds exactly ``values``."""
    buf = (ctypes.c_uint8 * max(len(values), 1)).from_buffer_copy(values.ljust(1, b"\0"))
    return ManagedTensor(buf, **kw)


class Producer:
    """An object with the DLPack protocol handing out one prepared capsule.

    It keeps no reference to the capsule once __dlpack__ returned it, so the capsule
    lives only as long as the consumer holds it. ``calls`` records each call's keywords.
    """

    def __init__(self, capsule=None, result=_UNSET, raises: BaseException | None = None):
        self._capsule = capsule
        self._result = result
        self._raises = raises
        self.calls: list[dict] = []

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.calls.append(
            {"stream": stream, "max_version": max_version, "dl_device": dl_device, "copy": copy}
        )
        if self._raises is not None:
            raise self._raises
        if self._result is not _UNSET:
            return self._result
        cap, self._capsule = self._capsule, None
        assert cap is not None, "this producer's capsule was already handed out"
        return cap

    def __dlpack_device__(self):
        return (kDLCPU, 0)


# --------------------------------------------------------------------------------------
# A hand-made DLPack C exchange API (DLPackExchangeAPI, dlpack.h v1.3)
# --------------------------------------------------------------------------------------


#: ``int (*)(void *py_object, DLManagedTensorVersioned **out)``
FROM_PY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))


def exchange_api_type(hand_out, *, version=(1, 3), with_from_py=True, dlpack=None):
    """A new class whose ``__dlpack_c_exchange_api__`` is a capsule of a hand-made
    DLPackExchangeAPI. Its managed_tensor_from_py_object_no_sync calls
    ``hand_out()``, which returns a ManagedTensor to hand over, or None to fail
    (return -1 without setting an exception). ``cls.from_py_calls`` counts its calls;
    ``cls.dlpack_calls`` counts __dlpack__ calls (which return ``dlpack()``'s capsule).
    """
    api = DLPackExchangeAPI()
    api.header.version.major, api.header.version.minor = version

    class WithExchangeAPI:
        from_py_calls = 0
        dlpack_calls = 0

        def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
            type(self).dlpack_calls += 1
            if dlpack is None:
                raise BufferError("this producer only speaks the C exchange API")
            return dlpack()

        def __dlpack_device__(self):
            return (kDLCPU, 0)

    def from_py(obj, out):
        WithExchangeAPI.from_py_calls += 1
        t = hand_out()
        if t is None:
            return -1
        out[0] = t.address
        return 0

    callback = FROM_PY(from_py)
    if with_from_py:
        api.managed_tensor_from_py_object_no_sync = ctypes.cast(callback, ctypes.c_void_p).value
    capsule = _PyCapsule_New(
        ctypes.addressof(api), _name_ptr("dlpack_exchange_api"), CAPSULE_DESTRUCTOR()
    )
    WithExchangeAPI.__dlpack_c_exchange_api__ = capsule
    # godlpack may cache the table per type for the life of the process.
    _ALIVE.append((api, callback, capsule, WithExchangeAPI))
    return WithExchangeAPI


@contextlib.contextmanager
def gc_frozen():
    """Moves every object alive now out of the collector's reach while the block runs.

    With PyTorch, JAX and NumPy loaded a full collection scans ~200k objects (0.1-0.4
    s); frozen, it scans only what the tests made since, so the deleter and leak checks
    can collect as often as they need. Frozen objects are not freed, which only keeps
    the live-allocation baselines steadier. Undone on exit."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def collect() -> None:
    """Collects young garbage cycles. The tests do not rely on it: CPython frees what
    they drop by reference counting, and the deleter counts are checked right after."""
    gc.collect(1)


def full_collect() -> None:
    gc.collect()
    gc.collect()
