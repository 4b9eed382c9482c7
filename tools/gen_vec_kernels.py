#!/usr/bin/env python3
"""Regenerate dlpack/vec/kernels_simd.go, the simd/archsimd loops of package vec, and
kernels_nosimd.go, the same functions doing nothing for builds without them.

Each kernel is the same loop at two widths (AVX-512: float32x16 / float64x8; AVX2:
float32x8 / float64x4) for two element types: 4 copies of one line of vector code; the
integer kernels (INT_KERNELS) the same for the eight integer types where x86 has the
instruction. kernels_dispatch.go gets each op's type switch ({op}Kernel), the one
place a generic slice meets its kernel.
Writing them by hand is where a typo hides, so they come from the table below. A
kernel does the whole vectors of its slices and returns how many elements it did;
the caller (elementwise.go, reduce.go) does the rest with the portable loop, the one
that defines the result.

The kernels call simd/archsimd's loads and stores (and the two other operations whose
names changed) through wrappers that one generated file per Go release spells in that
release's API (ARCHSIMD_RELEASES): the kernels and vec's other SIMD files stay one copy.

Usage: python tools/gen_vec_kernels.py [--check]  (gofmt formats the output; --check
writes nothing and fails, naming the files, where they differ from what it would write)
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

VEC = Path(__file__).resolve().parent.parent / "dlpack" / "vec"
OUT, OUT_NOSIMD = VEC / "kernels_simd.go", VEC / "kernels_nosimd.go"
DISPATCH = VEC / "kernels_dispatch.go"

# (Go elem, suffix, [(level, vector type, width, uint vector type)])
TYPES = [
    (
        "float32",
        "F32",
        [("useAVX512", "Float32x16", 16, "Uint32x16"), ("useAVX2", "Float32x8", 8, "Uint32x8")],
    ),
    (
        "float64",
        "F64",
        [("useAVX512", "Float64x8", 8, "Uint64x8"), ("useAVX2", "Float64x4", 4, "Uint64x4")],
    ),
]

# The integer types: (Go elem, suffix, AVX-512 vector, AVX2 vector), lanes from
# the name. Integers wrap around, as the portable loops do; x86 has no 8-bit
# multiply, and its 64-bit Min, Max and Mul are AVX-512 only (INT_LEVELS).
INTS = [
    ("int8", "I8", "Int8x64", "Int8x32"),
    ("uint8", "U8", "Uint8x64", "Uint8x32"),
    ("int16", "I16", "Int16x32", "Int16x16"),
    ("uint16", "U16", "Uint16x32", "Uint16x16"),
    ("int32", "I32", "Int32x16", "Int32x8"),
    ("uint32", "U32", "Uint32x16", "Uint32x8"),
    ("int64", "I64", "Int64x8", "Int64x4"),
    ("uint64", "U64", "Uint64x8", "Uint64x4"),
]

# The integer kernels, as KERNELS: Min and Max are a < b ? a : b and its mirror,
# the portable loops' rule (no NaN to merge); clip is Max then Min, as clip().
INT_KERNELS = {
    "add": ("b", [], "x.Add(y)", "dst = a + b"),
    "sub": ("b", [], "x.Sub(y)", "dst = a - b"),
    "mul": ("b", [], "x.Mul(y)", "dst = a * b"),
    "minimum": ("b", [], "x.Min(y)", "dst = min(a, b)"),
    "maximum": ("b", [], "x.Max(y)", "dst = max(a, b)"),
    "addScalar": ("k", ["kv := archsimd.Broadcast{V}(k)"], "x.Add(kv)", "dst = a + k"),
    "scale": ("k", ["kv := archsimd.Broadcast{V}(k)"], "x.Mul(kv)", "dst = a * k"),
    "clip": (
        "kc",
        ["kv := archsimd.Broadcast{V}(k)", "cv := archsimd.Broadcast{V}(c)"],
        "x.Max(kv).Min(cv)",
        "dst = clip(a, k, c)",
    ),
}
AVX512_ONLY_64 = {"mul", "minimum", "maximum", "scale", "clip"}  # VPMULLQ, VPMINSQ...


def int_levels(name: str, bits: int, v512: str, v256: str):
    """The levels an integer kernel has: none for an 8-bit multiply."""
    if bits == 8 and name in ("mul", "scale"):
        return []
    lanes512, lanes256 = 512 // bits, 256 // bits
    levels = [("useAVX512", v512, lanes512, "")]
    if not (bits == 64 and name in AVX512_ONLY_64):
        levels.append(("useAVX2", v256, lanes256, ""))
    return levels


# The integer reductions' kernels (reduce.go's SumInt, Min and Max). SumInt adds
# in 64 bits, wrapping around as NumPy's sum does (an int8..int32 array sums in
# int64, a uint8..uint32 one in uint64, both modulo 2**64: the same bits), and
# modular addition is associative, so any lane order gives the Go loop's bits.
# By suffix and level: (vector loaded, accumulator vector, setup lines, terms
# added each step (one accumulator a term), bias subtracted an element). Bytes
# sum by VPSADBW against zero (8 bytes into a 64-bit lane); a signed byte is
# flipped to x+128 first and the bias taken off at the end.
SUM_INT = {
    "I8": {
        "useAVX512": (
            "Int8x64",
            "Uint64x8",
            ["bias := archsimd.BroadcastUint8x64(0x80)", "var zero archsimd.Uint8x64"],
            ["sumOf8AbsDiffUint8x64(x.AsUint8x64().Xor(bias), zero)"],
            128,
        ),
        "useAVX2": (
            "Int8x32",
            "Uint64x4",
            ["bias := archsimd.BroadcastUint8x32(0x80)", "var zero archsimd.Uint8x32"],
            ["sumOf8AbsDiffUint8x32(x.AsUint8x32().Xor(bias), zero)"],
            128,
        ),
    },
    "U8": {
        "useAVX512": (
            "Uint8x64",
            "Uint64x8",
            ["var zero archsimd.Uint8x64"],
            ["sumOf8AbsDiffUint8x64(x, zero)"],
            0,
        ),
        "useAVX2": (
            "Uint8x32",
            "Uint64x4",
            ["var zero archsimd.Uint8x32"],
            ["sumOf8AbsDiffUint8x32(x, zero)"],
            0,
        ),
    },
    "I16": {
        "useAVX512": (
            "Int16x16",
            "Int64x8",
            [],
            ["x.GetLo().ExtendToInt64()", "x.GetHi().ExtendToInt64()"],
            0,
        ),
        "useAVX2": (
            "Int16x8",
            "Int64x4",
            [],
            ["x.ExtendLo4ToInt64()", "x.ExtendToInt32().GetHi().ExtendToInt64()"],
            0,
        ),
    },
    "U16": {
        "useAVX512": (
            "Uint16x16",
            "Uint64x8",
            [],
            ["x.GetLo().ExtendToUint64()", "x.GetHi().ExtendToUint64()"],
            0,
        ),
        "useAVX2": (
            "Uint16x8",
            "Uint64x4",
            [],
            ["x.ExtendLo4ToUint64()", "x.ExtendToUint32().GetHi().ExtendToUint64()"],
            0,
        ),
    },
    "I32": {
        "useAVX512": (
            "Int32x16",
            "Int64x8",
            [],
            ["x.GetLo().ExtendToInt64()", "x.GetHi().ExtendToInt64()"],
            0,
        ),
        "useAVX2": (
            "Int32x8",
            "Int64x4",
            [],
            ["x.GetLo().ExtendToInt64()", "x.GetHi().ExtendToInt64()"],
            0,
        ),
    },
    "U32": {
        "useAVX512": (
            "Uint32x16",
            "Uint64x8",
            [],
            ["x.GetLo().ExtendToUint64()", "x.GetHi().ExtendToUint64()"],
            0,
        ),
        "useAVX2": (
            "Uint32x8",
            "Uint64x4",
            [],
            ["x.GetLo().ExtendToUint64()", "x.GetHi().ExtendToUint64()"],
            0,
        ),
    },
    "I64": {
        "useAVX512": ("Int64x8", "Int64x8", [], ["x"], 0),
        "useAVX2": ("Int64x4", "Int64x4", [], ["x"], 0),
    },
    "U64": {
        "useAVX512": ("Uint64x8", "Uint64x8", [], ["x"], 0),
        "useAVX2": ("Uint64x4", "Uint64x4", [], ["x"], 0),
    },
}


def lanes_of(v: str) -> int:
    return int(v.split("x")[1])


def sum_int_kernel(t: str, sfx: str) -> str:
    """sumInt{sfx}: the 64-bit wrapping sum of s's whole vectors, and how many."""
    lines = [
        f"// sumInt{sfx} is the sum, wrapping in 64 bits, of the whole vectors of s, and",
        "// how many elements they hold.",
        f"func sumInt{sfx}(s []{t}) (int64, int) {{",
        "	i, sum := 0, int64(0)",
        "	switch level {",
    ]
    for lvl, (v, acc, setup, terms, bias) in SUM_INT[sfx].items():
        w, n = lanes_of(v), lanes_of(acc)
        elem = acc.split("x")[0].lower()
        lines.append(f"	case {lvl}:")
        lines += ["		" + x for x in setup]
        lines += [f"		var acc{j} archsimd.{acc}" for j in range(len(terms))]
        lines.append(f"		for ; i+{w} <= len(s); i += {w} {{")
        lines.append(f"			x := load{v}(s[i : i+{w}])")
        lines += [f"			acc{j} = acc{j}.Add({e})" for j, e in enumerate(terms)]
        lines.append("		}")
        lines += [f"		acc0 = acc0.Add(acc{j})" for j in range(1, len(terms))]
        lines.append(f"		var l [{n}]{elem}")
        lines.append(f"		store{acc}(acc0, l[:])")
        lines.append("		for _, v := range l {")
        lines.append("			sum += int64(v)")
        lines.append("		}")
        if bias:
            lines.append(f"		sum -= {bias} * int64(i)")
    lines += ["	}", "	return sum, i", "}", ""]
    return "\n".join(lines)


