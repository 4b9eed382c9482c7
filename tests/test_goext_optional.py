"""Optional tensor parameters of extensions written in Go: a Tensor or
MutTensor declared with ``Default(name, nil)`` takes None or no argument, and the Go
function sees an absent tensor (``IsNone``). tests/goext2's weighted_sum(x, w=None,
k=1.0), clear(out=None) and keep_none(x=None); the definition mistakes are in
test_goext_import.py."""

from __future__ import annotations

import inspect
import sys

import godlpack as g
import numpy as np
import pytest
import torch
from goext_build import folder, load


@pytest.fixture(scope="module")
def goext2():
    return load("goext2")


def test_absent_none_or_omitted(goext2):
    x = np.arange(4.0)
    assert goext2.weighted_sum(x) == 6.0
    assert goext2.weighted_sum(x, None) == 6.0
    assert goext2.weighted_sum(x, w=None, k=2.0) == 12.0
    assert goext2.weighted_sum(x, k=3.0) == 18.0


@pytest.mark.parametrize(
    "w",
    [
        np.full(4, 2.0),
        torch.full((4,), 2.0, dtype=torch.float64),
        g.full((4,), 2.0, dtype="float64"),
        np.full(4, 2.0).__dlpack__(),  # a raw capsule, consumed
    ],
    ids=["numpy", "torch", "godlpack", "capsule"],
)
def test_present_from_every_producer(goext2, w):
    x = np.arange(4.0)
    assert goext2.weighted_sum(x, w, 0.5) == 6.0


def test_signature_shows_none(goext2):
    assert str(inspect.signature(goext2.weighted_sum)) == "(x, w=None, k=1.0)"
    assert str(inspect.signature(goext2.clear)) == "(out=None)"


def test_constraints_apply_to_a_tensor_passed(goext2):
    x = np.arange(4.0)
    with pytest.raises(
        TypeError, match=r"^weighted_sum\(\): argument w: expected a 1-d tensor, got a 2-d one$"
    ):
        goext2.weighted_sum(x, np.ones((2, 2)))
    with pytest.raises(
        TypeError, match=r"^weighted_sum\(\): argument w: expected a float64 tensor, got float32$"
    ):
        goext2.weighted_sum(x, np.ones(4, dtype=np.float32))
    # not None and not a tensor: the message of every tensor parameter
    with pytest.raises(
        TypeError,
        match=r"^weighted_sum\(\): argument w: expected a tensor \(a DLPack producer or "
        r"capsule\), got str$",
    ):
        goext2.weighted_sum(x, "w")
    with pytest.raises(ValueError, match="w has 3 elements, x 4"):
        goext2.weighted_sum(x, np.ones(3))
    # None for a required tensor is still refused
    with pytest.raises(TypeError, match=r"argument x: expected a tensor .* got NoneType"):
        goext2.weighted_sum(None)


def test_optional_mut_tensor(goext2):
    assert goext2.clear() is False
    assert goext2.clear(None) is False
    y = np.ones(5)
    assert goext2.clear(y) is True
    assert y.tolist() == [0.0] * 5  # written in place, zero-copy
    t = torch.ones(3, dtype=torch.float64)
    assert goext2.clear(out=t) is True and t.tolist() == [0.0] * 3
    ro = np.ones(3)
    ro.flags.writeable = False
    with pytest.raises(TypeError, match=r"^clear\(\): argument out: expected a writable tensor"):
        goext2.clear(ro)
    with pytest.raises(
        TypeError, match=r"^clear\(\): argument out: expected a C-contiguous tensor"
    ):
        goext2.clear(np.ones(6)[::2])
    assert ro.tolist() == [1.0] * 3


def test_absent_tensor_methods_give_errors(goext2):
    # Keep, AsTensor and ReadSlice of an absent tensor return an error (never touch C)
    msg = "godlpack: the tensor is None (an optional argument not passed)"
    assert goext2.keep_none() == "; ".join([msg] * 3)
    with pytest.raises(ValueError, match="pass no tensor"):
        goext2.keep_none(np.zeros(1))


def test_many_calls_mixing_absent_and_present(goext2):
    # absent arguments hold nothing: no reference or buffer is left behind
    x = np.arange(4.0)
    w = np.ones(4)
    before = sys.getrefcount(w), sys.getrefcount(x)
    for i in range(2000):
        assert goext2.weighted_sum(x, w if i % 2 else None) == 6.0
    assert (sys.getrefcount(w), sys.getrefcount(x)) == before


def test_absent_tensor_method_panics_into_runtime_error(isolated):
    # A method of the zero Tensor dereferences nil in Go: a recovered panic, the
    # interpreter goes on (in a child, should it not).
    proc = isolated(
        f"import sys; sys.path.insert(0, {folder('goext2')!r})\n"
        """
import numpy as np, goext2
print(goext2.ndim_of(np.zeros((2, 3))))
for _ in range(3):
    try:
        goext2.ndim_of()
    except RuntimeError as e:
        print(type(e).__name__, e)
print(goext2.ndim_of(np.zeros(4)))
"""
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "2" and lines[-1] == "1", lines
    assert (
        lines[1:4]
        == [
            "RuntimeError ndim_of(): Go panic: runtime error: invalid memory address or nil "
            "pointer dereference"
        ]
        * 3
    ), lines
