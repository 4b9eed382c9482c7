"""Round trips between godlpack and PyTorch through DLPack, zero-copy both ways.

godlpack.from_dlpack(tensor) takes PyTorch's DLPack C exchange API
(torch.Tensor.__dlpack_c_exchange_api__): no capsule and no Python call.

Run: python examples/torch_roundtrip.py
(godlpack importable: installed, or PYTHONPATH=pyext after `python build.py ext`)
"""

from __future__ import annotations

import godlpack
import torch
import torch.utils.dlpack


def go_to_torch() -> None:
    """A Go-owned Array seen by PyTorch: same memory, in-place ops visible in Go."""
    a = godlpack.arange(12, dtype=godlpack.float32).reshape(3, 4)
    t = torch.utils.dlpack.from_dlpack(a)
    assert t.data_ptr() == a.data_ptr and t.dtype == torch.float32
    t.mul_(2)
    assert a[1, 1] == 10.0

    # A strided view: every other column, doubled again in place by PyTorch.
    cols = torch.utils.dlpack.from_dlpack(a[:, ::2])
    assert cols.stride() == (4, 2)
    cols.add_(1)
    assert a.tolist() == [[1.0, 2.0, 5.0, 6.0], [9.0, 10.0, 13.0, 14.0], [17.0, 18.0, 21.0, 22.0]]
    print(f"godlpack -> torch: zero-copy, {t.dtype}{list(t.shape)}")


def torch_to_go() -> None:
    """A bfloat16 tensor (a dtype NumPy lacks) imported into godlpack and back."""
    t = torch.arange(6, dtype=torch.bfloat16).reshape(2, 3)
    b = godlpack.from_dlpack(t)
    assert b.data_ptr == t.data_ptr() and b.dtype == godlpack.bfloat16
    assert b.shape == (2, 3) and b.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    b[0, 0] = 0.5  # rounded to bfloat16 as ml_dtypes does, written into PyTorch's memory
    assert t[0, 0].item() == 0.5

    # The full circle: torch -> godlpack -> torch, still the same storage.
    back = torch.utils.dlpack.from_dlpack(b)
    assert back.data_ptr() == t.data_ptr() and back.dtype == torch.bfloat16
    assert torch.equal(back, t)
    print(f"torch -> godlpack -> torch: zero-copy, {b!r}")


def main() -> None:
    go_to_torch()
    torch_to_go()
    print("torch round trip: OK")


if __name__ == "__main__":
    main()