def extreme_int_kernel(t: str, sfx: str, levels) -> str:
    """extremeInt{sfx}: the min or max of s's whole vectors, and how many."""
    lines = [
        f"// extremeInt{sfx} is the smallest (largest when isMax) of the whole vectors of",
        "// s, and how many elements they hold (0: none, and no result).",
        f"func extremeInt{sfx}(s []{t}, isMax bool) ({t}, int) {{",
        "	switch level {",
    ]
    for lvl, v, w, _ in levels:
        lines += [
            f"	case {lvl}:",
            f"		if len(s) < {w} {{",
            "			return 0, 0",
            "		}",
            f"		acc, i := load{v}(s[:{w}]), {w}",
            f"		for ; i+{w} <= len(s); i += {w} {{",
            f"			x := load{v}(s[i : i+{w}])",
            "			if isMax {",
            "				acc = acc.Max(x)",
            "			} else {",
            "				acc = acc.Min(x)",
            "			}",
            "		}",
            f"		var l [{w}]{t}",
            f"		store{v}(acc, l[:])",
            "		return fold(l[:], isMax), i",
        ]
    lines += ["	}", "	return 0, 0", "}", ""]
    return "\n".join(lines)


def int_reduce_dispatchers(sum_types, extreme_types) -> str:
    lines = [
        "// sumIntKernel runs SumInt's kernel of T's type over the whole vectors of s:",
        "// their wrapping sum and how many elements it did (0: none).",
        "func sumIntKernel[T Integer](s []T) (int64, int) {",
        "	switch s := any(s).(type) {",
    ]
    for t, sfx in sum_types:
        lines += [f"	case []{t}:", f"		return sumInt{sfx}(s)"]
    lines += ["	}", "	return 0, 0", "}", ""]
    lines += [
        "// extremeIntKernel runs Min's or Max's kernel of T's type over the whole",
        "// vectors of s: their extreme and how many elements it did (0: none, no",
        "// kernel for T).",
        "func extremeIntKernel[T Number](s []T, isMax bool) (T, int) {",
        "	switch s := any(s).(type) {",
    ]
    for t, sfx in extreme_types:
        lines += [
            f"	case []{t}:",
            f"		r, n := extremeInt{sfx}(s, isMax)",
            "		return any(r).(T), n",
        ]
    lines += ["	}", "	var zero T", "	return zero, 0", "}", ""]
    return "\n".join(lines)


