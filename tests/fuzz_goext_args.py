"""Python-level fuzz of the arguments of extensions written in Go (examples/goext,
tests/goext2): hostile and malformed producers (raising any exception, returning
wrong objects, malformed managed tensors), views of every layout (aliased ones
included) and dtype from NumPy, PyTorch and godlpack, used capsules, hostile
numbers, strings UTF-8 cannot encode, wrong keywords and counts, passed to every
function that returns promptly.

Any ordinary exception is an acceptable answer, with these exceptions: SystemError
(an exception lost on the way) is a bug; a producer's own exception must come back
as the very object it raised; and an in-place function that accepted a NumPy view
must have written it as NumPy's own in-place operation does (an aliased view must
have been refused). The process dying or hanging is a bug. So run it in a child
process: tests/fuzz.sh does (FUZZTIME bounds it), and
tests/test_goext_arguments.py runs a short fixed-seed round.

    python tests/fuzz_goext_args.py [--seconds S] [--iterations N] [--seed K]

goext and goext2 must be importable (tests/goext_build.py folder goext prints
where). It prints the seed first, so a failure can be replayed.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time

import godlpack as g
import goext
import goext2
import numpy as np
import torch
from _malformed import ManagedTensor, Producer
from numpy.lib.stride_tricks import as_strided

DTYPES = [np.float64, np.float32, np.int64, np.int8, np.uint8, np.bool_, np.complex64, np.float16]
HUGE = [2**63, 2**64, -(2**63) - 1, 10**30]


class TwoArgs(Exception):
    def __init__(self, a, b):
        super().__init__(a, b)


def exception(rng: random.Random) -> BaseException:
    return rng.choice(
        [
            lambda: KeyError("k"),
            lambda: TwoArgs(1, [2]),
            lambda: TypeError("producer's own"),
            lambda: BufferError("no"),
            lambda: ValueError("v", 3),
            lambda: UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed"),
            lambda: AttributeError("inside __dlpack__"),
            lambda: OSError(5, "io"),
            lambda: RecursionError(),
        ]
    )()


class Number:
    """An int/float argument whose __index__ / __float__ raise or return anything."""

    def __init__(self, rng: random.Random):
        self.exc = exception(rng) if rng.random() < 0.5 else None
        self.value = rng.choice([0, 1, 2, 3, -1, 7, 0.5] + HUGE)
        self.collect = rng.random() < 0.2

    def __index__(self):
        if self.collect:
            gc.collect()
        if self.exc is not None:
            raise self.exc
        return self.value if isinstance(self.value, int) else 3

    def __float__(self):
        if self.exc is not None:
            raise self.exc
        return float(self.value) if abs(self.value) < 1e6 else 0.0


def numpy_view(rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    """(base, view): a view of a fresh 1-d base in a random layout, aliased ones too."""
    dt = rng.choice(DTYPES)
    base = (np.arange(1, 61) % 7).astype(dt)
    kind = rng.randrange(6)
    if kind == 0:
        shape = tuple(rng.randrange(0, 4) for _ in range(rng.randrange(0, 4)))
        n = int(np.prod(shape))
        view = base[:n].reshape(shape)
    elif kind == 1:
        view = base[:24].reshape(2, 3, 4)[:: rng.choice([1, -1]), :: rng.choice([1, 2]), ::-1]
    elif kind == 2:
        view = base[:24].reshape(4, 6).T
    else:
        ndim = rng.randrange(1, 4)
        shape = tuple(rng.randrange(0, 5) for _ in range(ndim))
        strides = tuple(rng.randrange(-3, 4) for _ in range(ndim))
        lo = sum(min(0, (d - 1) * s) for d, s in zip(shape, strides, strict=True) if d > 0)
        hi = sum(max(0, (d - 1) * s) for d, s in zip(shape, strides, strict=True) if d > 0)
        if hi - lo >= base.size:
            shape, strides, lo = (2,), (1,), 0
        item = base.itemsize
        view = as_strided(
            base[-lo:], shape, tuple(s * item for s in strides), writeable=rng.random() < 0.9
        )
    if rng.random() < 0.1:
        view = view.view()
        view.flags.writeable = False
    return base, view


def torch_tensor(rng: random.Random):
    kind = rng.randrange(6)
    if kind == 0:
        return torch.ones(1, dtype=torch.float64).expand(rng.randrange(0, 6))
    if kind == 1:
        return torch.arange(12, dtype=torch.float32).reshape(3, 4).T
    if kind == 2:
        return torch.arange(6.0, dtype=torch.float64).as_strided((3, 2), (1, 1))
    if kind == 3:
        return torch.zeros((0, rng.randrange(0, 4)), dtype=torch.float64)
    if kind == 4:
        return torch.arange(4.0, dtype=torch.float64).flip(0)
    return torch.arange(6, dtype=torch.int64)


def malformed(rng: random.Random):
    """A hand-made managed tensor, in a capsule or behind __dlpack__: fields broken
    in the ways the validator refuses, or valid over a buffer large enough."""
    kw: dict = {"nbytes": 256, "shape": (4,), "dtype": (2, 64, 1)}
    field = rng.randrange(8)
    if field == 0:
        kw["shape"] = (-1,)
    elif field == 1:
        kw["dtype"] = rng.choice([(2, 13, 1), (99, 8, 1), (2, 64, 0), (2, 32, 4)])
    elif field == 2:
        kw["version"] = rng.choice([(2, 0), (0, 9)])
    elif field == 3:
        kw["shape"], kw["strides"] = (2**40, 2**40), (1, 1)
    elif field == 4:
        kw["device"] = rng.choice([(2, 0), (99, 0)])
    elif field == 5:
        kw["flags"] = rng.choice([1, 2, 1 << 40])
    elif field == 6:
        kw["shape"], kw["strides"] = (3, 2), (1, 1)  # aliased, in the buffer
    else:
        kw["data"] = 0
    m = ManagedTensor(**kw)
    return m.capsule() if rng.random() < 0.5 else Producer(m.capsule())


def tensor_arg(rng: random.Random):
    """(argument, own exception or None, numpy (base, view) or None)."""
    kind = rng.randrange(10)
    if kind <= 3:
        base, view = numpy_view(rng)
        return view, None, (base, view)
    if kind == 4:
        return torch_tensor(rng), None, None
    if kind == 5:
        _, view = numpy_view(rng)
        try:
            return g.asarray(view), None, None
        except Exception:
            return view, None, None
    if kind == 6:
        exc = exception(rng)
        return Producer(raises=exc), exc, None
    if kind == 7:
        return Producer(result=rng.choice([None, 3, "capsule", object()])), None, None
    if kind == 8:
        cap = np.ones(3).__dlpack__()
        if rng.random() < 0.5:
            np.from_dlpack(Producer(cap))  # used
        return cap, None, None
    return malformed(rng), None, None


def scalar(rng: random.Random, kind: str):
    r = rng.random()
    if r < 0.4:
        return Number(rng)
    if r < 0.5:
        return rng.choice(["\ud800", "x", b"b", None, [], 1j])
    if kind == "int":
        return rng.choice([0, 1, 5, -1] + HUGE)
    if kind == "str":
        return rng.choice(["msg", "\udfff", "é"])
    return rng.choice([0.0, 2.0, -1.5, float("nan"), 3])


# name -> (function, parameter kinds); every function returns promptly.
FUNCS = {
    "scale": (goext.scale, ["t", "float"]),
    "scale_": (goext.scale_, ["mut", "float"]),
    "sum": (goext.sum, ["t"]),
    "matmul": (goext.matmul, ["t", "t"]),
    "describe": (goext.describe, ["t"]),
    "fill": (goext.fill, ["mut", "float"]),
    "touch": (goext.touch, ["t"]),
    "fail": (goext.fail, ["str"]),
    "hold": (goext.hold, ["t"]),
    "release": (goext.release, []),
    "keep_elsewhere": (goext.keep_elsewhere, ["t"]),
    "ramp": (goext2.ramp, ["int", "float"]),
    "pixels": (goext2.pixels, ["t"]),
    "total": (goext2.total, ["t"]),
    "negate": (goext2.negate, ["mut"]),
    "fill_all": (goext2.fill_all, ["mut", "float"]),
    "weighted_sum": (goext2.weighted_sum, ["t", "t", "float"]),
    "clear": (goext2.clear, ["mut"]),
    "ndim_of": (goext2.ndim_of, ["t"]),
}

# In-place functions and NumPy's own in-place operation for them.
IN_PLACE = {
    "scale_": lambda v, k: v.__imul__(v.dtype.type(k)),
    "negate": lambda v: np.negative(v, out=v),
}


class Bug(AssertionError):
    pass


def one_op(rng: random.Random) -> bool:
    """One call; True if it raised (acceptably)."""
    name = rng.choice(list(FUNCS))
    fn, kinds = FUNCS[name]
    args, owns, views = [], [], []
    for k in kinds:
        if k in ("t", "mut"):
            a, own, nv = tensor_arg(rng)
            args.append(a)
            owns.append(own)
            views.append(nv)
        else:
            args.append(scalar(rng, k))
    r = rng.random()
    if r < 0.05:
        args.append(1)  # one too many
    elif r < 0.1 and args:
        args.pop()
    kwargs = {"bogus": 1} if rng.random() < 0.03 else {}
    try:
        fn(*args, **kwargs)
    except SystemError as e:
        raise Bug(f"{name}: SystemError {e!r}") from e
    except Exception as e:
        bound = len(args) == len(kinds) and not kwargs
        first = owns[0] if owns else None  # the first argument's own exception comes first
        if bound and first is not None and kinds[0] in ("t", "mut") and e is not first:
            raise Bug(f"{name}: the producer raised {first!r}, the call {e!r}") from e
        return True
    if name in IN_PLACE and views[0] is not None:
        check_in_place(name, args, views[0])
    return False


def check_in_place(name: str, args: list, bv) -> None:
    """An in-place call accepted a NumPy view: its result must be NumPy's."""
    base, view = bv
    if view.dtype not in (np.float32, np.float64):
        return
    # Replay on a fresh base (the values numpy_view made): the same view of it,
    # written by NumPy.
    after = base.copy()
    copy = (np.arange(1, 61) % 7).astype(base.dtype)
    addr = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    offset = addr // view.itemsize
    mirror = as_strided(copy[offset:], view.shape, view.strides)
    if name == "scale_":
        k = args[1]
        try:
            k = float(k)
        except Exception:
            return
        IN_PLACE[name](mirror, k)
    else:
        IN_PLACE[name](mirror)
    if not np.array_equal(after, copy, equal_nan=True):
        raise Bug(
            f"{name} wrote view shape {view.shape} strides {view.strides}: "
            f"got {after.tolist()}, NumPy {copy.tolist()}"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--iterations", type=int, default=0, help="stop after N calls (0: time only)")
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    print(f"fuzz_goext_args seed={seed}", flush=True)
    rng = random.Random(seed)
    deadline = time.monotonic() + args.seconds
    ops = errors = 0
    while time.monotonic() < deadline and (args.iterations == 0 or ops < args.iterations):
        errors += one_op(rng)
        ops += 1
    goext.release()
    print(f"fuzz_goext_args ok: {ops} calls, {errors} raised", flush=True)


if __name__ == "__main__":
    sys.exit(main())
