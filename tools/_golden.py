"""What the golden-data generators (gen_float_golden.py, gen_repr_golden.py,
gen_vec_golden.py) share: the oracle is the NumPy and ml_dtypes that tests/requirements.txt
pins, and a file is written, or checked with --check, byte for byte.

The goldens are what the pinned libraries do, so a run with other versions stops before
writing anything: `go generate ./...` needs the test venv's python3 first on PATH
(CONTRIBUTING.md, "Regenerating code"). A gzipped file is written with no name and mtime 0
in its header, so the same data gives the same bytes. NumPy's loops and OpenBLAS's
kernels are chosen by the CPU they run on, and some give other last bits on another
(NumPy's AVX-512 float64 exp, log and exp2; OpenBLAS's dot and norm on a Skylake-X and on
a Haswell or Zen): a generator runs them as on an AVX2 CPU (x86-64-v3) wherever it runs
(SAME_KERNELS), so that a machine with AVX-512 and one without write the same files.
"""

from __future__ import annotations

import gzip
import io
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REQUIREMENTS = REPO / "tests" / "requirements.txt"
# NumPy's dispatch groups above AVX2 left out; OpenBLAS's kernels for Haswell (AVX2, FMA)
SAME_KERNELS = {
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
    "OPENBLAS_CORETYPE": "Haswell",
}


def _pins() -> dict[str, str]:
    pins = {}
    for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines():
        name, sep, version = line.split("#")[0].strip().partition("==")
        if sep:
            pins[name.strip().lower().replace("_", "-")] = version.strip()
    return pins


def require_pinned(generator: str, **modules) -> None:
    """Exits, saying what to run, unless each module (by its distribution name, e.g.
    ``ml_dtypes=ml_dtypes``) has the version tests/requirements.txt pins; first, where
    the environment lacks SAME_KERNELS, runs the generator again with them (both
    libraries read them when they load, which has happened by now)."""
    if any(os.environ.get(k) != v for k, v in SAME_KERNELS.items()):
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **SAME_KERNELS})
    pins = _pins()
    wrong = []
    for dist, module in modules.items():
        want = pins.get(dist.lower().replace("_", "-"))
        if want is None:
            sys.exit(f"{generator}: {REQUIREMENTS.name} pins no {dist}")
        if module.__version__ != want:
            wrong.append(f"{dist} {module.__version__} (pinned: {want})")
    if wrong:
        sys.exit(
            f"{generator}: the goldens are the pinned libraries' results, and this is "
            f"{', '.join(wrong)} ({sys.executable}); run it with the test venv's python "
            f"(tests/run makes it from {REQUIREMENTS.relative_to(REPO)})"
        )


def gzipped(data: bytes) -> bytes:
    """``data`` gzipped with the same header every time (no name, mtime 0)."""
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0) as gz:
        gz.write(data)
    return out.getvalue()


def write_or_check(generator: str, path: Path, data: bytes, check: bool) -> int:
    """Writes ``data`` to ``path``; with ``check``, writes nothing and returns 1, saying
    so, where the file differs from it. The exit status of a generator."""
    if check:
        if not path.is_file() or path.read_bytes() != data:
            shown = path.relative_to(REPO) if path.is_relative_to(REPO) else path
            print(f"{shown}: not what {generator} writes: run it", file=sys.stderr)
            return 1
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return 0
