"""Assignment whose source shares memory with its destination.

The same bytes reach godlpack under other owners: the re-import of our own export,
a NumPy or PyTorch view of an Array imported back. ``a[...] = b`` must give NumPy's
answer whoever owns b, so overlap is decided by the address ranges the two views can
touch (dlpack.ViewExtent), and an overlapping source is read through a temporary.
"""

from __future__ import annotations

import random

import godlpack as g
import numpy as np
import pytest
import torch


def reimport_own_export(a):
    return g.from_dlpack(a.__dlpack__(max_version=(1, 3)))


def via_numpy(a):
    return g.from_dlpack(np.from_dlpack(a))


def via_torch(a):
    return g.from_dlpack(torch.from_dlpack(a))


OTHER_OWNERS = [reimport_own_export, via_numpy, via_torch]


@pytest.mark.parametrize("alias", OTHER_OWNERS, ids=lambda f: f.__name__)
def test_reversed_assignment_from_the_same_memory_under_another_owner(alias):
    a = g.arange(6)
    b = alias(a)
    assert b.data_ptr == a.data_ptr  # the premise: same bytes, another owner
    a[::-1] = b
    assert a.tolist() == [5, 4, 3, 2, 1, 0]


@pytest.mark.parametrize("alias", OTHER_OWNERS, ids=lambda f: f.__name__)
def test_shifted_assignment_reads_before_it_writes(alias):
    a = g.arange(6)
    a[1:] = alias(a)[:-1]
    assert a.tolist() == [0, 0, 1, 2, 3, 4]
    a = g.arange(6)
    a[:-1] = alias(a)[1:]
    assert a.tolist() == [1, 2, 3, 4, 5, 5]


def test_numpy_array_over_our_memory_as_the_source():
    a = g.arange(6)
    a[::-1] = np.from_dlpack(a)
    assert a.tolist() == [5, 4, 3, 2, 1, 0]


def test_transpose_onto_itself_in_2d():
    a = g.asarray([[0, 1, 2], [3, 4, 5], [6, 7, 8]], dtype="int32")
    n = np.from_dlpack(a).copy()
    b = reimport_own_export(a)
    a[...] = np.from_dlpack(b).T  # a NumPy transpose of our memory
    n[...] = n.T
    assert a.tolist() == n.tolist()


def test_packed_sub_byte_shift_under_another_owner():
    # float4_e2m1fn packs two elements a byte: the element-by-element path.
    vals = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
    a = g.asarray(vals, dtype="float4_e2m1fn")
    a[2:] = reimport_own_export(a)[:-2]
    assert a.tolist() == [0.0, 0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0]


def test_reversed_columns_of_a_float64_matrix():
    a = g.asarray([[0.5, 1.5, 2.5], [3.5, 4.5, 5.5]], dtype="float64")
    a[:, ::-1] = via_torch(a)
    assert a.tolist() == [[2.5, 1.5, 0.5], [5.5, 4.5, 3.5]]


def test_random_overlapping_slices_match_numpy():
    rng = random.Random(14)

    def rand_slice(n):
        step = rng.choice([1, 2, 3, -1, -2])
        start = rng.randrange(n)
        stop = rng.randrange(-1, n + 1)
        if stop == -1:
            stop = None
        return slice(start, stop, step)

    for trial in range(400):
        shape = (rng.randrange(1, 7), rng.randrange(1, 7))
        a = g.arange(shape[0] * shape[1]).reshape(*shape)
        n = np.from_dlpack(a).copy()
        dst = (rand_slice(shape[0]), rand_slice(shape[1]))
        nd = n[dst]
        if nd.size == 0:
            continue
        # A source of the destination's shape taken from the same memory.
        src_rows = rng.choice([slice(None), slice(None, None, -1)])
        cand = n[src_rows]
        window = cand[: nd.shape[0], : nd.shape[1]]
        if window.shape != nd.shape:
            continue
        alias = rng.choice(OTHER_OWNERS)(a)
        g_src = alias[src_rows][: nd.shape[0], : nd.shape[1]]
        n[dst] = window
        a[dst] = g_src
        assert a.tolist() == n.tolist(), (trial, shape, dst, src_rows)
