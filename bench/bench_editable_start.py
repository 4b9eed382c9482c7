"""What an editable install of a Go extension adds to every interpreter start.

    python bench/bench_editable_start.py [--rounds R] [--runs N]

``pip install -e ./project`` of an extension written in Go puts a .pth into site-packages
that imports godlpack's hook (godlpack_build/editable_hook.py) at each start of Python,
whether or not the program imports the extension. In a fresh venv of this interpreter
(no pip), the wall time of ``python -c pass``:

    bare        site-packages without a .pth
    path .pth   a .pth naming a folder: what setuptools' editable install of a flat
                project writes (the cheapest editable install there is)
    godlpack    the hook's .pth, written by the backend's own code (editable.write_hook)

Each figure is the least of --runs starts, the three taken in turn for --rounds rounds
so that a change of the machine's load hits all three; then godlpack / bare and
godlpack / path .pth (goal: within a few per cent, the import of one small module;
tests/test_goext_build.py checks that the hook opens, lists and imports nothing but
its own file).
"""

from __future__ import annotations

import argparse
import compileall
import os
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "pyext"))

from godlpack_build.editable import write_hook  # noqa: E402


def least_start_s(python: Path, runs: int) -> float:
    """The least wall time of ``runs`` ``python -c pass`` processes."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([python, "-c", "pass"], check=True)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        env_dir = Path(tmp) / "venv"
        venv.EnvBuilder(with_pip=False).create(env_dir)
        python = env_dir / "bin" / "python"
        site = Path(
            subprocess.run(
                [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout.strip()
        )
        project = Path(tmp) / "project"  # the hook does not look at it until an import
        project.mkdir()
        hook = write_hook({"root": str(project), "module": "goext"}, "goext", site)
        compileall.compile_file(str(site / f"{hook}.py"), quiet=1)
        pths = {
            "godlpack": site / f"{hook}.pth",
            "path .pth": site / "__editable__.goext.pth",
        }
        pths["path .pth"].write_text(f"{project}\n", encoding="utf-8")
        for p in pths.values():
            p.rename(p.with_suffix(".off"))

        best = {name: float("inf") for name in ("bare", *pths)}
        for _ in range(args.rounds):
            for name in best:
                on = pths.get(name)
                if on is not None:
                    on.with_suffix(".off").rename(on)
                try:
                    best[name] = min(best[name], least_start_s(python, args.runs))
                finally:
                    if on is not None:
                        on.rename(on.with_suffix(".off"))

    print(f"CPython {sys.version.split()[0]}, load {os.getloadavg()[0]:.2f}: python -c pass")
    for name, s in best.items():
        print(f"  {name:10} {s * 1e3:6.2f} ms")
    ours, bare = best["godlpack"], best["bare"]
    print(f"godlpack / bare      {ours / bare:.3f}x  (+{(ours - bare) * 1e3:.2f} ms)")
    print(f"godlpack / path .pth {ours / best['path .pth']:.3f}x")


if __name__ == "__main__":
    main()
