"""PyTorch tensors DLPack cannot carry are refused alike on every path.

PyTorch's C exchange API, which godlpack uses to import torch.Tensor, skips the checks
torch.Tensor.__dlpack__ makes: a tensor that requires grad (a consumer's in-place
writes would bypass autograd), and lazy conjugate/negative views (the memory holds the
values before the operation). Sparse, quantized, meta and nested tensors make it raise
a RuntimeError with a C++ backtrace. Each must be a BufferError naming what is wrong and
the fix, the same on godlpack.from_dlpack (every route), asarray, Array(t) and an
argument of an extension written in Go (a read-only Tensor, lent through the exchange
API's bare DLTensor, and a MutTensor, imported through the managed one).
"""

from __future__ import annotations

import textwrap
import warnings

import godlpack as g
import numpy as np
import pytest
import torch
from conftest import run_python
from goext_build import load

Z = [1 + 2j, 3 - 4j, -5 + 0.5j, 7 - 1j]


@pytest.fixture(scope="module")
def goext():
    return load("goext")


def _quiet(make):
    with warnings.catch_warnings():  # sparse CSR, nested and quantized warn at creation
        warnings.simplefilter("ignore")
        return make()


# name -> (make the tensor, what the BufferError must say)
GRAD = r"torch\.Tensor requires grad.*bypass autograd.*call \.detach\(\) first"
CONJ = r"torch\.Tensor has its conjugate bit set.*resolve_conj"
NEG = r"torch\.Tensor has its negative bit set.*resolve_neg"
HOSTILE = {
    "requires_grad float32": (lambda: torch.ones(3, requires_grad=True), GRAD),
    "requires_grad float64 2-d": (
        lambda: torch.ones(2, 3, dtype=torch.float64).requires_grad_(),
        GRAD,
    ),
    "requires_grad 0-d": (lambda: torch.tensor(2.0, requires_grad=True), GRAD),
    "requires_grad non-leaf view": (lambda: (torch.ones(6, requires_grad=True) * 2)[::2], GRAD),
    "requires_grad complex": (
        lambda: torch.ones(2, dtype=torch.complex64, requires_grad=True),
        GRAD,
    ),
    "conj": (lambda: torch.tensor(Z).conj(), CONJ),
    "conj shape (1,)": (lambda: torch.tensor(Z[:1]).conj(), CONJ),
    "conj complex128 strided": (lambda: torch.tensor(Z, dtype=torch.complex128).conj()[::2], CONJ),
    "neg imag": (lambda: torch.tensor(Z).conj().imag, NEG),
    "neg imag shape (1,)": (lambda: torch.tensor(Z[:1]).conj().imag, NEG),
    # the red team's: an odd stride, element 0 where .imag puts it
    "neg as_strided odd stride": (lambda: torch.tensor(Z).conj().imag.as_strided((3,), (1,)), NEG),
    "neg as_strided 2-d": (lambda: torch.tensor(Z).conj().imag.as_strided((2, 3), (3, 1)), NEG),
    "neg imag sliced": (lambda: torch.tensor(Z, dtype=torch.complex128).conj().imag[1:], NEG),
    "neg imag float16": (lambda: torch.tensor(Z, dtype=torch.complex32).conj().imag, NEG),
    "neg detached": (lambda: torch.tensor(Z).conj().imag.detach(), NEG),
    "sparse coo": (
        lambda: torch.ones(3).to_sparse(),
        r"is of layout torch\.sparse_coo.*\.to_dense\(\)",
    ),
    "sparse csr": (
        lambda: _quiet(lambda: torch.eye(2).to_sparse_csr()),
        r"torch\.sparse_csr.*\.to_dense\(\)",
    ),
    "sparse csc": (
        lambda: _quiet(lambda: torch.eye(2).to_sparse_csc()),
        r"torch\.sparse_csc.*\.to_dense\(\)",
    ),
    "quantized": (
        lambda: _quiet(lambda: torch.quantize_per_tensor(torch.ones(3), 0.1, 0, torch.qint8)),
        r"is quantized.*\.dequantize\(\)",
    ),
    "meta": (lambda: torch.ones(3, device="meta"), r"on the meta device.*real device"),
    "nested": (
        lambda: _quiet(lambda: torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])),
        r"is nested.*\.to_padded_tensor\(0\)",
    ),
    "nested jagged": (
        lambda: _quiet(
            lambda: torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], layout=torch.jagged)
        ),
        r"\.NestedTensor is nested.*\.to_padded_tensor\(0\)",  # a torch.Tensor subclass
    ),
}

CONSUMERS = {
    "from_dlpack": lambda x, ext: g.from_dlpack(x),
    "from_dlpack copy=None": lambda x, ext: g.from_dlpack(x, copy=None),
    "from_dlpack copy=True": lambda x, ext: g.from_dlpack(x, copy=True),
    "from_dlpack device=cpu": lambda x, ext: g.from_dlpack(x, device="cpu"),
    "asarray": lambda x, ext: g.asarray(x),
    "asarray copy=True": lambda x, ext: g.asarray(x, copy=True),
    "Array": lambda x, ext: g.Array(x),
    "Tensor argument": lambda x, ext: ext.describe(x),
    "MutTensor argument": lambda x, ext: ext.scale_(x, 2.0),
}


@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("name", HOSTILE)
def test_every_path_refuses_alike(goext, name, consumer):
    make, says = HOSTILE[name]
    with pytest.raises(BufferError, match=says):
        CONSUMERS[consumer](make(), goext)


