"""Python-level fuzz of what unpickling an Array runs, field by field: every field
of a pickle payload is whatever the pickle says, so ``_rebuild`` (plain pickles),
``_rebuild_shared`` (multiprocessing's shared-memory handles), ``_wrap_buffer``
(what both call) and ``_bits_as`` get hostile values in each position: None, wrong
types, unknown or inconsistent dtypes, negative, huge and hostile ``__index__``
dimensions, buffers too short, too long, strided, read-only or of another format,
truthiness that raises. Whatever loads is then used (read, written, copied,
pickled again) to show that it describes only memory it may touch.

The answer must be an exception godlpack raises for bad input (TypeError,
ValueError, OverflowError, IndexError, BufferError, MemoryError; OSError from the
memfd calls of shared arrays) or an Array; anything else (SystemError, a crash)
fails. Run it in a child process: tests/fuzz.sh does (FUZZTIME bounds it) and
tests/test_pickle_payloads.py runs a short fixed-seed round.

    python tests/fuzz_pickle.py [--seconds S] [--iterations N] [--seed K]

It prints the seed first, so a failure can be replayed.
"""

from __future__ import annotations

import argparse
import array
import mmap
import os
import pickle
import random
import resource
import time

import godlpack as g
import numpy as np
from godlpack import _godlpack
from godlpack._pickling import _rebuild
from godlpack._shared import _rebuild_shared

ALLOWED = (TypeError, ValueError, OverflowError, IndexError, BufferError, MemoryError)
NAMES = [d.name for d in g.dtypes]
HUGE = [2**31, 2**32, 2**62, 2**63 - 1, 2**63, 2**64, 2**100, -1, -(2**63)]


class RaisingBool:
    def __bool__(self):
        raise ZeroDivisionError("hostile __bool__")


class HostileIndex:
    """An int whose __index__ answers differently each time, or raises."""

    def __init__(self, rng: random.Random):
        self.values = [rng.choice([0, 1, 3, 8] + HUGE) for _ in range(3)]
        self.raises = rng.random() < 0.2

    def __index__(self):
        if self.raises:
            raise OverflowError("hostile __index__")
        self.values.append(self.values.pop(0))
        return self.values[0]


class WeirdStr(str):
    """A dtype name whose __eq__ and __hash__ lie (godlpack must read the text)."""

    def __eq__(self, other):
        return True

    def __hash__(self):
        return 0


def dtype_field(rng: random.Random):
    r = rng.random()
    if r < 0.5:
        return rng.choice(NAMES)
    return rng.choice(
        [
            None,
            0,
            3.5,
            b"float32",
            "float128",
            "",
            "x" * 5000,
            "float32\0junk",
            WeirdStr(rng.choice(NAMES)),
            rng.choice(g.dtypes),
            np.float32,
            np.dtype("int16"),
            np.dtype(">f4"),
            object(),
            RaisingBool(),
            (rng.choice(NAMES),),
        ]
    )


def dim(rng: random.Random):
    r = rng.random()
    if r < 0.6:
        return rng.randrange(0, 9)
    if r < 0.75:
        return rng.choice(HUGE)
    if r < 0.85:
        return HostileIndex(rng)
    return rng.choice([1.0, "3", None, True, np.int64(4), np.uint8(2), [2]])


def shape_field(rng: random.Random):
    r = rng.random()
    if r < 0.8:
        return tuple(dim(rng) for _ in range(rng.randrange(0, 5)))
    return rng.choice([None, 4, [2, 2], (1,) * 65, (0,) * 64, "22", {2: 2}, (2**32,) * 2])


def data_field(rng: random.Random, want: int):
    n = want if rng.random() < 0.6 else rng.choice([0, 1, want - 1, want + 1, 7, 64])
    n = max(0, min(n, 1 << 16))
    raw = bytes(rng.randrange(256) for _ in range(min(n, 64))).ljust(n, b"\0")
    r = rng.random()
    if r < 0.3:
        return bytearray(raw)
    if r < 0.45:
        return raw
    if r < 0.55:
        return pickle.PickleBuffer(bytearray(raw))
    if r < 0.65:
        return memoryview(bytearray(raw * 2))[::2]  # not contiguous
    if r < 0.72:
        return memoryview(raw).toreadonly()
    if r < 0.78 and n % 8 == 0:
        return memoryview(bytearray(raw)).cast("d")
    if r < 0.84:
        return array.array("B", raw)
    if r < 0.9:
        return np.frombuffer(bytearray(raw * 2), np.uint8)[::2]
    return rng.choice([None, 12345, "text", [1, 2], RaisingBool()])


def flag(rng: random.Random):
    return rng.choice([True, False, None, 0, 1, RaisingBool(), np.bool_(True), "", "x"])


