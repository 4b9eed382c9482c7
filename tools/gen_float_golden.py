#!/usr/bin/env python3
"""Regenerate dlpack/testdata/float_golden.json.gz, the oracle for the Go
mini-float codecs in dlpack/float_formats.go.

The oracle is NumPy + ml_dtypes, because those are what Python users compare
our arrays against. Every value is recorded as a bit pattern so that the Go test
compares exactly, with no decimal round trip in between.

For each format the file holds:
  decode        the float64 bit pattern (hex) of every one of the 2**bits
                encodings, obtained with .astype(np.float64);
  encode_common the encoding (int) of each shared input in common_inputs;
  extra_inputs  inputs aimed at this format's own grid: every finite value,
                its float64 neighbours, midpoints between neighbours (ties)
                and points one float64 / one float32 ulp either side of them;
  encode_extra  the encoding of each extra input.

Encodings come from np.array(x, dtype=np.float64).astype(fmt), i.e. NumPy's
float64 -> format cast. Note that ml_dtypes implements that cast as
float64 -> float32 -> format (two roundings) for bfloat16 and every float8/6/4
type, while NumPy's float16 cast rounds once; the golden data records whatever
the libraries do and the script prints a check of it.

Usage: python3 tools/gen_float_golden.py [--check] [output-path]
(go generate ./dlpack runs it: float_formats_test.go's //go:generate.) Needs the NumPy and
ml_dtypes that tests/requirements.txt pins (the test venv's python3: _golden.py); --check
writes nothing and fails where the file differs from what it would write.
"""

import json
import os
import struct
import sys
import warnings
from pathlib import Path

import ml_dtypes
import numpy as np
from _golden import gzipped, require_pinned, write_or_check

FORMATS = [
    "float16",
    "bfloat16",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float4_e2m1fn",
]

BITS = {"float16": 16, "bfloat16": 16, "float6_e2m3fn": 6, "float6_e3m2fn": 6, "float4_e2m1fn": 4}


def dtype_of(name):
    return np.dtype(np.float16) if name == "float16" else np.dtype(getattr(ml_dtypes, name))


