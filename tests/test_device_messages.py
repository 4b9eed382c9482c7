"""Refusals of non-CPU devices name a fix that works.

A kDLOneAPI tensor (dpnp on a CPU SYCL device) used to be refused with "copy the
tensor to the CPU first", which a user cannot do from the message; the producer
makes that copy when asked through ``dl_device``, which ``from_dlpack(x,
device=(1, 0))`` and ``asarray(x, device='cpu')`` do. Each test here follows the
message it checks and shows that the fix it names works.
"""

from __future__ import annotations

import ctypes

import godlpack as g
import pytest
from _malformed import (
    CODE_FLOAT,
    ManagedTensor,
    kDLCPU,
    kDLCUDA,
    kDLCUDAHost,
    kDLOneAPI,
)

kDLROCM, kDLVulkan, kDLMetal = 10, 7, 8


class DeviceProducer:
    """A producer whose tensor lives on device, and that copies it to the CPU when
    __dlpack__ is asked for dl_device=(kDLCPU, 0), as dpnp, CuPy and PyTorch do."""

    def __init__(self, device: tuple[int, int]):
        self.device = device

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        on = self.device if dl_device in (None, self.device) else tuple(dl_device)
        assert on in (self.device, (kDLCPU, 0)), on
        # a buffer per tensor: a refused one's deleter overwrites its buffer
        t = ManagedTensor(
            (ctypes.c_double * 3)(1.0, 2.0, 3.0), dtype=(CODE_FLOAT, 64, 1), shape=(3,), device=on
        )
        return t.capsule()

    def __dlpack_device__(self):
        return self.device


DEVICES = [(kDLOneAPI, 0), (kDLCUDA, 0), (kDLROCM, 1), (kDLVulkan, 0), (kDLMetal, 0)]


@pytest.mark.parametrize("device", DEVICES)
def test_device_refusal_names_from_dlpack_device_and_that_works(device):
    x = DeviceProducer(device)
    with pytest.raises(BufferError) as info:
        g.from_dlpack(x)
    msg = str(info.value)
    assert "not CPU-accessible" in msg and "from_dlpack(x, device=(1, 0))" in msg, msg
    assert "copy the tensor to the CPU first" not in msg
    with pytest.raises(BufferError, match=r"device=\(1, 0\)"):
        g.asarray(x)
    # the fixes the message names
    assert g.from_dlpack(x, device=(1, 0)).tolist() == [1.0, 2.0, 3.0]
    assert g.from_dlpack(x, device="cpu").tolist() == [1.0, 2.0, 3.0]
    assert g.asarray(x, device="cpu").tolist() == [1.0, 2.0, 3.0]


def test_bare_capsule_refusal_says_to_ask_the_producer():
    cap = ManagedTensor(dtype=(CODE_FLOAT, 64, 1), shape=(2,), device=(kDLOneAPI, 0)).capsule()
    with pytest.raises(BufferError, match=r"x.__dlpack__\(dl_device=\(1, 0\)\)"):
        g.from_dlpack(cap)


def test_pinned_memory_is_still_imported():
    # CPU-accessible devices need no fix (the message is for the others only)
    x = DeviceProducer((kDLCUDAHost, 0))
    assert g.from_dlpack(x).tolist() == [1.0, 2.0, 3.0]


def test_unsupported_device_keywords_name_what_works():
    for device in [(kDLCUDA, 0), (kDLCPU, 1), "cuda"]:
        with pytest.raises(ValueError, match=r"use device=None, 'cpu' or \(1, 0\)"):
            g.from_dlpack(g.zeros(2), device=device)
        with pytest.raises(ValueError, match=r"torch.from_dlpack\(a\).to\('cuda'\)"):
            g.asarray([1.0], device=device)
    with pytest.raises(BufferError, match="copy it to the device with the consumer's library"):
        g.zeros(2).__dlpack__(dl_device=(kDLCUDA, 0))