@pytest.mark.parametrize("name", [n for n in HOSTILE if HOSTILE[n][1] not in (GRAD, CONJ, NEG)])
def test_unsupported_kinds_chain_pytorchs_error(name):
    with pytest.raises(BufferError) as e:
        g.from_dlpack(HOSTILE[name][0]())
    assert isinstance(e.value.__cause__, (RuntimeError, BufferError)), e.value.__cause__


def test_values_are_never_read_unnegated(goext):
    # The red team's case read [2, 3, -4] (the memory) for [-2, -3, 4]: refused now.
    v = torch.tensor([1 + 2j, 3 - 4j, 5 + 6j]).conj().imag.as_strided((3,), (1,))
    assert v.tolist() == [-2.0, -3.0, 4.0]
    for f in (g.from_dlpack, goext.sum, np.asarray):
        if f is np.asarray:
            continue  # NumPy's own business
        with pytest.raises(BufferError, match=NEG):
            f(v)
    assert g.from_dlpack(v.resolve_neg()).tolist() == [-2.0, -3.0, 4.0]
    assert goext.sum(v.resolve_neg()) == -1.0


# What the refusals must not catch: the fixes they name, and plain tensors whose layout
# makes the fast path ask (element 0 at an odd element offset, even strides).
PLAIN = {
    "detached": lambda: torch.arange(3.0, requires_grad=True).detach(),
    "no_grad result": lambda: torch.arange(3.0, requires_grad=True).detach() * 1,
    "resolve_conj": lambda: torch.tensor(Z).conj().resolve_conj(),
    "resolve_neg": lambda: torch.tensor(Z).conj().imag.resolve_neg(),
    "odd offset float32": lambda: torch.arange(8.0)[1:],
    "odd offset float64 even stride": lambda: torch.arange(8.0, dtype=torch.float64)[1::2],
    "odd offset int32": lambda: torch.arange(8, dtype=torch.int32)[1:],
    "real of conj": lambda: torch.tensor(Z).conj().real,
    "dense from sparse": lambda: torch.ones(3).to_sparse().to_dense(),
}


@pytest.mark.parametrize("consumer", [c for c in CONSUMERS if c != "MutTensor argument"])
@pytest.mark.parametrize("name", PLAIN)
def test_plain_tensors_pass_with_their_values(goext, name, consumer):
    t = PLAIN[name]()
    got = CONSUMERS[consumer](t, goext)
    if consumer == "Tensor argument":
        assert got[1] == tuple(t.shape)
    else:
        assert got.tolist() == t.tolist()


def test_requires_grad_refused_in_place_cannot_corrupt_the_gradient(goext):
    # An in-place write through the exchange API once went around autograd.
    w = torch.ones(3, requires_grad=True)
    with pytest.raises(BufferError, match=GRAD):
        goext.scale_(w, 10.0)
    (w * w).sum().backward()
    assert w.grad.tolist() == [2.0, 2.0, 2.0]
    d = w.detach()  # the fix the message names: shares memory, outside autograd
    goext.scale_(d, 10.0)
    assert w.tolist() == [10.0, 10.0, 10.0]


def test_refusals_release_the_exchange_tensor():
    # The fast path has PyTorch's managed tensor in hand when it asks requires_grad: a
    # refusal must call its deleter once (a double free crashes, a missed one leaks
    # 8 MiB a round).
    r = run_python(
        textwrap.dedent(
            """
            import gc, torch, godlpack as g
            def rss():
                with open("/proc/self/statm") as f:
                    return int(f.read().split()[1]) * 4096
            def round_():
                w = torch.zeros(1 << 21, requires_grad=True)  # 8 MiB
                n = torch.zeros(1 << 20, dtype=torch.complex64).conj().imag.as_strided((3,), (1,))
                for v in (w, n):
                    for f in (g.from_dlpack, g.asarray, g.Array):
                        try:
                            f(v)
                        except BufferError:
                            pass
                        else:
                            raise AssertionError("not refused")
            for _ in range(5):
                round_()
            gc.collect()
            before = rss()
            for _ in range(60):
                round_()
            gc.collect()
            grown = rss() - before
            assert grown < 100 * 2**20, f"RSS grew {grown >> 20} MiB over 60 refused rounds"
            print("ok")
            """
        ),
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_refusals_stand_when_the_type_cache_is_full():
    # Past the exchange-API cache's 16 types, torch.Tensor is looked up on every call,
    # which runs Python code: asarray's check that a refusal is final ran it with the
    # BufferError pending and lost it ("internal error: lost Python exception").
    r = run_python(
        textwrap.dedent(
            """
            import warnings; warnings.simplefilter("ignore")
            import torch, numpy as np, godlpack as g
            for i in range(20):  # 20 producer types fill the cache first
                T = type(f"P{i}", (), {"__dlpack__": lambda self, **kw: np.ones(1).__dlpack__(**kw),
                                       "__dlpack_device__": lambda self: (1, 0)})
                g.from_dlpack(T())
            jagged = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], layout=torch.jagged)
            hostile = [torch.ones(2, requires_grad=True), torch.tensor([1j]).conj(),
                       torch.ones(3).to_sparse(), jagged]
            for t in hostile:
                for f in (g.from_dlpack, g.asarray, g.Array, lambda x: g.asarray(x, copy=True)):
                    try:
                        f(t)
                    except BufferError:
                        pass
                    else:
                        raise AssertionError(f"not refused: {f} {type(t)}")
            assert g.asarray(torch.arange(3.0)).tolist() == [0.0, 1.0, 2.0]
            print("ok")
            """
        ),
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"