def f64_from_bits(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def bits_of_f64(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def hex64(x):
    return f"{bits_of_f64(float(x)):016x}"


def storage_uint(dt):
    return np.uint8 if dt.itemsize == 1 else np.uint16


def encode(name, xs):
    """Encodings of the float64 values xs as the format, via NumPy's cast."""
    dt = dtype_of(name)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        out = np.array(xs, dtype=np.float64).astype(dt)
    return [int(v) for v in out.view(storage_uint(dt))]


def decode_all(name):
    dt = dtype_of(name)
    n = 1 << BITS.get(name, 8)
    pats = np.arange(n, dtype=storage_uint(dt))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        vals = pats.view(dt).astype(np.float64)
    return [float(v) for v in vals]


def f32_neighbours(x):
    """The float32 values one ulp either side of x (x must be float32-exact)."""
    f = np.float32(x)
    if float(f) != x or not np.isfinite(f):
        return []
    up = np.nextafter(f, np.float32(np.inf))
    down = np.nextafter(f, np.float32(-np.inf))
    return [float(v) for v in (up, down) if np.isfinite(v)]


def common_inputs(rng):
    xs = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan]
    # NaNs with payloads: NumPy's float16 cast keeps the top payload bits.
    for b in (
        0x7FF0000000000001,
        0x7FF4000000000000,
        0xFFF8000000000001,
        0x7FF8000000000123,
        0x7FFFFFFFFFFFFFFF,
        0x7FF0040000000000,
    ):
        xs.append(f64_from_bits(b))
    # float64 and float32 extremes; the float32 ones pin the float32 step of
    # ml_dtypes' cast (overflow to inf, rounding to zero, subnormals).
    f32max = float(np.finfo(np.float32).max)
    xs += [
        5e-324,
        1e-300,
        1e-45,
        1e300,
        1.7976931348623157e308,
        f32max,
        f32max * (1 + 2.0**-25),
        f32max * (1 + 2.0**-24),
        2.0**-149,
        2.0**-150,
        2.0**-150 * (1 + 2.0**-20),
        2.0**-151,
        2.0**-126,
        2.0**-127,
        2.0**-128,
        1.5 * 2.0**-127,
        1.01 * 2.0**-127,
        2.0**127,
        2.0**128,
        1.5 * 2.0**127,
        1.25 * 2.0**127,
    ]
    for e in range(-160, 141):
        p = 2.0**e
        xs += [p, 1.5 * p, p * (1 + 2.0**-30), p * (1 - 2.0**-30), 1.75 * p]
    for i in range(-300, 301, 7):
        xs.append(float(i))
    xs += list(rng.uniform(-10, 10, 300))
    xs += list(np.round(rng.uniform(-1000, 1000, 100), 3))
    mags = np.exp2(rng.uniform(-30, 30, 500))
    signs = rng.choice([-1.0, 1.0], 500)
    xs += list(mags * signs)
    return [float(x) for x in xs]


def extra_inputs(name, decoded, rng):
    finite = sorted({v for v in decoded if np.isfinite(v) and v >= 0})
    if len(finite) > 600:
        # 16-bit formats: all subnormals would be too many; keep a spread
        # that covers the bottom, the top, the area around 1 and a sample.
        idx = set(range(0, 80)) | set(range(len(finite) - 80, len(finite)))
        one = finite.index(1.0)
        idx |= set(range(one - 40, one + 40))
        idx |= set(int(i) for i in rng.integers(0, len(finite), 400))
        chosen = sorted(idx)
    else:
        chosen = list(range(len(finite)))
    pts = []
    for i in chosen:
        v = finite[i]
        pts += [v, np.nextafter(v, np.inf), np.nextafter(v, -np.inf)]
        if i + 1 < len(finite):
            nxt = finite[i + 1]
        else:
            # Midpoint between max and the value the next encoding would
            # have with an unbounded exponent: the overflow threshold.
            nxt = v + (v - finite[i - 1])
        mid = (v + nxt) / 2
        pts += [mid, np.nextafter(mid, np.inf), np.nextafter(mid, -np.inf)]
        pts += f32_neighbours(mid)
    pts = [float(p) for p in pts if np.isfinite(p) and p > 0]
    out = []
    for p in pts:
        out += [p, -p]
    return out


def check_double_rounding():
    """Print whether each cast rounds once (float64 -> fmt) or via float32."""
    for name in FORMATS:
        dt = dtype_of(name)
        eps = float(ml_dtypes.finfo(dt).eps)
        # Just past a tie, but a tie once rounded to float32. e8m0 rounds
        # ties up (away from zero), so it is probed from below instead.
        x, direct = 1 + eps / 2 + 2.0**-40, 1 + eps
        if name == "float8_e8m0fnu":
            x, direct = 1.5 - 2.0**-40, 1.0
        with np.errstate(all="ignore"):
            got = float(np.array([x]).astype(dt).astype(np.float64)[0])
        how = "once (direct)" if got == direct else "twice (via float32)"
        print(f"  {name:20s} float64 -> format rounds {how}", file=sys.stderr)


def main(argv: list[str]) -> int:
    require_pinned("gen_float_golden.py", numpy=np, ml_dtypes=ml_dtypes)
    check = "--check" in argv[1:]
    paths = [a for a in argv[1:] if a != "--check"]
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(here, "..", "dlpack", "testdata", "float_golden.json.gz")
    path = Path(os.path.normpath(paths[0] if paths else default))
    rng = np.random.default_rng(20250601)
    common = common_inputs(rng)
    doc = {
        "generator": "tools/gen_float_golden.py",
        "numpy": np.__version__,
        "ml_dtypes": ml_dtypes.__version__,
        "common_inputs": [hex64(x) for x in common],
        "formats": [],
    }
    for name in FORMATS:
        decoded = decode_all(name)
        extra = extra_inputs(name, decoded, rng)
        doc["formats"].append(
            {
                "name": name,
                "bits": BITS.get(name, 8),
                "decode": [hex64(v) for v in decoded],
                "encode_common": encode(name, common),
                "extra_inputs": [hex64(x) for x in extra],
                "encode_extra": encode(name, extra),
            }
        )
    data = json.dumps(doc, separators=(",", ":")).encode()
    if check:
        return write_or_check("gen_float_golden.py", path, gzipped(data), check=True)
    write_or_check("gen_float_golden.py", path, gzipped(data), check=False)
    check_double_rounding()
    n_extra = sum(len(f["extra_inputs"]) for f in doc["formats"])
    print(
        f"wrote {path}: {len(common)} common inputs, {n_extra} extra inputs, "
        f"{len(data)} bytes of JSON, {os.path.getsize(path)} gzipped",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