# name: (operands, setup lines, the vector expression of x (and y, z), doc)
# operands: "k" dst, a, scalar k; "kc" dst, a, scalars k, c; "" dst, a;
# "b" dst, a, b; "bc" dst, a, b, c.
KERNELS = {
    "scale": ("k", ["kv := archsimd.Broadcast{V}(k)"], "x.Mul(kv)", "dst = a * k"),
    "addScalar": ("k", ["kv := archsimd.Broadcast{V}(k)"], "x.Add(kv)", "dst = a + k"),
    "divScalar": ("k", ["kv := archsimd.Broadcast{V}(k)"], "x.Div(kv)", "dst = a / k"),
    "scaleShift": (
        "kc",
        ["kv := archsimd.Broadcast{V}(k)", "cv := archsimd.Broadcast{V}(c)"],
        "x.MulAdd(kv, cv)",
        "dst = fma(a, k, c)",
    ),
    # max(x, lo) then min(., hi), x where x is NaN (Max and Min give their
    # second operand then)
    "clip": (
        "kc",
        ["kv := archsimd.Broadcast{V}(k)", "cv := archsimd.Broadcast{V}(c)"],
        "x.Max(kv).Min(cv).Merge(x, x.Equal(x))",
        "dst = clip(a, k, c)",
    ),
    "abs": (
        "",
        ["mv := archsimd.Broadcast{U}(^{SIGN})"],
        "x.As{U}().And(mv).As{V}()",
        "dst = |a|",
    ),
    "sqrt": ("", [], "x.Sqrt()", "dst = sqrt(a)"),
    "add": ("b", [], "x.Add(y)", "dst = a + b"),
    "sub": ("b", [], "x.Sub(y)", "dst = a - b"),
    "mul": ("b", [], "x.Mul(y)", "dst = a * b"),
    "div": ("b", [], "x.Div(y)", "dst = a / b"),
    "minimum": ("b", [], "x.Min(y).Merge(x, x.Equal(x))", "dst = min(a, b)"),
    "maximum": ("b", [], "x.Max(y).Merge(x, x.Equal(x))", "dst = max(a, b)"),
    "mulAdd": ("bc", [], "x.MulAdd(y, z)", "dst = fma(a, b, c)"),
}

SIGNS = {"float32": "uint32(1 << 31)", "float64": "uint64(1 << 63)"}

# Exp and Log: many lines of vector code, the twins of expOneF32... in
# explog.go (same operations in the same order, same constants by name, {S}
# the type suffix), so both give the same bits. (mantissa bits, exponent
# polynomial length) by suffix: the unrolled Horner steps need the count.
MATH_TYPES = {"F32": (23, 8, 5), "F64": (52, 14, 10)}


def horner(var: str, arg: str, poly: str, n: int) -> list[str]:
    """var = poly[0] + arg*(poly[1] + arg*(...)), fused steps from the top."""
    lines = [f"{var} := {poly}{n - 1}"]
    lines += [f"{var} = {var}.MulAdd({arg}, {poly}{i})" for i in range(n - 2, -1, -1)]
    return lines


def math_kernel(name: str, sfx: str, v: str, u: str) -> tuple[list[str], list[str]]:
    """(setup, body) of exp or log: the body turns x into the result x."""
    mant, nexp, nlog = MATH_TYPES[sfx]
    b = f"archsimd.Broadcast{v}"
    if name == "exp":
        setup = [
            f"{c}v := {b}({c}{sfx})"
            for c in ("expLo", "expHi", "log2e", "negLn2Hi", "negLn2Lo", "expMagic", "round")
        ]
        setup += [f"half := {b}(0.5)"]
        setup += [f"ep{i} := {b}(expPoly{sfx}[{i}])" for i in range(nexp)]
        body = [
            "x = x.Max(expLov).Min(expHiv).Merge(x, x.Equal(x))",
            "k := x.Mul(log2ev).Add(roundv).Sub(roundv)",
            "r := k.MulAdd(negLn2Hiv, x)",
            "r = k.MulAdd(negLn2Lov, r)",
            *horner("p", "r", "ep", nexp),
            "k1 := k.Mul(half).Add(roundv).Sub(roundv)",
            "k2 := k.Sub(k1)",
            f"s1 := k1.Add(expMagicv).As{u}().ShiftAllLeft({mant}).As{v}()",
            f"s2 := k2.Add(expMagicv).As{u}().ShiftAllLeft({mant}).As{v}()",
            "x = p.Mul(s1).Mul(s2)",
        ]
        return setup, body
    one = "uint32" if sfx == "F32" else "uint64"
    setup = [
        f"{c}v := {b}({c}{sfx})"
        for c in (
            "logMinNormal",
            "logSub",
            "logSubExp",
            "logBias",
            "sqrt2",
            f"twoTo{mant}",
            "ln2Hi",
            "ln2Lo",
        )
    ]
    setup += [
        f"half := {b}(0.5)",
        f"onev := {b}(1)",
        f"twov := {b}(2)",
        f"zerov := {b}(0)",
        f"infv := {b}({'float32' if sfx == 'F32' else 'float64'}(math.Inf(1)))",
        f"ninfv := {b}({'float32' if sfx == 'F32' else 'float64'}(math.Inf(-1)))",
        f"nanv := {b}({'float32' if sfx == 'F32' else 'float64'}(math.NaN()))",
        f"mantMask := archsimd.Broadcast{u}({one}(1)<<{mant} - 1)",
        f"oneBits := onev.As{u}()",
        f"magicBits := twoTo{mant}v.As{u}()",
    ]
    setup += [f"lp{i} := {b}(logPoly{sfx}[{i}])" for i in range(nlog)]
    body = [
        "sub := x.Less(logMinNormalv)",
        "xs := x.Mul(logSubv).Merge(x, sub)",
        "bias := logSubExpv.Merge(logBiasv, sub)",
        f"bits := xs.As{u}()",
        f"e := bits.ShiftAllRight({mant}).Or(magicBits).As{v}().Sub(twoTo{mant}v).Sub(bias)",
        f"m := bits.And(mantMask).Or(oneBits).As{v}()",
        "big := m.Greater(sqrt2v)",
        "m = m.Mul(half).Merge(m, big)",
        "e = e.Add(onev).Merge(e, big)",
        "f := m.Sub(onev)",
        "s := f.Div(twov.Add(f))",
        "z := s.Mul(s)",
        *horner("q", "z", "lp", nlog),
        "rz := q.Mul(z)",
        "hfsq := f.Mul(half).Mul(f)",
        "lo := e.MulAdd(ln2Lov, s.Mul(hfsq.Add(rz)))",
        "res := e.MulAdd(ln2Hiv, f.Sub(hfsq.Sub(lo)))",
        "res = res.Merge(x, x.Less(infv))",
        "res = ninfv.Merge(res, x.Equal(zerov))",
        "x = nanv.Merge(res, x.Less(zerov))",
    ]
    return setup, body


