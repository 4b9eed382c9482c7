"""vec's float32 Sum's documented error bound (dlpack/vec/reduce.go's top), for the tests
that check sums of float32 data: at most 6 float32 ulps of the sum of |x| from the float32
lanes (an element takes 3 roundings in its block's lane and 3 in its unit's), plus float64
ones from the rest (the blocks' float64 lanes and the leaves' pairwise sums)."""

from __future__ import annotations

import math

import numpy as np

FLOAT32_LANE_ULPS = 6


def float32_sum_bound(x) -> float:
    """The bound on |vec.Sum(x) - the exact sum| for float32 x of any shape."""
    magnitudes = np.abs(np.asarray(x, np.float64)).ravel().tolist()
    return (FLOAT32_LANE_ULPS * 2.0**-24 + 80 * 2.0**-53) * math.fsum(magnitudes)
