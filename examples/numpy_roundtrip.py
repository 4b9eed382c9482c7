"""Round trips between godlpack and NumPy through DLPack, zero-copy both ways.

Run: python examples/numpy_roundtrip.py
(godlpack importable: installed, or PYTHONPATH=pyext after `python build.py ext`)
"""

from __future__ import annotations

import godlpack
import numpy as np


def go_to_numpy() -> None:
    """A Go-owned Array seen by NumPy: same memory, writes visible both ways."""
    a = godlpack.arange(12, dtype=godlpack.float32).reshape(3, 4)
    n = np.from_dlpack(a)
    assert n.ctypes.data == a.data_ptr, "NumPy views the Array's own memory"
    assert n.shape == a.shape and n.dtype == np.float32
    n[0, 0] = 42.0
    assert a[0, 0] == 42.0
    a[2, 3] = -1.0
    assert n[2, 3] == -1.0

    # Views export too, negative strides included (strides are in elements in DLPack).
    r = np.from_dlpack(a[:, ::-1])
    assert r.strides == (16, -4)
    assert r[0].tolist() == [3.0, 2.0, 1.0, 42.0]

    # The memory lives as long as anyone holds it: the Array can go first.
    del a
    assert n.tolist() == [[42.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, -1.0]]
    print(f"godlpack -> numpy: zero-copy, {n.dtype}{list(n.shape)}")


def numpy_to_go() -> None:
    """A NumPy array imported into godlpack, then handed back to NumPy."""
    m = np.linspace(0.0, 1.0, 5)
    b = godlpack.from_dlpack(m)
    assert b.data_ptr == m.ctypes.data and b.dtype == "float64"
    assert not b.flags["owndata"], "the memory stays NumPy's"
    m[0] = -1.0
    assert b[0] == -1.0

    # The full circle: NumPy -> godlpack -> NumPy, still the same memory.
    back = np.from_dlpack(b)
    assert back.ctypes.data == m.ctypes.data

    # Read-only NumPy arrays import read-only.
    frozen = np.arange(3, dtype=np.int16)
    frozen.flags.writeable = False
    assert godlpack.from_dlpack(frozen).readonly

    # copy=True gives a Go-owned copy, flagged as copied.
    c = godlpack.from_dlpack(m, copy=True)
    assert c.data_ptr != m.ctypes.data and c.flags["is_copied"]
    assert c.tolist() == m.tolist()
    print(f"numpy -> godlpack -> numpy: zero-copy, {b!r}")


def main() -> None:
    go_to_numpy()
    numpy_to_go()
    print("numpy round trip: OK")


if __name__ == "__main__":
    main()
