#!/usr/bin/env python3
"""Generate arrayfmt/testdata/repr_golden.json from real NumPy (and ml_dtypes).

Each case records the dtype name, the shape, the element values and NumPy's
repr(ndarray) with "array(" replaced by "Array(" (the indentation of the
continuation lines is unchanged: len("array(") == len("Array(")).

Values are strings so that every one of them survives JSON exactly:
  bool      "1" / "0"
  int/uint  decimal
  float     repr(float(v))            ("nan", "inf", "-0.0", "1.5", ...)
  complex   "<re>,<im>" with each part as for float
For summarized arrays (size > 1000) only the elements NumPy displays are stored,
with their flat C-order indices in "index"; the Go test fails if the formatter
reads any other element.

Usage: python3 tools/gen_repr_golden.py [--check]   (writes the JSON next to the test;
go generate ./arrayfmt runs it: format_test.go's //go:generate.) Needs the NumPy and
ml_dtypes that tests/requirements.txt pins (the test venv's python3: _golden.py); --check
writes nothing and fails where the file differs from what it would write.
"""

import json
import os
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
from _golden import require_pinned, write_or_check

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "arrayfmt", "testdata", "repr_golden.json")

rng = np.random.default_rng(20240611)
cases = []


def fstr(v):
    return repr(float(v))


def encode(a):
    k = a.dtype.kind
    if a.dtype == np.bool_:
        return lambda v: "1" if v else "0"
    if k in "iu":
        return lambda v: str(int(v))
    if k == "c":
        return lambda v: fstr(v.real) + "," + fstr(v.imag)
    return fstr  # NumPy floats and the ml_dtypes types ('V' kind)


def add(name, a, dtype=None):
    if dtype is not None:
        a = np.asarray(a).astype(dtype)
    a = np.asarray(a)
    r = repr(a)
    assert r.startswith("array("), r
    case = {
        "name": name,
        "dtype": a.dtype.name,
        "shape": list(a.shape),
        "repr": "Array(" + r[len("array(") :],
    }
    enc = encode(a)
    if a.size > np.get_printoptions()["threshold"]:
        flat_idx = np.arange(a.size).reshape(a.shape)
        shown = np._core.arrayprint._leading_trailing(flat_idx, 3).ravel()
        flat = a.ravel()
        case["index"] = [int(i) for i in shown]
        case["values"] = [enc(flat[i]) for i in shown]
    else:
        case["values"] = [enc(v) for v in a.ravel()]
    cases.append(case)


INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
NPFLOATS = ["float16", "float32", "float64"]
ML = [
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


def ml(name):
    return getattr(ml_dtypes, name)


# ---- integers ----
for t in INTS:
    info = np.iinfo(t)
    add(f"{t} small", [1, 2, 3, 10, 0], t)
    add(f"{t} extremes", [info.min, 0, info.max, 1], t)
    add(f"{t} 0-d", np.array(7, dtype=t))
    add(f"{t} 2-d", np.arange(12).reshape(3, 4), t)
for t in ["int8", "int16", "int32", "int64"]:
    add(f"{t} negatives", [-1, 5, -100, 42], t)
add("int64 0-d negative", np.array(-5))
add("int64 3-d", np.arange(24).reshape(2, 3, 4))
add("int32 4-d", np.arange(48).reshape(2, 2, 3, 4) - 20, "int32")
add("int64 unit dims", np.arange(6).reshape(3, 1, 2, 1))
add("int64 1x1x1", np.array([[[9]]]))
add("int64 wide row", np.arange(40))
add("int32 wide row", np.arange(30) * 12345 - 100000, "int32")
add("uint64 wide row", np.arange(20, dtype=np.uint64) * np.uint64(2**60))
add("int64 wide 2-d", np.arange(90).reshape(3, 30) * 1000)
add("int8 1000 not summarized", (np.arange(1000) % 256) - 128, "int8")
add("int64 1001 summarized", np.arange(1001))
add("int64 2-d summarized", np.arange(2000).reshape(40, 50))
add("int16 3-d summarized", np.arange(1100).reshape(10, 10, 11), "int16")
add("int64 4-d summarized", np.arange(1125).reshape(5, 5, 5, 9))
add("uint8 summarized wraps", np.arange(2000) % 256, "uint8")
add("int64 summarized short axis", np.arange(1010).reshape(2, 505))
add("int64 summarized 2x7x100", np.arange(1400).reshape(2, 7, 100) - 700)
add("int64 random", rng.integers(-(10**12), 10**12, size=(4, 5)))

# ---- bool ----
add("bool 1-d", [True, False, True])
add("bool all true", [True, True])
add("bool all false", [False, False])
add("bool 2-d", np.array([[True, False], [False, True]]))
add("bool 0-d true", np.array(True))
add("bool 0-d false", np.array(False))
add("bool wide", np.arange(30) % 3 == 0)
add("bool summarized", np.arange(1500) % 2 == 0)
add("bool 3-d", (np.arange(12) % 5 == 0).reshape(2, 3, 2))

# ---- empty ----
add("float64 empty", np.array([], dtype=np.float64))
add("int64 empty", np.array([], dtype=np.int64))
add("int8 empty", np.array([], dtype=np.int8))
add("bool empty", np.array([], dtype=bool))
add("complex128 empty", np.array([], dtype=np.complex128))
add("float32 empty", np.array([], dtype=np.float32))
add("int64 empty 0x3", np.zeros((0, 3), dtype=np.int64))
add("float32 empty 2x0x4", np.zeros((2, 0, 4), dtype=np.float32))
add("float64 empty 3x0", np.zeros((3, 0)))
add("bfloat16 empty", np.array([], dtype=ml_dtypes.bfloat16))

# ---- NumPy floats ----
for t in NPFLOATS:
    add(f"{t} simple", [1.0, 2.5], t)
    add(f"{t} integers", [1.0, 2.0, -3.0], t)
    add(f"{t} thirds", [1 / 3, 2 / 3, 0.1], t)
    add(f"{t} 0-d", np.array(1.5, dtype=t))
    add(f"{t} 0-d third", np.array(1 / 3, dtype=t))
    add(f"{t} nan inf", [np.nan, 1.5, -np.inf, np.inf], t)
    add(f"{t} all nan", [np.nan, np.nan], t)
    add(f"{t} inf only", [np.inf, -np.inf], t)
    add(f"{t} zeros", [0.0, -0.0, 0.0], t)
    add(f"{t} small", [1e-5, 1.0], t)
    add(f"{t} ratio", [0.5, 600.0], t)
    add(f"{t} 1e-4 boundary", [1e-4, 2e-4], t)
    add(f"{t} ratio 1000", [1e-4, 0.1], t)
    add(f"{t} nan with sci", [np.nan, 1e-6, 3.0], t)
    add(f"{t} 2-d random", rng.standard_normal((3, 4)), t)
    add(f"{t} 3-d", (np.arange(24).reshape(2, 3, 4) - 7) / 4, t)
    add(f"{t} wide", rng.standard_normal(20) * 100, t)
    add(f"{t} summarized", np.linspace(-1, 1, 1200), t)
    add(f"{t} mixed signs", [-0.5, 0.25, -0.125, 8.0], t)
add("float16 cutoff below", [999.0, 1.0], "float16")
add("float16 cutoff at", [1000.0, 1.0], "float16")
add("float16 max", [65504.0, -65504.0, 6e-8], "float16")
add("float16 random", rng.standard_normal(12) * 10, "float16")
add("float16 subnormal", [6e-8, 1e-7, 3e-5], "float16")
add("float32 cutoff below", [999999.0, 1.0], "float32")
add("float32 cutoff at", [1e6, 1.0], "float32")
add("float32 1e-5 exact digits", [1e-5, 1.2345678e-5], "float32")
add("float32 min_digits padding", [0.1, 1e-7, 123456.7], "float32")
add("float32 random", rng.standard_normal((4, 6)), "float32")
add("float32 max", [3.4028235e38, -1.0e-38, 1.4e-45], "float32")
add("float64 cutoff below", [99999999.0, 1.0])
add("float64 cutoff at", [1e8, 1.0])
add("float64 large", [1.23456789e20, 1.0, 2.0])
add("float64 huge exponent", [1e100, -1.5, np.nan])
add("float64 tiny", [1e-300, 5e-324, 1.0])
add("float64 precision cutoff", [0.123456789123, 1.0])
add("float64 precision round", [0.123456785, 2.0000000049, 3.999999999])
add("float64 many digits sci", [np.pi * 1e10, np.e * 1e-10])
add("float64 0-d nan", np.array(np.nan))
add("float64 0-d -inf", np.array(-np.inf))
add("float64 0-d neg zero", np.array(-0.0))
add("float64 0-d sci", np.array(1.5e20))
add("float64 0-d tiny", np.array(1e-7))
add("float64 0-d int", np.array(3.0))
add("float64 1 elem", np.array([2.5]))
add("float64 4-d", (np.arange(36).reshape(3, 2, 2, 3) * 0.75))
add("float64 2-d sci", np.array([[1e-10, 1.0], [1e10, -2.5]]))
add("float64 wide sci", rng.standard_normal(15) * 1e12)
add("float64 long wrap", rng.standard_normal((2, 12)) * 1e-3)
add("float64 randint values", rng.integers(-1000, 1000, 10).astype(float))
add("float64 3-d summarized", np.linspace(0, 1, 1331).reshape(11, 11, 11))
add("float64 summarized nan", np.where(np.arange(1100) % 7 == 0, np.nan, np.arange(1100) / 8))
add("float64 uniform", rng.uniform(0, 1, 8))
add("float64 neg zero mix", [-0.0, 1.5, -2.25])
add(
    "float32 extras new line",
    np.arange(13, dtype=np.float32) * np.float32(1.125) + np.float32(1000),
)
add("float32 random exotic", (rng.standard_normal(10) * 10.0 ** rng.integers(-8, 8, 10)), "float32")
add("float64 random exotic", (rng.standard_normal(10) * 10.0 ** rng.integers(-30, 30, 10)))
add("float16 all values slice", np.arange(0, 65536, 977, dtype=np.uint16).view(np.float16))

# ---- complex ----
for t in ["complex64", "complex128"]:
    add(f"{t} simple", [1 + 2j, 3.5 - 1j], t)
    add(f"{t} 0-d", np.array(1 + 2j, dtype=t))
    add(f"{t} nan inf", [complex(np.nan, 1), complex(np.inf, -np.inf), 1e-5j], t)
    add(f"{t} 2-d", (rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))), t)
    add(f"{t} sci", [1e10 + 1j, 1 - 1e-10j], t)
    add(f"{t} zeros", [0j, complex(0, -0.0), complex(-0.0, 0)], t)
    add(f"{t} wide", np.arange(12) * (1.5 + 0.25j), t)
    add(f"{t} summarized", np.arange(1200) * (0.5 - 2j), t)
