#!/usr/bin/env python3
"""Regenerate dlpack/vec/testdata/vec_golden.json.gz, the NumPy oracle of package vec.

For each dtype the file holds three inputs a, b, c of N elements (random, with NaN,
+-0, +-Inf, subnormals and huge values planted in the float ones) and NumPy's result of
every element-wise operation on the whole arrays: since each result element depends
on its own inputs only, the Go test checks any slice, offset, stride (negative, zero)
and length against the same golden arrays. Reductions are recorded per (offset,
length, stride) case: NumPy's result and the exact value (math.fsum) for the sums.
Casts: every pair of the numeric dtypes, bfloat16 and float16 included (ml_dtypes),
through NumPy's astype. CastScaleShift: each type's a cast to float32 and float64 by
astype, then x*k + c rounded once (normalize's k and c, not exact in either type).
Every float is stored as its bit pattern (an int).

ScaleShift and MulAdd are fused in vec (one rounding), as NumPy has no fma: their
references are the exact a*k+c rounded once (fractions), float32 ones checked to be
no float32 tie in float64 (so that rounding float64 to float32 is the single rounding).

Usage: python3 tools/gen_vec_golden.py [--check]   (go generate ./dlpack/vec runs it:
doc.go's //go:generate.) Needs the NumPy and ml_dtypes that tests/requirements.txt pins
(the test venv's python3: _golden.py); --check writes nothing and fails where the file
differs from what it would write.
"""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction
from pathlib import Path

import ml_dtypes
import numpy as np
from _golden import gzipped, require_pinned, write_or_check

OUT = Path(__file__).resolve().parent.parent / "dlpack" / "vec" / "testdata" / "vec_golden.json.gz"
N = 200  # 3x the widest vector (64 int8 lanes) plus offsets; strided tests take fewer
K, C, LO, HI = 1.75, -0.375, -0.5, 0.8125  # the scalars: exact in every float type
INT_SCALARS = (3, -7, -20, 90)  # k, c, lo, hi of the integers (unsigned: |c|, 5)
UINT_SCALARS = (3, 7, 5, 90)

FLOATS = {"float32": np.float32, "float64": np.float64}
INTS = {
    "int8": np.int8,
    "uint8": np.uint8,
    "int32": np.int32,
    "int64": np.int64,
    "uint16": np.uint16,
    "int16": np.int16,
    "uint32": np.uint32,
    "uint64": np.uint64,
}
CAST = {
    **{
        n: np.dtype(n)
        for n in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
    },
    "float16": np.dtype(np.float16),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "float32": np.dtype(np.float32),
    "float64": np.dtype(np.float64),
}
# (offset, length, stride) of the reduction cases: lengths 0..3x16, every
# alignment of a float32x16, strides 1, 2, 3, -1, -2 (negative from the end)
NORM_K, NORM_C = 1 / (255 * 0.229), -0.485 / 0.229  # CastScaleShift's: normalize's red
EXPLOG_N = 1000  # random inputs of exp and log each
CASES = [(o, n, s) for s in (1, 2, 3, -1, -2) for o in (0, 1, 3) for n in range(0, 49)]


def bits(x: np.ndarray) -> list[int]:
    x = np.ascontiguousarray(x)
    if x.dtype.kind == "f" or x.dtype == CAST["bfloat16"]:
        return (
            x.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[x.itemsize])
            .astype(np.uint64)
            .tolist()
        )
    return x.astype(np.int64).tolist() if x.dtype.kind == "i" else x.astype(np.uint64).tolist()


def float_inputs(rng, t):
    a, b, c = (rng.standard_normal(N).astype(t) for _ in range(3))
    fi = np.finfo(t)
    specials = [
        np.nan,
        -0.0,
        0.0,
        np.inf,
        -np.inf,
        fi.smallest_subnormal,
        -fi.tiny,
        fi.max,
        1e30,
        -1e-30,
    ]
    for i, v in enumerate(specials):  # spread over vector positions and tails
        a[7 + 13 * i] = t(v)
        b[(11 + 17 * i) % N] = t(specials[-1 - i])
    a[40], b[40] = t(0.0), t(-0.0)  # equal zeros of both signs, both orders
    a[41], b[41] = t(-0.0), t(0.0)
    a[42] = b[42] = t(np.nan)
    return a, b, c


