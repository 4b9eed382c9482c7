"""goextpkg: Python code around a Go extension module (goextpkg._native)."""

from __future__ import annotations

import math

from ._native import sum_squares

__all__ = ["norm", "sum_squares"]


def norm(x: object) -> float:
    """The Euclidean norm of a float64 tensor, from the Go function sum_squares."""
    return math.sqrt(sum_squares(x))
