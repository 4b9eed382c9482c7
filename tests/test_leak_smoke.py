"""A short run of bench/leak_bench.py (the million-exchange leak benchmark).

Three rounds of 20,000 mixed exchanges (NumPy and PyTorch exports and imports, raw
capsules, copies, and godlpack's DLPack C exchange API) after a warm-up, in a fresh
interpreter: exit status 0, the median round's RSS growth under the benchmark's 2 MiB
limit, and godlpack's live-allocation counter back where it started. The median, not
one round: a leak grows every round, one-off growth (an allocator's new segment) does
not (one round failed once in 3.13t's loaded full run, never alone; not caught since). And the
same run with a leak of 1 KiB an exchange fails on RSS. Run the benchmark itself for the
full million.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import godlpack
import pytest
from conftest import REPO

pytestmark = pytest.mark.slow  # runs bench/leak_bench.py, twice


def _leak_bench(figures, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            os.path.join(REPO, "bench", "leak_bench.py"),
            *args,
            "--json",
            str(figures),
        ],
        capture_output=True,
        text=True,
        timeout=600,  # ~10 s idle; 3.13t's under a loaded full run, several times that
    )


def test_leak_bench_small_run(tmp_path):
    figures = tmp_path / "leak.json"
    proc = _leak_bench(figures, "--count", "20000", "--rounds", "3", "--warmup", "20000")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "live allocations:  +0" in proc.stdout, proc.stdout
    f = json.loads(figures.read_text())
    assert f["ok"] is True
    assert f["count"] == 20000 and f["rounds"] == 3
    assert f["live_allocations_after"] == f["live_allocations_before"]
    assert f["rss_growth_mib"] < 2.0
    assert f["total_refcount_growth"] is None or f["total_refcount_growth"] < 1000
    # Every kind of exchange ran, the C exchange API included when the type has it.
    kinds = set(f["kinds"])
    assert {"export-numpy", "export-torch", "import-numpy", "import-torch", "copy"} <= kinds
    assert {"capsule", "copy-import", "copy-export"} <= kinds
    if hasattr(godlpack.Array, "__dlpack_c_exchange_api__"):
        assert {"exchange-managed", "exchange-roundtrip", "exchange-dltensor"} <= kinds


def test_leak_bench_fails_a_leak(tmp_path):
    """The RSS check keeps its power: each exchange also leaking a reference to a 4 KiB
    bytes object (~20 MiB a round of 5,000) fails it, though godlpack's own counter
    (which does not see Python objects) stays level."""
    figures = tmp_path / "leak.json"
    args = ["--count", "5000", "--rounds", "3", "--warmup", "5000", "--leak-bytes", "4096"]
    proc = _leak_bench(figures, *args)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "RSS growth" in proc.stdout and "FAIL" in proc.stdout, proc.stdout
    f = json.loads(figures.read_text())
    assert f["ok"] is False
    # The median round, as the benchmark's own verdict, and a leak far above what a
    # round can hand back meanwhile: with 1 KiB (~5 MiB a round) one round read under
    # 3 MiB on every interpreter in a fresh clone's CI, each beside another suite's
    # pass (here 3.98 and 4.42 MiB in 8 runs beside one; 5.1 alone). Likely, not
    # confirmed: the Go heap's overshoot while a loaded machine starves its collector
    # (the benchmark's docstring), handed back by its scavenger in a measured round.
    assert f["rss_growth_mib"] > 12.0, f["rss_growth_mib_rounds"]
    assert f["live_allocations_after"] == f["live_allocations_before"]
