"""tests/run checks every tool it needs before it downloads or builds anything, and
names each one missing (the first run's venvs are GBs: a missing compiler must not be
found out after them)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_missing_tools_are_named_before_any_download(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GO", "VIRTUAL"))}
    path = [d for d in os.environ["PATH"].split(os.pathsep) if d]
    env["PATH"] = os.pathsep.join(d for d in path if not shutil.which("go", path=d))
    env["CC"] = "/nonexistent/cc"
    env["GODLPACK_VENV_ROOT"] = str(tmp_path / "venvs")
    env["GODLPACK_PYTHONS"] = "3.11 2.9"  # 2.9: no requirements file, no interpreter
    r = subprocess.run(
        ["bash", "tests/run"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert "FAIL: tests/run needs, and did not find:" in lines, r.stdout
    missing = [line for line in lines if line.startswith("  - ")]
    assert any("Go >= 1.26" in m and "no `go` on PATH" in m for m in missing), missing
    assert any("C compiler" in m and "/nonexistent/cc" in m for m in missing), missing
    assert any("requirements file" in m and "2.9" in m for m in missing), missing
    assert len(missing) == 3, missing
    assert not (tmp_path / "venvs").exists()  # nothing made, nothing downloaded
