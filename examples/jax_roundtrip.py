"""Round trips between godlpack and JAX (CPU) through DLPack, zero-copy both ways.

JAX arrays are immutable: nothing here writes to memory JAX is viewing.

Run: python examples/jax_roundtrip.py
(godlpack importable: installed, or PYTHONPATH=pyext after `python build.py ext`)
"""

from __future__ import annotations

import os

# godlpack arrays live in CPU memory; keep JAX on its CPU backend (set before import).
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import godlpack  # noqa: E402
import jax.numpy as jnp  # noqa: E402


def go_to_jax() -> None:
    """A Go-owned Array imported by JAX with no copy, computed on, and read back."""
    a = godlpack.arange(6, dtype=godlpack.float32).reshape(2, 3)
    j = jnp.from_dlpack(a)
    assert j.unsafe_buffer_pointer() == a.data_ptr, "JAX views the Array's own memory"
    assert j.shape == (2, 3) and j.dtype == jnp.float32
    total = jnp.sum(j * 2)  # a new JAX array, computed from the Go-owned memory
    assert float(total) == 30.0
    print(f"godlpack -> jax: zero-copy, {j.dtype}{list(j.shape)}")


def jax_to_go() -> None:
    """A JAX result imported into godlpack, then handed back to JAX."""
    j = jnp.linspace(0.0, 1.0, 5, dtype=jnp.float32)
    b = godlpack.from_dlpack(j)
    assert b.data_ptr == j.unsafe_buffer_pointer() and b.dtype == "float32"
    assert b.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]

    # The full circle: JAX -> godlpack -> JAX, still the same buffer.
    back = jnp.from_dlpack(b)
    assert back.unsafe_buffer_pointer() == j.unsafe_buffer_pointer()
    assert bool(jnp.array_equal(back, j))
    print(f"jax -> godlpack -> jax: zero-copy, {b!r}")


def main() -> None:
    go_to_jax()
    jax_to_go()
    print("jax round trip: OK")


if __name__ == "__main__":
    main()
