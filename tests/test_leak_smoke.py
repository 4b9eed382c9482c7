"""A short run of bench/leak_bench.py (the million-exchange leak benchmark).

20,000 mixed exchanges (NumPy and PyTorch exports and imports, raw capsules, copies,
and godlpack's DLPack C exchange API) after a warm-up, in a fresh interpreter: exit
status 0, RSS growth under the benchmark's 2 MiB limit, and godlpack's live-allocation
counter back where it started. Run the benchmark itself for the full million.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import godlpack
from conftest import REPO


def test_leak_bench_small_run(tmp_path):
    figures = tmp_path / "leak.json"
    proc = subprocess.run(
        [
            sys.executable,
            os.path.join(REPO, "bench", "leak_bench.py"),
            "--count",
            "20000",
            "--warmup",
            "20000",
            "--json",
            str(figures),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "live allocations:  +0" in proc.stdout, proc.stdout
    f = json.loads(figures.read_text())
    assert f["ok"] is True
    assert f["count"] == 20000
    assert f["live_allocations_after"] == f["live_allocations_before"]
    assert f["rss_growth_mib"] < 2.0
    assert f["total_refcount_growth"] is None or f["total_refcount_growth"] < 1000
    # Every kind of exchange ran, the C exchange API included when the type has it.
    kinds = set(f["kinds"])
    assert {"export-numpy", "export-torch", "import-numpy", "import-torch", "copy"} <= kinds
    assert {"capsule", "copy-import", "copy-export"} <= kinds
    if hasattr(godlpack.Array, "__dlpack_c_exchange_api__"):
        assert {"exchange-managed", "exchange-roundtrip", "exchange-dltensor"} <= kinds