def nbytes_of(name, shape) -> int:
    try:
        bits = next(d.bits for d in g.dtypes if d.name == name)
        n = 1
        for d in shape:
            n *= int(d)
        return (n * bits + 7) // 8
    except Exception:
        return 16


def use(a) -> None:
    """Touches every element of a loaded Array, in every way a user would."""
    assert isinstance(a, g.Array), type(a)
    if a.size > 100_000:  # a stride-0 view over a small buffer: only its edges
        repr(a)
        return
    a.tolist()
    repr(a)
    b = a.copy()
    pickle.loads(pickle.dumps(a, 5))
    pickle.loads(pickle.dumps(a, 2))
    if not a.readonly and a.size:
        a[(0,) * a.ndim] = 1
    if a.dtype.bits >= 8 and a.dtype.name not in ("bool",):
        try:
            np.asarray(a).sum()
        except TypeError:  # no ml_dtypes dtype for the packed sub-byte types
            pass
    del b


def one_op(rng: random.Random, memfd: int) -> None:
    name = dtype_field(rng)
    shape = shape_field(rng)
    want = nbytes_of(name, shape if isinstance(shape, tuple) else ())
    kind = rng.randrange(5)
    if kind == 0:
        args = [name, shape, flag(rng), data_field(rng, want)]
        if rng.random() < 0.5:
            args.append(flag(rng))
        if rng.random() < 0.05:
            args.append("extra")
        out = _rebuild(*args)
    elif kind == 1:  # a plain pickle whose payload is the fields above
        args = (name, shape, flag(rng), data_field(rng, want), flag(rng))
        try:
            s = pickle.dumps(_Payload(args), rng.choice([2, 4, 5]))
        except Exception:
            return  # the fields themselves do not pickle: not our input
        out = pickle.loads(s)
    elif kind == 2:
        strides = rng.choice(
            [
                None,
                (),
                shape,
                tuple(rng.choice([0, 1, -1, 8, 2**62, -(2**63)]) for _ in range(4)),
                3,
            ]
        )
        if isinstance(strides, tuple) and isinstance(shape, tuple):
            strides = strides[: len(shape)]
        out = _godlpack._wrap_buffer(
            data_field(rng, want),
            name,
            shape,
            strides,
            rng.choice([0, 1, 8, -1, 2**63 - 1, 2**64, HostileIndex(rng), None, 1.5]),
            flag(rng),
            rng.choice([None, object(), 5]),
            flag(rng),
        )
    elif kind == 3:
        size = rng.choice([want, 0, 1, want - 1, -5, 2**40, 2**63, 1.5, None])
        out = _rebuild_shared(
            _Fd(memfd),
            size,
            rng.choice([0, 1, 8, -8, 2**62, None]),
            name,
            shape,
            rng.choice([None, (), (0,) * 4, (1,) * 4, (-1,) * 4])[
                : len(shape) if isinstance(shape, tuple) else 4
            ],
            flag(rng),
        )
    else:
        a = g.arange(24, dtype=rng.choice(["uint8", "int16", "float32", "int64"]))
        out = a._bits_as(name)
    use(out)


class _Payload:
    """An object that pickles as an Array payload with the given fields."""

    def __init__(self, args):
        self.args = args

    def __reduce__(self):
        return (_rebuild, self.args)


class _Fd:
    """multiprocessing's DupFd: detach() hands over a new descriptor."""

    def __init__(self, fd: int):
        self.fd = fd

    def detach(self) -> int:
        return os.dup(self.fd)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--iterations", type=int, default=0, help="stop after N operations")
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    # An allocation sized by a hostile field must be MemoryError, not the machine's
    # memory: cap the address space as the crash tests do.
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    print(f"fuzz_pickle seed={seed}", flush=True)
    rng = random.Random(seed)
    memfd = os.memfd_create("fuzz_pickle", os.MFD_CLOEXEC)
    os.ftruncate(memfd, 4096)
    mmap.mmap(memfd, 4096)[:8] = b"\1" * 8
    deadline = time.monotonic() + args.seconds
    ops = loaded = 0
    raised: dict[str, int] = {}
    while time.monotonic() < deadline and (args.iterations == 0 or ops < args.iterations):
        ops += 1
        try:
            one_op(rng, memfd)
            loaded += 1
        except ALLOWED + (OSError, ZeroDivisionError, pickle.PicklingError) as e:
            # OSError: mmap of a size the memfd has not; ZeroDivisionError: the
            # hostile __bool__'s own exception, passed on
            raised[type(e).__name__] = raised.get(type(e).__name__, 0) + 1
    print(
        f"fuzz_pickle ok: {ops} operations, {loaded} loaded, raised {sorted(raised.items())}",
        flush=True,
    )


if __name__ == "__main__":
    main()
