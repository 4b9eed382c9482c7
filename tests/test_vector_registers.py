"""The vector registers' upper halves are clear when Go returns to Python.

godlpack builds with GOEXPERIMENT=simd (package vec's kernels), and in such a build a
goroutine preempted by a signal (sysmon's, once it has run 10 ms) has its whole YMM/ZMM
registers restored: back in C with their upper halves in use, every SSE instruction of
CPython and the C library paid a false dependency on them until some code ran VZEROUPPER.
A view of a godlpack.Array took 300 ns instead of 100 after any long Go call
(bench_array's views were "bimodal across processes"). The patched runtime clears them
where Go leaves for C (internal/forksafe/overlay/godlpack_clearupper_amd64.s). Read here
through XGETBV(1), the processor's record of which register states are in use."""

from __future__ import annotations

import ctypes
import platform
import subprocess

import godlpack as g
import pytest

XINUSE_AVX = 1 << 2  # XCR0's AVX component: the YMM registers' upper halves

HELPER = r"""
#include <stdint.h>
#include <cpuid.h>
int xinuse_readable(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_AVX) || !(c & bit_OSXSAVE)) return 0;
    return __get_cpuid_count(0xD, 1, &a, &b, &c, &d) && (a & (1u << 2)); /* XGETBV(1) */
}
uint64_t xinuse(void) {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
    return ((uint64_t)hi << 32) | lo;
}
"""


@pytest.fixture(scope="module")
def registers(tmp_path_factory):
    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("x86-64 only: the AVX registers")
    d = tmp_path_factory.mktemp("xinuse")
    (d / "xinuse.c").write_text(HELPER)
    subprocess.run(
        ["gcc", "-O2", "-shared", "-fPIC", "-o", str(d / "libxinuse.so"), str(d / "xinuse.c")],
        check=True,
    )
    lib = ctypes.CDLL(str(d / "libxinuse.so"))
    lib.xinuse.restype = ctypes.c_uint64
    if not lib.xinuse_readable():
        pytest.skip("this CPU has no AVX, or cannot say which register states are in use")
    return lib


def test_long_go_calls_return_with_the_upper_halves_clear(registers):
    # g.arange of 8M float64 runs ~20 ms in Go on the calling thread: sysmon preempts it
    # by a signal (every one of 20 calls left the halves in use before the patch).
    in_use = 0
    for _ in range(10):
        g.arange(0.0, 8 * 2**20, dtype="float64")
        in_use += bool(registers.xinuse() & XINUSE_AVX)
    assert in_use == 0, f"{in_use} of 10 long Go calls returned with YMM upper halves in use"