def fused(a, k, c, t):
    out = np.empty(len(a), t)
    for i, (x, y, z) in enumerate(
        zip(
            a.tolist(),
            np.broadcast_to(k, a.shape).tolist(),
            np.broadcast_to(c, a.shape).tolist(),
            strict=True,
        )
    ):
        if not all(map(math.isfinite, (x, y, z))):
            out[i] = t(x) * t(y) + t(z)  # Inf/NaN: no rounding question
            continue
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        try:
            f = float(exact)  # correctly rounded to float64
        except OverflowError:
            f = math.inf if exact > 0 else -math.inf
        if t is np.float32 and math.isfinite(f):
            m = np.float64(f).view(np.uint64) & np.uint64((1 << 29) - 1)
            assert m != (1 << 28) or Fraction(f) == exact, "float32 tie: pick another seed"
        with np.errstate(over="ignore"):
            out[i] = t(f)
    return out


def scalars(t, is_float):
    if is_float:
        return (K, C, LO, HI)
    return UINT_SCALARS if np.iinfo(t).min == 0 else INT_SCALARS


def elementwise(a, b, c, t, is_float):
    k, s, lo, hi = (t(v) for v in scalars(t, is_float))
    with np.errstate(all="ignore"):
        r = {
            "scale": a * k,
            "add_scalar": a + s,
            "clip": np.clip(a, lo, hi),
            "abs": np.abs(a),
            "add": a + b,
            "sub": a - b,
            "mul": a * b,
            "minimum": np.minimum(a, b),
            "maximum": np.maximum(a, b),
            "add_bcast": a + b[0],  # b with stride 0
        }
        if is_float:
            r["div_scalar"] = a / k
            r["div"] = a / b
            r["sqrt"] = np.sqrt(a)
            r["scale_shift"] = fused(a, k, s, t)
            r["mul_add"] = fused(a, b, c, t)
        else:  # integer division truncates (C, Go), not NumPy's floor: b != 0 there
            r["div_scalar"] = trunc_div(a.tolist(), [int(k)] * len(a)).astype(a.dtype)
            r["div"] = trunc_div(a.tolist(), b.tolist()).astype(a.dtype)
    return {name: bits(v) for name, v in r.items()}


