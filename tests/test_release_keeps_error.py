"""A rejected import raises its own exception even when releasing the producer's
objects runs Python code.

godlpack releases what a producer handed over (its capsule, or the tensor's deleter)
after deciding to reject it, with its BufferError already set. A producer whose capsule
destructor or deleter runs Python (a ctypes callback here; any C destructor that calls
back into Python) would then run with that exception pending: Python code that raises
and catches inside it clears it, and the caller saw ``SystemError: ... returned NULL
without setting an exception`` instead of the BufferError. Each case runs in a child
interpreter (a lost exception can also crash).

The producer objects are kept alive by the test across the call, so that only
godlpack releases the capsule: an argument that the interpreter itself drops after a
failed call runs the destructor with the exception pending too, which no callee can
prevent.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from conftest import run_python

PRELUDE = textwrap.dedent(
    """
    import ctypes, sys
    sys.path.insert(0, {tests!r})
    import godlpack
    import _malformed as M

    ran = []

    def python_work():
        # raises and catches, as any Python code may: this clears a pending exception
        try:
            {{}}["missing"]
        except KeyError:
            pass
        ran.append(1)

    @M.CAPSULE_DESTRUCTOR
    def destructor(cap):
        python_work()
        M._capsule_destructor(cap)  # the DLPack rule: calls the (Python) deleter

    @M.DELETER
    def deleter(ptr):
        python_work()

    def bad_tensor(versioned=True):
        # a CPU float64 tensor of a DLPack major version godlpack cannot read: rejected
        t = M.ManagedTensor(versioned=versioned, version=(9, 0), shape=(2,))
        t.managed.deleter = ctypes.cast(deleter, ctypes.c_void_p).value
        return t

    def producer(versioned=True):
        t = bad_tensor(versioned)
        name = M.NAME_VERSIONED if versioned else M.NAME_LEGACY
        return t, M.Producer(M._PyCapsule_New(t.address, M._name_ptr(name), destructor))
    """
)


def _raised(setup: str, call: str) -> tuple[str, int]:
    """Runs the prelude, setup and call in a child: (what the call raised, as
    "Type message", and how many times Python code ran in a release)."""
    code = PRELUDE.format(tests=str(Path(__file__).resolve().parent)) + textwrap.dedent(
        f"""
        {setup}
        try:
            {call}
        except BaseException as e:
            print(type(e).__name__, e)
        else:
            print("no exception")
        print(len(ran))
        """
    )
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    raised, ran = r.stdout.splitlines()[-2:]
    return raised, int(ran)


CASES = {
    "from_dlpack": "godlpack.from_dlpack(p)",
    "from_dlpack_copy": "godlpack.from_dlpack(p, copy=True)",
    "from_dlpack_device": "godlpack.from_dlpack(p, device=(1, 0))",
    "from_dlpack_copy_false": "godlpack.from_dlpack(p, copy=False)",
}


@pytest.mark.parametrize("call", sorted(CASES))
def test_rejected_capsule_keeps_the_buffer_error(call):
    raised, ran = _raised("t, p = producer()", CASES[call])
    assert raised.startswith("BufferError "), raised
    assert "version" in raised  # the validator's message, naming the field
    # The capsule destructor ran Python during godlpack's release, and so did the
    # deleter it called.
    assert ran == 2


def test_rejected_legacy_capsule_keeps_the_error():
    # A legacy (unversioned) tensor with a NULL data pointer and a nonzero size: the
    # validator rejects it.
    setup = (
        "t = M.ManagedTensor(versioned=False, shape=(2,), data=0); "
        "t.managed.deleter = ctypes.cast(deleter, ctypes.c_void_p).value; "
        "p = M.Producer(M._PyCapsule_New(t.address, M._name_ptr(M.NAME_LEGACY), destructor))"
    )
    raised, ran = _raised(setup, "godlpack.from_dlpack(p)")
    assert raised.startswith("BufferError "), raised
    assert ran == 2


def test_rejected_exchange_api_tensor_keeps_the_error():
    # Through a producer type's C exchange API: godlpack rejects the tensor and calls
    # its deleter itself, which runs Python.
    setup = (
        "keep = []; T = M.exchange_api_type(lambda: keep.append(bad_tensor()) or keep[-1]); x = T()"
    )
    raised, ran = _raised(setup, "godlpack.from_dlpack(x)")
    assert raised.startswith("BufferError "), raised
    assert ran == 1


def test_refused_lazy_view_keeps_the_error():
    # A valid complex tensor from a type whose is_conj() says True (PyTorch's lazy
    # conjugate view): godlpack refuses it after making the Array, whose release calls
    # the deleter, which runs Python.
    setup = (
        "keep = []; "
        "t = M.ManagedTensor(dtype=(M.CODE_COMPLEX, 64, 1), shape=(2,)); "
        "t.managed.deleter = ctypes.cast(deleter, ctypes.c_void_p).value; "
        "T = M.exchange_api_type(lambda: keep.append(t) or t); "
        "T.is_conj = lambda self: True; "
        "x = T()"
    )
    raised, ran = _raised(setup, "godlpack.from_dlpack(x)")
    assert raised.startswith("BufferError ") and "conj" in raised, raised
    assert ran == 1
