"""PyTorch's lazy conjugate and negative views are refused.

``z.conj()`` of a complex tensor and ``.imag`` of such a view keep the memory of the
values before conjugation / negation plus a bit saying so (``is_conj()``,
``is_neg()``). PyTorch's C exchange API drops both bits and its ``__dlpack__`` drops
the negative one, so importing them as their memory says gives silently wrong values:
godlpack must raise BufferError on every import path instead, and leak nothing.
"""

from __future__ import annotations

import textwrap

import godlpack as g
import numpy as np
import pytest
import torch
from conftest import run_python

Z = [1 + 2j, 3 - 4j, -5 + 0.5j]

# Every way from_dlpack(tensor) can go: without keywords (exchange API, asking only
# what the layout allows) and with them (the same C flow asking both questions, or
# __dlpack__ with dl_device for device="cpu").
ROUTES = {
    "fast": {},
    "copy=None": {"copy": None},
    "copy=True": {"copy": True},
    "copy=False": {"copy": False},
    "device=cpu": {"device": "cpu"},
}


def conj_view(dtype=torch.complex64):
    z = torch.tensor(Z, dtype=dtype).conj()
    assert z.is_conj()
    return z


def neg_views(contiguous: bool):
    """Negative views. The fast path asks about the negative bit only where .imag of
    complex memory could be (lazy_view.c): every stride of a dimension longer than 1
    even; views of other layouts (contiguous=True) come only from the private
    torch._neg_view and are refused on the keyword paths."""
    views = {}
    if not contiguous:
        imag = torch.tensor(Z, dtype=torch.complex128).conj().imag  # the public way
        assert imag.is_neg() and not imag.is_conj()
        views["imag of conj"] = imag
        zz = torch.tensor([Z, Z], dtype=torch.complex64)
        views["imag of conj 2-d"] = zz.conj().imag.T
        views["0-d imag of conj"] = zz[0, 0].conj().imag
    for dt in (torch.float32, torch.int32, torch.bool, torch.complex64):
        base = torch.ones(6, dtype=dt)
        v = torch._neg_view(base if contiguous else base[::2])
        assert v.is_neg()
        views[f"_neg_view {dt}"] = v
    if contiguous:
        views["_neg_view complex"] = torch._neg_view(torch.tensor(Z))
    return views


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
@pytest.mark.parametrize("layout", ["contiguous", "strided", "0-d"])
def test_conjugate_view_is_refused(route, dtype, layout):
    z = conj_view(dtype)
    z = {"contiguous": z, "strided": z[::2], "0-d": z[1]}[layout]
    assert z.is_conj()
    with pytest.raises(BufferError, match=r"torch\.Tensor has its conjugate bit set.*resolve_conj"):
        g.from_dlpack(z, **ROUTES[route])


# Complex negative views come from no public operation: the fast path asks complex
# tensors only about the conjugate bit (lazy_view.c), the keyword paths ask both.
@pytest.mark.parametrize(
    "route, name",
    [
        (route, name)
        for route in ROUTES
        for name, view in neg_views(contiguous=False).items()
        if not (route == "fast" and view.dtype.is_complex)
    ],
)
def test_negative_view_is_refused(route, name):
    view = neg_views(contiguous=False)[name]
    with pytest.raises(BufferError, match=r"torch\.Tensor has its negative bit set.*resolve_neg"):
        g.from_dlpack(view, **ROUTES[route])


@pytest.mark.parametrize("route", [r for r in ROUTES if r != "fast"])
@pytest.mark.parametrize("name", list(neg_views(contiguous=True)))
def test_negative_view_of_any_layout_is_refused_with_keywords(route, name):
    with pytest.raises(BufferError, match=r"torch\.Tensor has its negative bit set.*resolve_neg"):
        g.from_dlpack(neg_views(contiguous=True)[name], **ROUTES[route])


@pytest.mark.parametrize("route", ROUTES)
def test_resolved_views_import_with_their_values(route):
    kw = ROUTES[route]
    z = torch.tensor(Z, dtype=torch.complex64)
    assert g.from_dlpack(z.conj().resolve_conj(), **kw).tolist() == pytest.approx(
        np.conj(np.array(Z, dtype=np.complex64)).tolist()
    )
    imag = torch.tensor(Z, dtype=torch.complex128).conj().imag.resolve_neg()
    assert g.from_dlpack(imag, **kw).tolist() == [-2.0, 4.0, -0.5]
    # Plain tensors are not refused: a real tensor's conj() is the tensor itself.
    r = torch.tensor([1.5, -2.5])
    assert g.from_dlpack(r.conj(), **kw).tolist() == [1.5, -2.5]
    assert g.from_dlpack(z, **kw).tolist() == pytest.approx(Z)


def test_subclasses_are_asked_too():
    class Sub(torch.Tensor):
        pass

    with pytest.raises(BufferError, match="Sub has its conjugate bit set"):
        g.from_dlpack(conj_view().as_subclass(Sub))

    class Overrides(torch.Tensor):
        # A Python is_neg is called as a method, not bypassed through the C function.
        def is_neg(self):
            return True

    for kw in ({}, {"copy": None}):
        with pytest.raises(BufferError, match="Overrides has its negative bit set"):
            g.from_dlpack(torch.ones(4)[::2].as_subclass(Overrides), **kw)


def test_a_type_whose_is_neg_is_not_a_method_is_not_asked():
    class Flagged(torch.Tensor):
        is_neg = True  # data, not the method: says nothing about the tensor

    t = torch.ones(4)[::2].as_subclass(Flagged)
    assert g.from_dlpack(t).tolist() == [1.0, 1.0]
    assert g.from_dlpack(t, copy=None).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("kw", [{}, {"copy": None}], ids=["fast", "keywords"])
def test_an_is_neg_that_raises_propagates(kw):
    class Broken(torch.Tensor):
        def is_neg(self):
            raise RuntimeError("is_neg broke")

    with pytest.raises(RuntimeError, match="is_neg broke"):
        g.from_dlpack(torch.ones(4)[::2].as_subclass(Broken), **kw)


def test_refusals_release_the_exchange_tensor_and_never_crash():
    # The fast path has taken PyTorch's managed tensor before it can ask for the bits:
    # a refusal must call its deleter exactly once (a double free would crash, a
    # missed one keep 8 MB per round alive).
    r = run_python(
        textwrap.dedent(
            """
            import gc, torch, godlpack as g
            def rss():
                with open("/proc/self/statm") as f:
                    return int(f.read().split()[1]) * 4096
            def round_():
                z = torch.zeros(1 << 20, dtype=torch.complex64)  # 8 MiB
                for v in (z.conj(), z.conj().imag):
                    for kw in ({}, {"copy": False}):
                        try:
                            g.from_dlpack(v, **kw)
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