def math_kernel_func(name: str, t: str, sfx: str, levels) -> str:
    doc = {"exp": "dst = e**a", "log": "dst = ln(a)"}[name]
    lines = [
        f"// {name}{sfx}: {doc} (explog.go's {name}One{sfx}, lane by lane) for the whole",
        "// vectors of dst (a is as long).",
        f"func {name}{sfx}(dst, a []{t}) int {{",
        "\ti := 0",
        "\tswitch level {",
    ]
    for lvl, v, w, u in levels:
        setup, body = math_kernel(name, sfx, v, u)
        lines.append(f"\tcase {lvl}:")
        lines += ["\t\t" + x for x in setup]
        lines.append(f"\t\tfor ; i+{w} <= len(dst); i += {w} {{")
        lines.append(f"\t\t\tx := load{v}(a[i : i+{w}])")
        lines += ["\t\t\t" + x for x in body]
        lines.append(f"\t\t\tstore{v}(x, dst[i : i+{w}])")
        lines.append("\t\t}")
    lines += ["\t}", "\treturn i", "}", ""]
    return "\n".join(lines)


# The fused step-2 kernels (fused.go: ClipView, ScaleShiftView): the ops of KERNELS
# named here over a line of every other element ([:, ::2]) in one pass, no gathered
# buffer. A step of w elements of the line spans 2w-1 of memory: two vectors, the
# second loaded one element early (from s+w-1), so that a line's last step needs no
# element past its last one (a tensor's memory may end there). In place: the op
# runs on every lane (the ones between too: an IEEE operation traps nothing) and
# masked stores write the line's lanes only (even lanes of the first vector, odd of
# the second), never the elements between, which another goroutine may own. From a
# step-2 source into a contiguous dst: the two vectors permuted into one (p's even
# lanes, q's odd), the op, one store. By (suffix, level): the setup of the masks
# keep and keepOdd, of the permute, and the permute of p and q.
FUSED_STEP2 = ["clip", "scaleShift"]
STEP2 = {
    ("F32", "useAVX512"): (
        [
            "keep := archsimd.Mask32x16FromBits(0x5555)",
            "keepOdd := archsimd.Mask32x16FromBits(0xaaaa)",
        ],
        ["idx := loadUint32x16Array(&step2Pick32x16)"],
        "p.ConcatPermute(q, idx)",
    ),
    ("F64", "useAVX512"): (
        ["keep := archsimd.Mask64x8FromBits(0x55)", "keepOdd := archsimd.Mask64x8FromBits(0xaa)"],
        ["idx := loadUint64x8Array(&step2Pick64x8)"],
        "p.ConcatPermute(q, idx)",
    ),
    ("F32", "useAVX2"): (
        [
            "keep := loadInt32x8Array(&keep8[0]).Equal(archsimd.BroadcastInt32x8(-1))",
            "keepOdd := loadInt32x8Array(&keep8[0]).Equal(archsimd.BroadcastInt32x8(0))",
        ],
        ["order := loadUint32x8Array(&pairOrder8)"],
        "concatPermuteScalarsGroupedFloat32x8(p, 0, 2, 5, 7, q).Permute(order)",
    ),
    ("F64", "useAVX2"): (
        [
            "keep := loadInt64x4Array(&keep4x64).Equal(archsimd.BroadcastInt64x4(-1))",
            "keepOdd := loadInt64x4Array(&keep4x64).Equal(archsimd.BroadcastInt64x4(0))",
        ],
        ["order := loadUint32x8Array(&pairOrder8)"],
        "concatPermuteScalarsGroupedFloat32x8(p.AsFloat32x8(), 0, 1, 6, 7, q.AsFloat32x8())"
        ".Permute(order).AsFloat64x4()",
    ),
}