def trunc_div(xs: list[int], ys: list[int]) -> np.ndarray:
    q = [
        (abs(x) // abs(y)) * (1 if (x < 0) == (y < 0) else -1) for x, y in zip(xs, ys, strict=True)
    ]
    return np.array([v % (1 << 64) for v in q], dtype=np.uint64)  # astype wraps these bits


def f64bits(v) -> int:
    return int(np.array(float(v), np.float64).view(np.uint64))


def pick(x, o, n, s):
    return x[o : o + n * s : s] if s > 0 else x[::-1][o : o + n * -s : -s]


def reductions(a, b, is_float):
    out = []
    for o, n, s in CASES:
        x, y = pick(a, o, n, s), pick(b, o, n, s)
        case = {"case": [o, n, s]}
        if is_float:
            ok = np.isfinite(x) & np.isfinite(y)
            xf, yf = np.where(ok, x, 0), np.where(ok, y, 0)  # sums: finite inputs only
            with np.errstate(all="ignore"):
                case["sum"] = f64bits(np.sum(xf))  # NumPy's (pairwise, in x's dtype)
                case["sum_exact"] = f64bits(math.fsum(xf.astype(np.float64).tolist()))
                case["sum_abs"] = f64bits(math.fsum(np.abs(xf.astype(np.float64)).tolist()))
                case["dot"] = f64bits(np.dot(xf.astype(np.float64), yf.astype(np.float64)))
                case["norm"] = f64bits(np.linalg.norm(xf.astype(np.float64)))
            if n:
                case["min"] = bits(np.array(np.min(x)))[0]
                case["max"] = bits(np.array(np.max(x)))[0]
        else:
            case["sum"] = int(np.sum(x.astype(np.int64)))
            if n:
                case["min"], case["max"] = int(np.min(x)), int(np.max(x))
        out.append(case)
    return out


def explog(t):
    """Exp and Log: inputs over their whole domain (a separate generator, so the
    other data stay as they were) and NumPy's results; vec agrees within ulps,
    specials exactly (dlpack/vec/explog_test.go)."""
    rng = np.random.default_rng(2525)
    fi = np.finfo(t)
    lo, hi = (-110.0, 95.0) if t is np.float32 else (-750.0, 715.0)
    specials = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, fi.smallest_subnormal, fi.tiny]
    specials += [fi.max, -fi.max, lo, hi]
    e = np.concatenate([np.array(specials), rng.uniform(lo, hi, EXPLOG_N)]).astype(t)
    emin, emax = np.log2(float(fi.smallest_subnormal)), np.log2(float(fi.max))
    x = np.exp2(rng.uniform(emin, emax, EXPLOG_N))
    x[: EXPLOG_N // 4] = rng.uniform(0.5, 2.0, EXPLOG_N // 4)  # near 1: log's hardest
    g = np.concatenate([np.array(specials), x]).astype(t)
    with np.errstate(all="ignore"):
        return {
            "exp_in": bits(e),
            "exp": bits(np.exp(e)),
            "log_in": bits(g),
            "log": bits(np.log(g)),
        }


def casts(rng):
    signed = np.concatenate([np.arange(-64, 64), rng.integers(-100, 100, 32)]).astype(np.float64)
    fracs = signed + rng.uniform(-0.49, 0.49, len(signed))
    out = {}
    for sname, sdt in CAST.items():
        for dname, ddt in CAST.items():
            src = signed if sdt.kind in "iu" else fracs
            if ddt.kind == "u" or sdt.kind == "u":
                src = np.abs(src)  # negative floats to unsigned: undefined in C
            x = src.astype(sdt)
            with np.errstate(all="ignore"):
                y = x.astype(ddt)
            out[f"{sname}->{dname}"] = {"src": bits(x), "dst": bits(y)}
    return out


def cast_scale_shift(inputs):
    """CastScaleShift's oracle: each type's a cast to float32 and float64 by astype,
    then fused with normalize's k and c (an image channel's (x/255 - mean) / std)."""
    out = {}
    for sname, x in inputs.items():
        for dname, dt in FLOATS.items():
            k, c = dt(NORM_K), dt(NORM_C)
            with np.errstate(all="ignore"):
                y = x.astype(dt)
            out[f"{sname}->{dname}"] = {
                "scalars": [float(k), float(c)],
                "dst": bits(fused(y, k, c, dt)),
            }
    return out


def main() -> int:
    require_pinned("gen_vec_golden.py", numpy=np, ml_dtypes=ml_dtypes)
    rng = np.random.default_rng(25)
    golden = {"n": N}
    types, inputs = {}, {}
    for name, t in FLOATS.items():
        a, b, c = float_inputs(rng, t)
        inputs[name] = a
        types[name] = {
            "a": bits(a),
            "b": bits(b),
            "c": bits(c),
            "scalars": scalars(t, True),
            "ops": elementwise(a, b, c, t, True),
            "reductions": reductions(a, b, True),
            "explog": explog(t),
        }
    for name, t in INTS.items():
        info = np.iinfo(t)
        a, b, c = (rng.integers(info.min, int(info.max) + 1, N, dtype=t) for _ in range(3))
        b[b == 0] = 1
        a[5], a[6] = info.min, info.max
        inputs[name] = a
        types[name] = {
            "a": bits(a),
            "b": bits(b),
            "c": bits(c),
            "scalars": scalars(t, False),
            "ops": elementwise(a, b, c, t, False),
            "reductions": reductions(a, b, False),
        }
    golden["types"] = types
    golden["casts"] = casts(rng)
    golden["cast_scale_shift"] = cast_scale_shift(inputs)
    data = gzipped(json.dumps(golden, separators=(",", ":")).encode())
    if "--check" in sys.argv[1:]:
        return write_or_check("gen_vec_golden.py", OUT, data, check=True)
    write_or_check("gen_vec_golden.py", OUT, data, check=False)
    print(OUT, OUT.stat().st_size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
