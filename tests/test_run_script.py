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


def test_run_tests_every_supported_cpython_and_only_those():
    # tests/run's list and the wheel's (classifiers, requires-python, `python -m godlpack
    # info`) are one list: interpreter.PY_VERSIONS; 3.10 is retired with its pins.
    from godlpack_build.interpreter import PY_VERSIONS

    text = (REPO / "tests" / "run").read_text(encoding="utf-8")
    (line,) = [x for x in text.splitlines() if x.startswith("all_versions=(")]
    listed = line[len("all_versions=(") : line.index(")")].split()
    assert listed == ["{}.{}".format(*v) for v in PY_VERSIONS]
    assert listed == ["3.11", "3.12", "3.13", "3.14", "3.15"]
    for v in listed[1:]:
        assert (REPO / "tests" / f"requirements-{v}.txt").is_file(), v
    assert not (REPO / "tests" / "requirements-3.10.txt").exists()


def test_the_full_run_includes_the_free_threaded_cpython():
    # the default run (CONTRIBUTING.md's, CI's) tests 3.13t too, with its own pins; the
    # version list as tests/run's own lines make it, with GODLPACK_PYTHONS unset
    text = (REPO / "tests" / "run").read_text(encoding="utf-8")
    lines = [x for x in text.splitlines() if x.startswith(("all_versions=(", "ft_versions=("))]
    (default,) = [x for x in text.splitlines() if x.startswith("read -r -a versions <<<")]
    script = "\n".join([*lines, default, 'echo "${versions[*]}"'])
    env = {k: v for k, v in os.environ.items() if k != "GODLPACK_PYTHONS"}
    r = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True)
    assert r.stdout.split() == ["3.11", "3.12", "3.13", "3.14", "3.15", "3.13t"], r
    assert (REPO / "tests" / "requirements-3.13t.txt").is_file()


def test_a_cpython_to_get_from_debian_waits_for_the_tool_check(tmp_path):
    # 3.14 is neither in pyenv nor on PATH here: step 1 would make it from Debian's
    # packages, but a missing tool is named first, and nothing is downloaded or made.
    if shutil.which("python3.14") or shutil.which("apt-get") is None:
        import pytest

        pytest.skip("python3.14 on PATH, or no apt-get: this machine tests another path")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GO", "VIRTUAL"))}
    env["CC"] = "/nonexistent/cc"
    env["GODLPACK_VENV_ROOT"] = str(tmp_path / "venvs")
    env["PYENV_ROOT"] = str(tmp_path / "no-pyenv")
    env["GODLPACK_PYTHONS"] = "3.14"
    r = subprocess.run(
        ["bash", "tests/run"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 1, r.stdout + r.stderr
    missing = [line for line in r.stdout.splitlines() if line.startswith("  - ")]
    assert len(missing) == 1 and "C compiler" in missing[0], r.stdout
    assert not (tmp_path / "venvs").exists()  # no Debian packages fetched, no venv


def test_the_quick_tier_checks_and_runs_the_primary_cpython_only(tmp_path):
    # `bash tests/run quick` runs one CPython (3.11): GODLPACK_PYTHONS does not apply, so
    # a 2.9 there is not even looked for; the tools are still checked before anything else
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GO", "VIRTUAL"))}
    path = [d for d in os.environ["PATH"].split(os.pathsep) if d]
    env["PATH"] = os.pathsep.join(d for d in path if not shutil.which("go", path=d))
    env["CC"] = "/nonexistent/cc"
    env["GODLPACK_VENV_ROOT"] = str(tmp_path / "venvs")
    env["GODLPACK_PYTHONS"] = "3.11 2.9"
    r = subprocess.run(
        ["bash", "tests/run", "quick"], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert r.returncode == 1, r.stdout + r.stderr
    missing = [line for line in r.stdout.splitlines() if line.startswith("  - ")]
    assert len(missing) == 2, missing  # Go and the C compiler; nothing about 2.9
    assert not (tmp_path / "venvs").exists()


def test_an_unknown_tier_is_a_usage_error():
    r = subprocess.run(["bash", "tests/run", "quik"], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 2 and "usage: bash tests/run [quick]" in r.stderr, r


def test_the_versions_between_the_ends_deselect_the_ends_only_tests():
    # The build backend's pip-install scenarios, init, the type-checkers and the Go-release
    # checks (pyproject.toml's ends_only marker) run on the primary, the newest and the
    # free-threaded CPython (but those also marked gil_ends); the versions between run
    # everything else. Every version's
    # interpreter exists when the suite runs (tests/run made or found them first).
    env = dict(os.environ, GODLPACK_PLAN="1")
    env.pop("GODLPACK_PYTHONS", None)
    r = subprocess.run(
        ["bash", "tests/run"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stdout + r.stderr
    plan = [line for line in r.stdout.splitlines() if line.startswith("plan: ")]
    assert plan == [
        "plan: CPython 3.11: pytest",
        'plan: CPython 3.12: pytest -m "not ends_only"',
        'plan: CPython 3.13: pytest -m "not ends_only"',
        'plan: CPython 3.14: pytest -m "not ends_only"',
        "plan: CPython 3.15: pytest",
        'plan: CPython 3.13t: pytest -m "not gil_ends"',
    ], r.stdout
