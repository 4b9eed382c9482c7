"""The device an export says it is on.

An Array imported from host-accessible memory (kDLCUDAHost, kDLROCMHost,
kDLCUDAManaged) keeps its producer's label; a consumer that asks for the CPU with
``dl_device=(kDLCPU, 0)`` gets the same memory labelled CPU, which it accepts (PyTorch
refuses device type 3), and ``from_dlpack(x, device="cpu")`` returns an Array that says
CPU. The producers are hand-made in ctypes (tests/_malformed.py).
"""

from __future__ import annotations

import struct

import godlpack as g
import numpy as np
import pytest
import torch
from _malformed import filled, full_collect, kDLCPU, kDLCUDAHost, kDLCUDAManaged, kDLROCMHost

HOST_DEVICES = [(kDLCUDAHost, 0), (kDLROCMHost, 1), (kDLCUDAManaged, 0)]
VALUES = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def released(*producers) -> bool:
    """Whether each producer's deleter has run exactly once, after a full collection."""
    full_collect()
    return all(p.deleted == 1 for p in producers)


def host_array(device):
    p = filled(struct.pack("<6d", *VALUES), shape=(6,), device=device)
    a = g.from_dlpack(p.capsule())
    assert tuple(a.__dlpack_device__()) == device  # the producer's label is kept
    return p, a


@pytest.mark.parametrize("device", HOST_DEVICES)
@pytest.mark.parametrize("max_version", [(1, 3), None], ids=["versioned", "legacy"])
def test_export_asked_for_cpu_is_labelled_cpu(dl, device, max_version):
    p, a = host_array(device)
    cap = a.__dlpack__(max_version=max_version, dl_device=(kDLCPU, 0))
    t = dl.capsule_managed(cap).dl_tensor
    assert (t.device.device_type, t.device.device_id) == (kDLCPU, 0)
    assert t.data == a.data_ptr  # the same memory, not a copy
    del cap
    # Asking for nothing, or for its own device, keeps the label.
    for kw in ({}, {"dl_device": device}):
        t = dl.capsule_managed(a.__dlpack__(max_version=(1, 3), **kw)).dl_tensor
        assert (t.device.device_type, t.device.device_id) == device
    del a, t
    assert released(p)


@pytest.mark.parametrize("device", HOST_DEVICES)
def test_torch_takes_the_cpu_labelled_reexport(device):
    p, a = host_array(device)
    with pytest.raises(BufferError):  # the premise: torch refuses the producer's label
        torch.from_dlpack(a.__dlpack__(max_version=(1, 3)))
    t = torch.from_dlpack(a.__dlpack__(max_version=(1, 3), dl_device=(kDLCPU, 0)))
    assert t.device.type == "cpu" and t.tolist() == VALUES
    assert t.data_ptr() == a.data_ptr
    t2 = torch.from_dlpack(a.__dlpack__(dl_device=(kDLCPU, 0)))  # legacy capsule
    assert t2.tolist() == VALUES
    del a, t, t2
    assert released(p)


@pytest.mark.parametrize("device", HOST_DEVICES)
def test_numpy_asking_for_cpu_shares_the_memory(device):
    p, a = host_array(device)
    n = np.from_dlpack(a, device="cpu")
    assert n.tolist() == VALUES and n.ctypes.data == a.data_ptr
    del a, n
    assert released(p)


@pytest.mark.parametrize("device", HOST_DEVICES)
def test_from_dlpack_asked_for_cpu_says_cpu(device):
    p, a = host_array(device)
    b = g.from_dlpack(a, device="cpu")  # our own Array: a view
    assert tuple(b.__dlpack_device__()) == (kDLCPU, 0)
    assert b.data_ptr == a.data_ptr and b.tolist() == VALUES
    q = filled(struct.pack("<6d", *VALUES), shape=(6,), device=device)
    c = g.from_dlpack(q.capsule(), device="cpu")  # a producer's capsule
    assert tuple(c.__dlpack_device__()) == (kDLCPU, 0) and c.tolist() == VALUES
    assert tuple(a.__dlpack_device__()) == device  # the source keeps its label
    del a, b, c
    assert released(p, q)


def test_export_to_another_device_is_still_refused():
    p, a = host_array((kDLCUDAHost, 0))
    with pytest.raises(BufferError, match=r"cannot export to device \(2, 0\)"):
        a.__dlpack__(max_version=(1, 3), dl_device=(2, 0))
    del a
    assert released(p)
