"""kDLOneAPI tensors from dpnp on a real CPU SYCL device: imported without a copy
when the SYCL runtime (reached through dpctl's C interface) says the CPU can address them,
refused with a BufferError naming device=(1, 0) otherwise.

The cases (tests/_oneapi_cases.py) run in one child interpreter of the dpnp venv that
tests/run makes on CPython 3.11 (tests/requirements-oneapi.txt; GODLPACK_ONEAPI_VENV names
it), with OCL_ICD_FILENAMES pointing the OpenCL loader at the venv's CPU runtime for that
child alone (the ICD file the wheel installs names a path that does not exist). They use
this checkout's 3.11 build of godlpack, so they run in the 3.11 pass only. The refusals
that need no SYCL runtime (dpctl not imported, its library broken) run here.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import godlpack as g
import pytest
from _oneapi_cases import CASES
from conftest import GODLPACK_PATH
from goext_build import folder

TESTS = Path(__file__).resolve().parent
REQUIREMENTS = TESTS / "requirements-oneapi.txt"
VENV_PYTHON = "3.11"  # tests/run's primary: the venv's CPython


def oneapi_venv_dir() -> Path:
    """tests/run's venv for REQUIREMENTS (its GODLPACK_ONEAPI_VENV, else the same key)."""
    named = os.environ.get("GODLPACK_ONEAPI_VENV")
    if named:
        return Path(named)
    root = os.environ.get("GODLPACK_VENV_ROOT") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "godlpack"
    )
    key = hashlib.sha256(REQUIREMENTS.read_bytes() + f"{VENV_PYTHON}\n".encode()).hexdigest()
    return Path(root) / f"venv-oneapi-{VENV_PYTHON}-{key[:16]}"


def why_not_run() -> str | None:
    if "{}.{}".format(*sys.version_info[:2]) != VENV_PYTHON:
        return f"the dpnp venv is CPython {VENV_PYTHON}'s: its cases run in that pass"
    if not (oneapi_venv_dir() / ".complete").is_file():
        if os.environ.get("GODLPACK_ONEAPI_VENV"):  # tests/run made it: missing is a failure
            pytest.fail(f"tests/run's dpnp venv {oneapi_venv_dir()} is not complete")
        return f"no dpnp venv at {oneapi_venv_dir()}: tests/run makes it"
    return None


@pytest.fixture(scope="module")
def results() -> dict[str, str | None]:
    why = why_not_run()
    if why:
        pytest.skip(why)
    venv = oneapi_venv_dir()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([GODLPACK_PATH, str(TESTS)])
    env["OCL_ICD_FILENAMES"] = str(venv / "lib" / "libintelocl.so")
    proc = subprocess.run(
        [str(venv / "bin" / "python"), str(TESTS / "_oneapi_cases.py"), folder("goext")],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    got = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            got[r["case"]] = r["error"]
    for bad in ("Fatal", "Segmentation", "panic"):
        assert bad not in proc.stderr, proc.stderr[-4000:]
    assert proc.returncode == 0 or len(got) < len(CASES), proc.stderr[-4000:]
    if len(got) < len(CASES):
        got["__died__"] = f"exit {proc.returncode}\n{proc.stderr[-4000:]}"
    return got


@pytest.mark.heavy  # dpnp, in its own venv's interpreter (_oneapi_cases.py)
@pytest.mark.parametrize("name", [f.__name__ for f in CASES])
def test_dpnp_on_a_cpu_sycl_device(results, name):
    if name not in results:
        pytest.fail(f"the cases' interpreter died before {name}: {results.get('__died__')}")
    assert results[name] is None, results[name]


def test_without_dpctl_the_refusal_says_so():
    import ctypes

    from _oneapi_cases import oneapi_capsule

    assert "dpctl" not in sys.modules
    t = oneapi_capsule((ctypes.c_double * 2)(1.0, 2.0))
    with pytest.raises(BufferError) as info:
        cap = t.capsule()
        g.from_dlpack(cap)
    msg = str(info.value)
    assert "dpctl is not imported" in msg and "device=(1, 0)" in msg, msg


def test_without_dpctl_an_export_to_sycl_says_so():
    assert "dpctl" not in sys.modules
    with pytest.raises(BufferError, match="dpctl is not imported in this process"):
        g.arange(3.0).__dlpack__(max_version=(1, 3), dl_device=(14, 0), copy=True)
    with pytest.raises(ValueError, match="stream must be None"):  # only a SYCL export takes one
        g.arange(3.0).__dlpack__(stream=1, dl_device=(1, 0))


@pytest.mark.parametrize("library", ["missing", "not-a-library", "no-symbols"])
def test_a_broken_dpctl_is_a_buffer_error(isolated, tmp_path, library):
    # a "dpctl" whose C interface is absent, garbage, or a library without its functions
    pkg = tmp_path / "dpctl"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    lib = pkg / "libDPCTLSyclInterface.so"
    if library == "not-a-library":
        lib.write_bytes(b"\x7fELF garbage")
    elif library == "no-symbols":  # a real library (ctypes' own), without dpctl's functions
        import _ctypes

        lib.symlink_to(_ctypes.__file__)
    code = f"""
import ctypes, sys
sys.path.insert(0, {str(tmp_path)!r}); sys.path.insert(0, {str(TESTS)!r})
import dpctl, godlpack as g
from _oneapi_cases import oneapi_capsule
t = oneapi_capsule((ctypes.c_double * 2)(1.0, 2.0))
try:
    cap = t.capsule()
    g.from_dlpack(cap)
except BufferError as e:
    print(e)
# The capsule's destructor is a ctypes callback: dropped here, not by the shutdown
# collection, which on a free-threaded build may free the callback's thunk first.
del cap, t
"""
    proc = isolated(code)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "loading dpctl's C interface failed" in out and "device=(1, 0)" in out, out
    if library == "no-symbols":
        assert "has no DPCTLDeviceMgr_GetDevices" in out, out
