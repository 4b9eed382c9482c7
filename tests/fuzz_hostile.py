"""Python-level fuzz of godlpack's constructors, indexing and assignment with
hostile objects: __index__ / __float__ / __complex__ that mutate the list being
read, raise, or return huge or wrong values, while a second thread keeps
replacing the contents of the shared lists.

Any Python exception is an acceptable answer; the process dying is not. So run
this in a child process and check its exit status: tests/fuzz.sh does (FUZZTIME
bounds it), and tests/test_hostile_python.py runs a short fixed-seed round.

    python tests/fuzz_hostile.py [--seconds S] [--iterations N] [--seed K] [--no-thread]

It prints the seed first, so a crash can be replayed with the same seed (the
second thread adds timing the seed does not fix: replay with --no-thread first).
"""

from __future__ import annotations

import argparse
import fractions
import gc
import random
import sys
import threading
import time

import godlpack as g

# Every dtype godlpack has, and None (inferred).
DTYPES = [None] + [row[0] for row in g._godlpack._dtype_table()]
HUGE = [2**63, 2**64, -(2**63) - 1, 2**100, -(2**200), 10**30]

# The lists the hostile objects and the second thread attack; every operation
# reads one of them.
shared: list[list] = [[] for _ in range(4)]
junk: list = []


class Hostile:
    """A number whose conversions do something nasty, chosen by its seed."""

    def __init__(self, rng: random.Random):
        self.action = rng.randrange(9)
        self.target = rng.randrange(len(shared))
        self.value = rng.choice([0, 1, 2, 3, -1, 7, 2.5, float("nan"), float("inf")] + HUGE)

    def _act(self):
        L = shared[self.target]
        a = self.action
        if a == 0:
            L.clear()
        elif a == 1:
            L[:] = [bytearray(64) for _ in range(50)]  # reuse the freed memory
        elif a == 2:
            del L[: len(L) // 2]
        elif a == 3:
            L.extend([1.0] * 8)
        elif a == 4:
            raise ValueError("hostile")
        elif a == 5:
            raise OverflowError("hostile")
        elif a == 6:
            gc.collect()
        elif a == 7:
            junk[:] = [[object()] * 10 for _ in range(20)]
        # 8: behave

    def __index__(self):
        self._act()
        v = self.value
        return v if isinstance(v, int) else 3

    def __float__(self):
        self._act()
        return float(self.value)

    def __complex__(self):
        self._act()
        return complex(float(self.value), 1.0)


class WrongType:
    def __index__(self):
        return "not an int"

    def __float__(self):
        return "not a float"


def item(rng: random.Random, depth: int = 0):
    r = rng.random()
    if r < 0.35:
        return Hostile(rng)
    if r < 0.45:
        return WrongType()
    if r < 0.55 and depth < 3:
        return random_list(rng, depth + 1)
    if r < 0.65:
        return fractions.Fraction(rng.randrange(-9, 9), rng.randrange(1, 5))
    return rng.choice([0, 1, -1, 2.5, True, 1j, float("nan"), 3] + HUGE)


def random_list(rng: random.Random, depth: int = 0) -> list:
    return [item(rng, depth) for _ in range(rng.randrange(0, 7))]


def fill_shared(rng: random.Random) -> list:
    L = shared[rng.randrange(len(shared))]
    L[:] = random_list(rng)
    if rng.random() < 0.3:
        L[:] = [[item(rng, 3) for _ in range(3)] for _ in range(rng.randrange(1, 4))]
    return L


def one_op(rng: random.Random) -> None:
    L = fill_shared(rng)
    dt = rng.choice(DTYPES)
    kind = rng.randrange(12)
    if kind == 0:
        rng.choice([g.empty, g.zeros, g.ones])(L, dtype=dt)
    elif kind == 1:
        g.full(L, rng.choice([Hostile(rng), 1.5, WrongType()]), dtype=dt)
    elif kind == 2:
        g.asarray(L, dtype=dt)
    elif kind == 3:
        g.asarray([L, L], dtype=dt)
    elif kind == 4:
        a = g.zeros(rng.randrange(0, 8), dtype=dt or "float64")
        a[:] = L
    elif kind == 5:
        a = g.zeros((3, 3), dtype=dt or "float64")
        a[rng.choice([0, 1, slice(None), (0, slice(None)), Hostile(rng)])] = rng.choice(
            [L, Hostile(rng)]
        )
    elif kind == 6:
        g.zeros(12).reshape(L)
    elif kind == 7:
        g.from_dlpack(g.zeros(2), device=L)
    elif kind == 8:
        a = g.arange(24).reshape(2, 3, 4)
        key = tuple(
            rng.choice(
                [
                    Hostile(rng),
                    None,
                    Ellipsis,
                    slice(Hostile(rng), None),
                    slice(None, None, Hostile(rng)),
                    0,
                    -1,
                ]
            )
            for _ in range(rng.randrange(0, 6))
        )
        a[key]
    elif kind == 9:
        args = [
            rng.choice([Hostile(rng), 0, 5, -(2**63), 2**63 - 1, 2**62, 1.5, float("inf")])
            for _ in range(rng.randrange(1, 4))
        ]
        g.arange(*args)
    elif kind == 10:
        g.zeros(3)[(None,) * rng.randrange(60, 70)]
    else:
        g.asarray(L, dtype=dt).tolist()


def mutator(rng: random.Random, stop: threading.Event) -> None:
    while not stop.is_set():
        L = shared[rng.randrange(len(shared))]
        L[:] = [fractions.Fraction(i, 7) for i in range(rng.randrange(0, 30))]
        L[:] = [bytearray(32) for _ in range(rng.randrange(0, 30))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument(
        "--iterations", type=int, default=0, help="stop after N operations (0: time only)"
    )
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--no-thread", action="store_true")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    print(f"fuzz_hostile seed={seed}", flush=True)
    rng = random.Random(seed)
    stop = threading.Event()
    thread = None
    if not args.no_thread:
        thread = threading.Thread(target=mutator, args=(random.Random(seed + 1), stop), daemon=True)
        thread.start()
    sys.setswitchinterval(1e-5)  # switch threads often: mutations land mid-conversion
    deadline = time.monotonic() + args.seconds
    ops = errors = 0
    while time.monotonic() < deadline and (args.iterations == 0 or ops < args.iterations):
        try:
            one_op(rng)
        except Exception:
            errors += 1
        ops += 1
    stop.set()
    if thread is not None:
        thread.join()
    print(f"fuzz_hostile ok: {ops} operations, {errors} raised", flush=True)


if __name__ == "__main__":
    main()