add("complex128 inf parts", [complex(np.inf, 0), complex(-np.inf, 0)])
add("complex64 inf parts", [complex(np.inf, 0), complex(-np.inf, 0)], "complex64")
add("complex128 thirds", [1 / 3 + 2j / 3, 0.1 - 0.2j])
add("complex128 0-d nan", np.array(complex(np.nan, np.nan)))
add("complex128 3-d", (np.arange(8) + 1j * np.arange(8)[::-1]).reshape(2, 2, 2))

# ---- ml_dtypes: NumPy prints each element with the scalar's own repr ----
for t in ML:
    vals = [0.0, 1.0, -1.5, 3.25, 0.3, 100.0, 1e-2, -0.0]
    add(f"{t} basic", np.array(vals, dtype=np.float32).astype(ml(t)))
    add(f"{t} 0-d", np.array(2.5, dtype=np.float32).astype(ml(t)))
add(
    "bfloat16 digits",
    [
        1.0,
        2.5,
        3.14159,
        -0.0,
        1e-5,
        123456.0,
        1234567.0,
        1e10,
        0.1,
        1 / 3,
        100.0,
        1e6,
        65504.0,
        3e38,
    ],
    ml_dtypes.bfloat16,
)
add("bfloat16 nonfinite", [np.nan, -np.nan, np.inf, -np.inf, 1.0], ml_dtypes.bfloat16)
add("bfloat16 2-d", np.arange(6, dtype=np.float32).reshape(2, 3) / 3, ml_dtypes.bfloat16)
add("bfloat16 3-d", np.arange(12, dtype=np.float32).reshape(2, 3, 2) * 1.25, ml_dtypes.bfloat16)
add("bfloat16 wide", rng.standard_normal(30).astype(np.float32), ml_dtypes.bfloat16)
add("bfloat16 summarized", np.arange(2000, dtype=np.float32), ml_dtypes.bfloat16)
add("bfloat16 random", rng.standard_normal((3, 4)).astype(np.float32) * 1000, ml_dtypes.bfloat16)
add("float8_e4m3fn all", np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn))
add("float8_e5m2 all", np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e5m2))
add(
    "float8_e4m3fnuz nan",
    np.array([np.nan, 1.0], dtype=np.float32).astype(ml_dtypes.float8_e4m3fnuz),
)
add(
    "float8_e8m0fnu powers",
    np.array([2.0**-127, 0.5, 1, 2.0**127], dtype=np.float32).astype(ml_dtypes.float8_e8m0fnu),
)
add("float4_e2m1fn all", np.arange(16, dtype=np.uint8).view(ml_dtypes.float4_e2m1fn))
add("float6_e3m2fn wide", np.linspace(-28, 28, 40).astype(np.float32), ml_dtypes.float6_e3m2fn)


def main() -> int:
    require_pinned("gen_repr_golden.py", numpy=np, ml_dtypes=ml_dtypes)
    names = [c["name"] for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    assert not dup, dup
    doc = {
        "generator": "tools/gen_repr_golden.py",
        "numpy": np.__version__,
        "ml_dtypes": ml_dtypes.__version__,
        "cases": cases,
    }
    data = (json.dumps(doc, indent=1) + "\n").encode()
    if "--check" in sys.argv[1:]:
        return write_or_check("gen_repr_golden.py", Path(OUT), data, check=True)
    write_or_check("gen_repr_golden.py", Path(OUT), data, check=False)
    print(f"wrote {len(cases)} cases to {os.path.relpath(OUT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
