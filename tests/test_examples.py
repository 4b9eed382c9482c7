"""examples/: each round trip runs as a program, with this test interpreter.

Each example is run as a subprocess (``python examples/<name>.py``, as a user would)
that imports the same godlpack as this run; it must exit 0 and print its last line.
Every file in examples/ must be listed here, so a new example cannot go untested.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys

import godlpack
import pytest
from conftest import why_unpinned

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(REPO, "examples")
GODLPACK_PATH = os.path.dirname(os.path.dirname(os.path.abspath(godlpack.__file__)))

#: example file -> lines it must print (the last one is its final line).
EXPECTED = {
    "numpy_roundtrip.py": [
        "godlpack -> numpy: zero-copy, float32[3, 4]",
        "numpy round trip: OK",
    ],
    "torch_roundtrip.py": [
        "godlpack -> torch: zero-copy, torch.float32[3, 4]",
        "torch round trip: OK",
    ],
    "jax_roundtrip.py": [
        "godlpack -> jax: zero-copy, float32[2, 3]",
        "jax round trip: OK",
    ],
    "tvm_ffi_roundtrip.py": [
        "godlpack -> tvm_ffi -> godlpack: zero-copy, float32[2, 3]",
        "tvm_ffi function call: godlpack.Array, zero-copy",
        "tvm_ffi round trip: OK",
    ],
}


def test_every_example_is_tested():
    assert os.path.isdir(EXAMPLES), f"{EXAMPLES} is missing (an sdist without examples/?)"
    found = sorted(os.path.basename(p) for p in glob.glob(os.path.join(EXAMPLES, "*.py")))
    assert found == sorted(EXPECTED)


# examples that need a consumer some interpreters have no wheel of
NEEDS = {"tvm_ffi_roundtrip.py": "apache-tvm-ffi"}


@pytest.mark.heavy  # the examples run PyTorch, JAX, TVM-FFI (a child: tests/_tiers.py cannot see)
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_runs(name):
    if name in NEEDS and (why := why_unpinned(NEEDS[name])) is not None:
        pytest.skip(why)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (GODLPACK_PATH, env.get("PYTHONPATH")) if p)
    r = subprocess.run(
        [sys.executable, os.path.join("examples", name)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, f"{name} exited {r.returncode}\n{r.stdout}\n{r.stderr}"
    lines = r.stdout.splitlines()
    for line in EXPECTED[name]:
        assert line in lines, f"{name} did not print {line!r}:\n{r.stdout}"
    assert lines[-1] == EXPECTED[name][-1]