def step2_kernels(name: str, t: str, sfx: str, levels, spec) -> str:
    """{name}{sfx}InStep2 and {name}{sfx}FromStep2: the fused step-2 loops."""
    _, setup, expr, doc = spec
    ins = [
        f"// {name}{sfx}InStep2: {doc} in place on the line of n elements of data at off,",
        "// off+2, ..., for its whole vectors (the elements between untouched); it returns",
        "// how many elements it did.",
        f"func {name}{sfx}InStep2(data []{t}, off, n int, k, c {t}) int {{",
        "\ti, s := 0, off",
        "\tswitch level {",
    ]
    frm = [
        f"// {name}{sfx}FromStep2: {doc} for the whole vectors of dst, a's elements at off,",
        "// off+2, ...; it returns how many it did.",
        f"func {name}{sfx}FromStep2(dst, a []{t}, off int, k, c {t}) int {{",
        "\ti, s := 0, off",
        "\tswitch level {",
    ]
    for lvl, v, w, u in levels:
        keep, perm, compact = STEP2[(sfx, lvl)]
        pre = [s.replace("{V}", v).replace("{U}", u) for s in setup]
        e = expr.replace("{V}", v).replace("{U}", u)
        ins.append(f"\tcase {lvl}:")
        ins += ["\t\t" + x for x in pre + keep]
        ins.append(
            f"\t\tfor ; i+{w} <= n && s+{2 * w - 1} <= len(data); i, s = i+{w}, s+{2 * w} {{"
        )
        # both loads before the stores: the second load overlaps the first store's
        # span, and a load from a masked store's bytes waits for it to retire
        ins.append(f"\t\t\tx := load{v}(data[s : s+{w}])")
        ins.append(f"\t\t\ty := load{v}(data[s+{w - 1} : s+{2 * w - 1}])")
        ins.append(f"\t\t\tstore{v}ArrayMasked({e}, (*[{w}]{t})(data[s:s+{w}]), keep)")
        ey = e.replace("x.", "y.").replace("(x", "(y").replace(" x,", " y,")
        ins.append(
            f"\t\t\tstore{v}ArrayMasked({ey}, (*[{w}]{t})(data[s+{w - 1}:s+{2 * w - 1}]), keepOdd)"
        )
        ins.append("\t\t}")
        frm.append(f"\tcase {lvl}:")
        frm += ["\t\t" + x for x in pre + perm]
        frm.append(
            f"\t\tfor ; i+{w} <= len(dst) && s+{2 * w - 1} <= len(a); i, s = i+{w}, s+{2 * w} {{"
        )
        frm.append(f"\t\t\tp := load{v}(a[s : s+{w}])")
        frm.append(f"\t\t\tq := load{v}(a[s+{w - 1} : s+{2 * w - 1}])")
        frm.append(f"\t\t\tx := {compact}")
        frm.append(f"\t\t\tstore{v}({e}, dst[i : i+{w}])")
        frm.append("\t\t}")
    ins += ["\t}", "\treturn i", "}", ""]
    frm += ["\t}", "\treturn i", "}", ""]
    return "\n".join(ins + frm)


# Short step-2 lines in place (a 4x4 [:, ::2]'s rows: 4 elements, a vector spans 8):
# a line of n elements spans 2n-1; where that fits one AVX-512 vector, one masked
# operation does the line: the vector's window starts at the line's first element,
# or ends at data's last where data ends sooner (a tensor's memory may), the mask
# shifted by as much. The windows of close lines overlap, and a load from a masked
# store's bytes waits for the store to retire (perf: most of such a line's time),
# so four lines are loaded before any is stored: each writes only its own elements
# and reads only its own to compute them, so the order changes no result. AVX2 has
# no mask registers: its lines take the per-line kernel and the short loop.
def step2_rows_kernel(name: str, t: str, sfx: str, levels, spec) -> str:
    """{name}{sfx}InStep2Rows: the short lines' masked kernel (AVX-512 only)."""
    _, setup, expr, doc = spec
    bits = 32 if t == "float32" else 64
    out = [
        f"// {name}{sfx}InStep2Rows: {doc} in place on rows lines of n elements of data,",
        "// at off, off+2, ... for the first and next apart, each a masked operation on",
        "// one vector; it returns how many lines it did (all, or 0: lines too long for a",
        "// vector, data shorter than one, or no AVX-512).",
        f"func {name}{sfx}InStep2Rows(data []{t}, off, rows, n, next int, k, c {t}) int {{",
    ]
    for lvl, v, w, u in levels:
        if lvl != "useAVX512":
            continue
        ubits, keep = ("uint16", "0x5555") if w == 16 else ("uint8", "0x55")
        mask = f"Mask{bits}x{w}"
        pre = [x.replace("{V}", v).replace("{U}", u) for x in setup]
        e = expr.replace("{V}", v).replace("{U}", u)
        out += [
            f"\tif level != useAVX512 || n < 1 || 2*n-1 > {w} || len(data) < {w} {{",
            "\t\treturn 0",
            "\t}",
            *["\t" + x for x in pre],
            f"\tlast, line := len(data)-{w}, {ubits}(1<<(2*n-1)-1)&{keep}",
            "\t// at is the window of the line at s: its array and mask.",
            f"\tat := func(s int) (*[{w}]{t}, archsimd.{mask}) {{",
            "\t\tws := min(s, last)",
            f"\t\treturn (*[{w}]{t})(data[ws : ws+{w}]),",
            f"\t\t\tarchsimd.{mask}FromBits(line << (s - ws))",
            "\t}",
            "\tr, s := 0, off",
            "\tfor ; r+4 <= rows; r, s = r+4, s+4*next {",
            "\t\tp0, m0 := at(s)",
            "\t\tp1, m1 := at(s + next)",
            "\t\tp2, m2 := at(s + 2*next)",
            "\t\tp3, m3 := at(s + 3*next)",
        ]
        for j in range(4):
            out.append(f"\t\tx{j} := load{v}Array(p{j})")
        for j in range(4):
            ej = e.replace("x.", f"x{j}.").replace("(x", f"(x{j}").replace(" x,", f" x{j},")
            out.append(f"\t\tstore{v}ArrayMasked({ej}, p{j}, m{j})")
        out += [
            "\t}",
            "\tfor ; r < rows; r, s = r+1, s+next {",
            "\t\tp, m := at(s)",
            f"\t\tx := load{v}Array(p)",
            f"\t\tstore{v}ArrayMasked({e}, p, m)",
            "\t}",
            "\treturn rows",
        ]
    out += ["}", ""]
    return "\n".join(out)


def in_place_switch(name: str, kind: str, doc: list[str], params: str, t_sfx) -> list[str]:
    """{name}{kind}Kernel: the type switch from a generic in-place line (data []T,
    then the int params) to {name}{sfx}{kind}."""
    out = [*doc, f"func {name}{kind}Kernel[T Number](data []T, {params} int, k, c T) int {{"]
    out.append("\tswitch data := any(data).(type) {")
    for t, sfx in t_sfx:
        out += [
            f"\tcase []{t}:",
            f"\t\treturn {name}{sfx}{kind}(data, {params},",
            f"\t\t\tany(k).({t}), any(c).({t}))",
        ]
    return [*out, "\t}", "\treturn 0", "}", ""]


