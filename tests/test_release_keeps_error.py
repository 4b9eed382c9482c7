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

CASES = {
    "from_dlpack": "godlpack.from_dlpack(p)",
    "from_dlpack_copy": "godlpack.from_dlpack(p, copy=True)",
    "from_dlpack_device": "godlpack.from_dlpack(p, device=(1, 0))",
    "from_dlpack_copy_false": "godlpack.from_dlpack(p, copy=False)",
}


@pytest.mark.parametrize("call", sorted(CASES))
def test_rejected_capsule_keeps_the_buffer_error(call):
    code = PRELUDE.format(tests=_tests_dir()) + textwrap.dedent(
        f"""
        t, p = producer()
        try:
            {CASES[call]}
        except BaseException as e:
            print(type(e).__name__, e)
        else:
            print("no exception")
        print("python ran in the release:", len(ran))
        """
    )
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    first, second = r.stdout.splitlines()[:2]
    assert first.startswith("BufferError "), r.stdout
    assert "version" in first, first  # the validator's message, naming the field
    # The capsule destructor ran godlpack's release (with Python in it) during the call,
    # and the deleter it calls ran Python too.
    assert second == "python ran in the release: 2", r.stdout


def test_rejected_legacy_capsule_keeps_the_error():
    # A legacy (unversioned) tensor with a NULL data pointer and a nonzero size: the
    # validator rejects it.
    code = PRELUDE.format(tests=_tests_dir()) + textwrap.dedent(
        """
        t = M.ManagedTensor(versioned=False, shape=(2,), data=0)
        t.managed.deleter = ctypes.cast(deleter, ctypes.c_void_p).value
        p = M.Producer(M._PyCapsule_New(t.address, M._name_ptr(M.NAME_LEGACY), destructor))
        try:
            godlpack.from_dlpack(p)
        except BaseException as e:
            print(type(e).__name__, e)
        print(len(ran))
        """
    )
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    first, second = r.stdout.splitlines()[:2]
    assert first.startswith("BufferError "), r.stdout
    assert second == "2", r.stdout


def test_rejected_exchange_api_tensor_keeps_the_error():
    # Through a producer type's C exchange API: godlpack rejects the tensor and calls
    # its deleter itself, which runs Python.
    code = PRELUDE.format(tests=_tests_dir()) + textwrap.dedent(
        """
        keep = []
        def hand_out():
            t = bad_tensor()
            keep.append(t)
            return t
        T = M.exchange_api_type(hand_out)
        x = T()
        try:
            godlpack.from_dlpack(x)
        except BaseException as e:
            print(type(e).__name__, e)
        print(len(ran))
        """
    )
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    first, second = r.stdout.splitlines()[:2]
    assert first.startswith("BufferError "), r.stdout
    assert second == "1", r.stdout


def _tests_dir() -> str:
    import os

    return os.path.dirname(os.path.abspath(__file__))
