"""Go calling Python: `python -m godlpack go-env --embed` and the Go tests of embedding
(pyembed/embed_test.go: Start, Import, calls, conversions, exceptions with tracebacks,
tensors both ways for every dtype, 8 goroutines at once, Finalize), built and run after
`eval "$(python -m godlpack go-env --embed)"` as a user would, plainly, under
GOEXPERIMENT=cgocheck2 and under the race detector."""

from __future__ import annotations

import subprocess
import sys

import pytest
from _embed import REPO, env, with_go_env


def test_go_env_prints_export_lines():
    r = subprocess.run(
        [sys.executable, "-m", "godlpack", "go-env", "--embed"],
        env=env(),
        capture_output=True,
        text=True,
        check=True,
    )
    lines = r.stdout.splitlines()
    assert all(line.startswith("export ") for line in lines), r.stdout
    names = [line.split("=", 1)[0].removeprefix("export ") for line in lines]
    for name in ("CGO_CFLAGS", "CGO_LDFLAGS", "GOFLAGS", "LD_LIBRARY_PATH", "GODLPACK_PYTHON"):
        assert name in names
    # What a POSIX shell makes of them.
    shown = subprocess.run(
        ["sh", "-c", with_go_env('printf "%s\\n" "$CGO_LDFLAGS" "$GOFLAGS" "$GODLPACK_PYTHON"')],
        env=env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert "-lpython" in shown[0] and "-Wl,-rpath," in shown[0]
    # The program makes godlpack._godlpack itself, from the package pyembed links: the
    # one build tag an extension has too.
    assert shown[1] == "-tags=godlpack_python"
    assert shown[2] == sys.executable
    # Without --embed: the extension's settings, no libpython.
    plain = subprocess.run(
        [sys.executable, "-m", "godlpack", "go-env"], env=env(), capture_output=True, text=True
    ).stdout
    assert "CGO_CFLAGS" in plain and "CGO_LDFLAGS" not in plain
    assert "-tags=godlpack_python" in plain


# The checked builds (cgocheck2, the race detector) test Go's side of the crossing, which
# is the same C on every CPython: they run on tests/run's primary version only, where the
# extension's own cgocheck2 pass runs too (each takes minutes on this 2-core machine).
PRIMARY = (3, 11)
MODES = ["plain", "cgocheck2", "race"] if sys.version_info[:2] == PRIMARY else ["plain"]


@pytest.mark.slow  # go test of the root package, built three ways
@pytest.mark.heavy  # testdata/embed/embed_helpers.py imports PyTorch
@pytest.mark.parametrize("mode", MODES)
def test_embed_go_tests(mode):
    prefix = {"plain": "", "cgocheck2": "GOEXPERIMENT=cgocheck2 ", "race": ""}[mode]
    flags = "-race" if mode == "race" else ""
    r = subprocess.run(
        ["bash", "-c", with_go_env(f"{prefix}go test -count=1 -timeout 300s {flags} ./pyembed/")],
        cwd=REPO,
        env=env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert r.returncode == 0, f"go test ({mode}) failed:\n{r.stdout[-6000:]}\n{r.stderr[-4000:]}"


@pytest.mark.slow  # go test of the root package
@pytest.mark.ends_only  # its error is the root package's Go, the same on every CPython
def test_start_without_the_module():
    """A program that calls the deprecated godlpack.Start without linking pyembed (the root
    package's own test binary) cannot make godlpack._godlpack in-process: Start's error says
    to use pyembed (embed_deprecated_test.go)."""
    r = subprocess.run(
        ["bash", "-c", with_go_env("go test -count=1 -v -run TestStartWithoutTheModule .")],
        cwd=REPO,
        env=env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert r.returncode == 0, f"go test failed:\n{r.stdout[-6000:]}\n{r.stderr[-4000:]}"
    assert "--- PASS: TestStartWithoutTheModule" in r.stdout