def step2_dispatchers(name: str, t_sfx: list[tuple[str, str]]) -> str:
    """{name}InStep2Kernel, {name}InStep2RowsKernel and {name}FromStep2Kernel: the
    type switches."""
    out = in_place_switch(
        name,
        "InStep2",
        [
            f"// {name}InStep2Kernel runs {name}'s fused in-place step-2 kernel of T's type:",
            "// how many of the line's n elements it did (0: no kernel for T).",
        ],
        "off, n",
        t_sfx,
    )
    out += in_place_switch(
        name,
        "InStep2Rows",
        [
            f"// {name}InStep2RowsKernel runs {name}'s short in-place step-2 lines' kernel of",
            "// T's type: how many of the rows lines it did (0: none, or no kernel for T).",
        ],
        "off, rows, n, next",
        t_sfx,
    )
    out += [
        f"// {name}FromStep2Kernel runs {name}'s fused kernel from a step-2 source of T's",
        "// type into dst: how many elements it did (0: no kernel for T).",
        f"func {name}FromStep2Kernel[T Number](dst, a []T, off int, k, c T) int {{",
        "\tswitch dst := any(dst).(type) {",
    ]
    for t, sfx in t_sfx:
        conv = f"any(a).([]{t}), off, any(k).({t}), any(c).({t})"
        out += [f"\tcase []{t}:", f"\t\treturn {name}{sfx}FromStep2(dst, {conv})"]
    out += ["\t}", "\treturn 0", "}", ""]
    return "\n".join(out)


HEADER = """// Code generated by tools/gen_vec_kernels.py; DO NOT EDIT.

//go:build goexperiment.simd && amd64

package vec

import (
	"math"
	"simd/archsimd"
)
"""


HEADER_NOSIMD = """// Code generated by tools/gen_vec_kernels.py; DO NOT EDIT.

//go:build !(goexperiment.simd && amd64)

package vec

// No SIMD in this build: every kernel does no element, the portable loops do all.
"""


HEADER_DISPATCH = """// Code generated by tools/gen_vec_kernels.py; DO NOT EDIT.

package vec

// The kernels by element type: what elementwise.go calls (every build: without
// SIMD the kernels do nothing and the portable loops do all).
"""


# simd/archsimd is an experiment, and its API changes between Go releases. 1.27
# renamed the loads and stores: a slice's load LoadFloat32x16Slice became
# LoadFloat32x16 and its store StoreSlice Store, and the array ones took the
# -Array names (LoadFloat32x16 -> LoadFloat32x16Array, Store -> StoreArray,
# StoreMasked -> StoreArrayMasked); SumAbsDiff became SumOf8AbsDiff, its sums
# typed as the uint64 lanes they are (1.26's were uint16 lanes, read as uint64);
# SelectFromPairGrouped became ConcatPermuteScalarsGrouped. vec's SIMD code calls
# each such operation through a wrapper named as the newest release names it
# (load{V}, store{V}, load{V}Array...; WRAPPERS), and archsimd_go1N.go defines the
# wrappers in release 1.N's API (ARCHSIMD_RELEASES; build-constrained to it). A
# wrapper is one call, which the compiler inlines (a function with vector
# parameters gets three times the inlining budget), so a kernel compiles to the
# instructions of the call written out (but for inline marks: docs/internals/vec.md,
# "Builds and Go releases"); concatPermuteScalarsGrouped's selectors stay constants through it
# (one VSHUFPS: archsimd calls a function for variable ones). Each wrapper that
# vec's files call is generated, no other (staticcheck reports an unused
# function). A release newer than the last here builds archsimd_newer.go
# instead, a compile error that says what to do.
# A new release: read its src/simd/archsimd, add its spellings here, regenerate,
# and run vec's tests under it (CONTRIBUTING.md, "Upgrading Go").
ARCHSIMD_RELEASES = [(1, 26), (1, 27)]
# name: (parameters, result, {release: body}); {V} the vector type, {E} its
# element type, {N} its lanes, {B} its element bits, {Q} the uint64 lanes of
# VPSADBW's sums (a uint8 vector's lanes / 8).
WRAPPERS = {
    # A slice's first {N} elements (a shorter one panics), loaded or stored as
    # archsimd's slice forms do, through the array forms: those are the
    # intrinsics, so the inlined wrapper is the instruction and needs no NOP to
    # mark where it was inlined (archsimd's slice forms are one inlined call more).
    "load{V}": (
        "s []{E}",
        "archsimd.{V}",
        {
            (1, 26): "return archsimd.Load{V}((*[{N}]{E})(s))",
            (1, 27): "return archsimd.Load{V}Array((*[{N}]{E})(s))",
        },
    ),
    "store{V}": (
        "x archsimd.{V}, s []{E}",
        "",
        {(1, 26): "x.Store((*[{N}]{E})(s))", (1, 27): "x.StoreArray((*[{N}]{E})(s))"},
    ),
    "load{V}Array": (
        "p *[{N}]{E}",
        "archsimd.{V}",
        {(1, 26): "return archsimd.Load{V}(p)", (1, 27): "return archsimd.Load{V}Array(p)"},
    ),
    "store{V}Array": (
        "x archsimd.{V}, p *[{N}]{E}",
        "",
        {(1, 26): "x.Store(p)", (1, 27): "x.StoreArray(p)"},
    ),
    "store{V}ArrayMasked": (
        "x archsimd.{V}, p *[{N}]{E}, m archsimd.Mask{B}x{N}",
        "",
        {(1, 26): "x.StoreMasked(p, m)", (1, 27): "x.StoreArrayMasked(p, m)"},
    ),
    "sumOf8AbsDiff{V}": (
        "x, y archsimd.{V}",
        "archsimd.Uint64x{Q}",
        {
            (1, 26): "return x.SumAbsDiff(y).AsUint64x{Q}()",
            (1, 27): "return x.SumOf8AbsDiff(y)",
        },
    ),
    "concatPermuteScalarsGrouped{V}": (
        "x archsimd.{V}, a, b, c, d uint8, y archsimd.{V}",
        "archsimd.{V}",
        {
            (1, 26): "return x.SelectFromPairGrouped(a, b, c, d, y)",
            (1, 27): "return x.ConcatPermuteScalarsGrouped(a, b, c, d, y)",
        },
    ),
}
_VECTOR = r"((?:Int|Uint|Float)(?:8|16|32|64)x(?:2|4|8|16|32|64))"


def _wrapper_pattern(name: str) -> re.Pattern[str]:
    return re.compile(r"\b" + re.escape(name).replace(re.escape("{V}"), _VECTOR) + r"\(")


def _release_tag(release: tuple[int, int]) -> str:
    return "go{}.{}".format(*release)


def wrappers_used(sources: list[str]) -> list[tuple[str, str]]:
    """The (wrapper, vector type) pairs that ``sources`` (vec's Go files) call."""
    used = set()
    for name in WRAPPERS:
        pattern = _wrapper_pattern(name)
        for text in sources:
            used.update((name, v) for v in pattern.findall(text))
    return sorted(used)


def wrapper_file(release: tuple[int, int], used: list[tuple[str, str]]) -> str:
    """archsimd_go1N.go: the wrappers ``used`` in release's archsimd API."""
    later = (release[0], release[1] + 1)
    lines = [
        "// Code generated by tools/gen_vec_kernels.py; DO NOT EDIT.",
        "",
        f"//go:build goexperiment.simd && amd64 && {_release_tag(release)}"
        f" && !{_release_tag(later)}",
        "",
        "package vec",
        "",
        'import "simd/archsimd"',
        "",
        f"// simd/archsimd's operations as Go {release[0]}.{release[1]} spells them, under"
        " the names vec's",
        "// kernels call (tools/gen_vec_kernels.py's WRAPPERS).",
        "",
    ]
    for name, v in used:
        elem = v.split("x")[0].lower()
        bits = int("".join(ch for ch in elem if ch.isdigit()))
        n = lanes_of(v)
        fill = {"{V}": v, "{E}": elem, "{N}": str(n), "{B}": str(bits), "{Q}": str(n // 8)}
        par, res, bodies = WRAPPERS[name]

        def sub(text: str, fill=fill) -> str:
            for k, x in fill.items():
                text = text.replace(k, x)
            return text

        result = f" {sub(res)}" if res else ""
        lines += [f"func {sub(name)}({sub(par)}){result} {{", f"\t{sub(bodies[release])}", "}", ""]
    return "\n".join(lines)


def newer_file() -> str:
    """archsimd_newer.go: the compile error of a release newer than ARCHSIMD_RELEASES'."""
    last = ARCHSIMD_RELEASES[-1]
    return "\n".join(
        [
            "// Code generated by tools/gen_vec_kernels.py; DO NOT EDIT.",
            "",
            f"//go:build goexperiment.simd && amd64 && {_release_tag((last[0], last[1] + 1))}",
            "",
            "package vec",
            "",
            "// A Go release newer than the ones vec's SIMD kernels are written for",
            f"// (archsimd_go1*.go, up to Go {last[0]}.{last[1]}): simd/archsimd is an"
            " experiment whose API",
            "// changes between releases, so each release's is checked and its wrappers",
            "// generated (tools/gen_vec_kernels.py's ARCHSIMD_RELEASES). Until then, build",
            "// with GOEXPERIMENT=nosimd (vec's portable loops) or a release it knows.",
            "var _ = vecHasNoSIMDKernelsForThisGoRelease_BuildWithGOEXPERIMENTnosimd",
            "",
        ]
    )


def archsimd_files(kernels: str) -> dict[Path, str]:
    """The wrapper files, for the wrappers the generated ``kernels`` and vec's other
    Go files call."""
    sources = [kernels] + [
        f.read_text(encoding="utf-8")
        for f in sorted(VEC.glob("*.go"))
        if f.name != OUT.name and not f.name.startswith("archsimd_")
    ]
    used = wrappers_used(sources)
    files = {
        VEC / f"archsimd_{_release_tag(r).replace('.', '')}.go": wrapper_file(r, used)
        for r in ARCHSIMD_RELEASES
    }
    files[VEC / "archsimd_newer.go"] = newer_file()
    return files


def params(ops: str, t: str) -> str:
    return {
        "k": f"dst, a []{t}, k {t}",
        "kc": f"dst, a []{t}, k, c {t}",
        "": f"dst, a []{t}",
        "b": f"dst, a, b []{t}",
        "bc": f"dst, a, b, c []{t}",
    }[ops]


def loads(ops: str, v: str, lo: str, hi: str, indent: str) -> list[str]:
    """x (and y, z) loaded from a (and b, c) [lo:hi]."""
    srcs = {"b": "ab", "bc": "abc"}.get(ops, "a")
    return [
        f"{indent}{n} := load{v}({s}[{lo} : {hi}])"
        for n, s in zip("xyz"[: len(srcs)], srcs, strict=True)
    ]


def line_head(ops: str, v: str, w: int, e: str) -> list[str]:
    """For a long dst not starting on a cache line: its first vector unaligned,
    then the one from its first line boundary, so that every store of the loop
    after is a whole aligned line (a store that straddles two lines costs both:
    lineHead's doc); and its last vector (line_tail), which the loop, on the
    shifted grid, would leave to the caller's element loop (four float32
    fma's one by one: ~40 ns). All three are loaded before any store, so in
    place the overlaps are the op of the sources as they were."""

    def reload(lo: str, hi: str) -> list[str]:
        return [ln.replace(":=", "=") for ln in loads(ops, v, lo, hi, "\t\t\t")]

    return [
        f"\t\tvar last archsimd.{v} // dst's last vector, where shifted",
        "\t\tshifted := false",
        f"\t\tif h := lineHead(dst); h > 0 && len(dst) >= alignFrom*{w} {{",
        *loads(ops, v, "", str(w), "\t\t\t"),
        f"\t\t\tr := {e}",
        *reload(f"len(dst)-{w}", ""),
        f"\t\t\tlast = {e}",
        *reload("h", f"h+{w}"),
        f"\t\t\tstore{v}(r, dst[:{w}])",
        f"\t\t\tstore{v}({e}, dst[h : h+{w}])",
        f"\t\t\ti, shifted = h+{w}, true",
        "\t\t}",
    ]


def line_tail(v: str, w: int) -> list[str]:
    """line_head's last vector, stored after the loop where line_head ran."""
    return [
        "\t\tif shifted && i < len(dst) {",
        f"\t\t\tstore{v}(last, dst[len(dst)-{w}:])",
        "\t\t\ti = len(dst)",
        "\t\t}",
    ]


def kernel(name: str, t: str, sfx: str, levels, spec) -> str:
    ops, setup, expr, doc = spec
    lines = [
        f"// {name}{sfx}: {doc} for the whole vectors of dst (the other slices are as long).",
        f"func {name}{sfx}({params(ops, t)}) int {{",
        "\ti := 0",
        "\tswitch level {",
    ]
    for lvl, v, w, u in levels:
        lines.append(f"\tcase {lvl}:")
        for s in setup:
            sign = SIGNS.get(t, "")  # abs's mask: float types only
            lines.append("\t\t" + s.replace("{V}", v).replace("{U}", u).replace("{SIGN}", sign))
        e = expr.replace("{V}", v).replace("{U}", u)
        if lvl == "useAVX512":
            lines += line_head(ops, v, w, e)
        lines.append(f"\t\tfor ; i+{w} <= len(dst); i += {w} {{")
        lines += loads(ops, v, "i", f"i+{w}", "\t\t\t")
        lines.append(f"\t\t\tstore{v}({e}, dst[i : i+{w}])")
        lines.append("\t\t}")
        if lvl == "useAVX512":
            lines += line_tail(v, w)
    lines += ["\t}", "\treturn i", "}", ""]
    return "\n".join(lines)


def dispatcher(name: str, ops: str, types: list[tuple[str, str]]) -> str:
    """{name}Kernel: the type switch from a generic slice to {name}'s kernel."""
    slices = {"k": ["a"], "kc": ["a"], "": ["a"], "b": ["a", "b"], "bc": ["a", "b", "c"]}[ops]
    scalars = {"k": ["k"], "kc": ["k", "c"]}.get(ops, [])
    lines = [
        f"// {name}Kernel runs {name}'s kernel of T's type over the whole vectors of",
        "// dst; it returns how many elements it did (0: no kernel for T).",
        f"func {name}Kernel[T Number]({params(ops, 'T')}) int {{",
        "\tswitch dst := any(dst).(type) {",
    ]
    for t, sfx in types:
        conv = [f"any({x}).([]{t})" for x in slices] + [f"any({x}).({t})" for x in scalars]
        lines += [f"\tcase []{t}:", f"\t\treturn {name}{sfx}(dst, {', '.join(conv)})"]
    lines += ["\t}", "\treturn 0", "}", ""]
    return "\n".join(lines)


def generate() -> dict[Path, str]:
    """Every generated file's text (before gofmt)."""
    parts = [HEADER]
    stubs = [HEADER_NOSIMD]
    have: dict[str, list[tuple[str, str]]] = {}
    ops_of = {name: spec[0] for name, spec in {**KERNELS, **INT_KERNELS}.items()}
    for name, spec in KERNELS.items():
        for t, sfx, levels in TYPES:
            parts.append(kernel(name, t, sfx, levels, spec))
            stubs.append(f"func {name}{sfx}({params(spec[0], t)}) int {{ return 0 }}\n")
            if name in INT_KERNELS:
                have.setdefault(name, []).append((t, sfx))
    for name in FUSED_STEP2:
        for t, sfx, levels in TYPES:
            parts.append(step2_kernels(name, t, sfx, levels, KERNELS[name]))
            parts.append(step2_rows_kernel(name, t, sfx, levels, KERNELS[name]))
            stubs += [
                f"func {name}{sfx}InStep2Rows([]{t}, int, int, int, int, {t}, {t}) int "
                "{ return 0 }\n",
                f"func {name}{sfx}InStep2([]{t}, int, int, {t}, {t}) int {{ return 0 }}\n",
                f"func {name}{sfx}FromStep2(_, _ []{t}, _ int, _, _ {t}) int {{ return 0 }}\n",
            ]
    for name in ("exp", "log"):
        for t, sfx, levels in TYPES:
            parts.append(math_kernel_func(name, t, sfx, levels))
            stubs.append(f"func {name}{sfx}(dst, a []{t}) int {{ return 0 }}\n")
    for name, spec in INT_KERNELS.items():
        for t, sfx, v512, v256 in INTS:
            levels = int_levels(name, int("".join(ch for ch in t if ch.isdigit())), v512, v256)
            if not levels:
                continue
            parts.append(kernel(name, t, sfx, levels, spec))
            stubs.append(f"func {name}{sfx}({params(spec[0], t)}) int {{ return 0 }}\n")
            have.setdefault(name, []).append((t, sfx))
    sum_types, extreme_types = [], []
    for t, sfx, v512, v256 in INTS:
        parts.append(sum_int_kernel(t, sfx))
        stubs.append(f"func sumInt{sfx}([]{t}) (int64, int) {{ return 0, 0 }}\n")
        sum_types.append((t, sfx))
        levels = int_levels("minimum", int("".join(ch for ch in t if ch.isdigit())), v512, v256)
        parts.append(extreme_int_kernel(t, sfx, levels))
        stubs.append(f"func extremeInt{sfx}([]{t}, bool) ({t}, int) {{ return 0, 0 }}\n")
        extreme_types.append((t, sfx))
    dispatchers = [dispatcher(n, ops_of[n], have[n]) for n in have]
    dispatchers.append(int_reduce_dispatchers(sum_types, extreme_types))
    float_types = [(t, sfx) for t, sfx, _ in TYPES]
    dispatchers += [step2_dispatchers(n, float_types) for n in FUSED_STEP2]
    kernels = "\n".join(parts)
    return {
        OUT: kernels,
        OUT_NOSIMD: "\n".join(stubs),
        DISPATCH: "\n".join([HEADER_DISPATCH, *dispatchers]),
        **archsimd_files(kernels),
    }


def gofmt(text: str) -> str:
    return subprocess.run(["gofmt"], input=text, capture_output=True, text=True, check=True).stdout


def main(argv: list[str]) -> int:
    files = {path: gofmt(text) for path, text in generate().items()}
    if argv[1:] == ["--check"]:
        stale = [
            p.name for p, text in files.items() if not p.is_file() or p.read_text("utf-8") != text
        ]
        if stale:
            names = ", ".join(stale)
            print(f"{names}: not what {Path(__file__).name} writes: run it", file=sys.stderr)
            return 1
        return 0
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
