"""Builds an example extension written in Go (examples/goext, examples/goext2) for the
tests, the way godlpack's build backend does: ``go build -buildmode=c-shared -tags
godlpack_python`` of the example's main package, with an overlay adding the generated
``PyInit_<name>`` file (godlpack.PyInitTemplate) and a temporary go.mod whose replace
directive points at this checkout's Go sources.

Builds are cached per interpreter, cgocheck2 setting and content of the Go sources, in
the system's temporary folder: four CPythons run the suite in parallel on a small
machine, and a second run of the same sources costs nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CACHE = Path(tempfile.gettempdir()) / "godlpack-goext-builds"
GO_BUILD_TAG = "godlpack_python"


def pyinit_source(name: str) -> str:
    """The generated file that defines PyInit_<name> (the Go constant
    godlpack.PyInitTemplate, read from ext_module.go so there is one copy)."""
    text = (REPO / "ext_module.go").read_text(encoding="utf-8")
    start = text.index("const PyInitTemplate = `") + len("const PyInitTemplate = `")
    return text[start : text.index("`", start)].replace("{name}", name)


def _sources_digest(example: Path, cgocheck2: bool) -> str:
    h = hashlib.sha256()
    h.update(
        f"{sys.version_info[:2]} {sysconfig.get_config_var('EXT_SUFFIX')} {cgocheck2}".encode()
    )
    files = [p for p in REPO.glob("*") if p.suffix in (".go", ".c", ".h", ".mod", ".sum")]
    files += [p for p in (REPO / "dlpack").rglob("*") if p.suffix in (".go", ".c", ".h")]
    files += [p for p in example.glob("*") if p.is_file()]
    for p in sorted(files):
        if not p.name.endswith("_test.go"):
            h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:20]


def _go() -> str:
    go = os.environ.get("GO") or shutil.which("go") or "/usr/local/go/bin/go"
    return go


def build(example: Path, name: str, *, cgocheck2: bool = False) -> Path:
    """The built extension module ``name`` of example, a folder holding only it
    (put it on sys.path)."""
    out_dir = CACHE / f"{name}-{_sources_digest(example, cgocheck2)}"
    target = out_dir / (name + (sysconfig.get_config_var("EXT_SUFFIX") or ".so"))
    if target.exists():
        return out_dir
    work = Path(tempfile.mkdtemp(prefix=f"godlpack-{name}-"))
    try:
        gen = work / "godlpack_pyinit_generated.go"
        gen.write_text(pyinit_source(name), encoding="utf-8")
        overlay = work / "overlay.json"
        overlay.write_text(
            json.dumps({"Replace": {str(example / "godlpack_pyinit_generated.go"): str(gen)}})
        )
        modfile = work / "go.mod"
        modfile.write_text(
            (example / "go.mod").read_text(encoding="utf-8")
            + f"\nreplace github.com/godlpack/godlpack => {REPO}\n",
            encoding="utf-8",
        )
        shutil.copy(example / "go.sum", work / "go.sum")
        paths = sysconfig.get_paths()
        includes = dict.fromkeys([paths["include"], paths["platinclude"]])
        env = dict(os.environ)
        env.update(
            CGO_ENABLED="1",
            CGO_CFLAGS=" ".join("-I" + p for p in includes) + " -O2",
            GOTOOLCHAIN="local",
            GOWORK="off",
            GOFLAGS="-mod=mod",
        )
        if cgocheck2:
            env["GOEXPERIMENT"] = "cgocheck2"
        tmp_target = work / target.name
        cmd = [
            _go(),
            "build",
            "-buildmode=c-shared",
            "-tags=" + GO_BUILD_TAG,
            "-trimpath",
            "-buildvcs=false",
            "-overlay=" + str(overlay),
            "-modfile=" + str(modfile),
            "-o",
            str(tmp_target),
            ".",
        ]
        proc = subprocess.run(cmd, cwd=example, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"building {name} failed:\n{' '.join(cmd)}\n{proc.stderr}")
        out_dir.mkdir(parents=True, exist_ok=True)
        os.replace(tmp_target, target)  # atomic: parallel sessions see all or nothing
        return out_dir
    finally:
        shutil.rmtree(work, ignore_errors=True)


def cgocheck2_wanted() -> bool:
    """Whether this run tests a cgocheck2 build of godlpack (tests/run sets it): the
    extensions are then built the same way."""
    return os.environ.get("GODLPACK_EXPECT_CGOCHECK2") == "1"


#: Where each extension the tests build lives.
FOLDERS = {
    "goext": REPO / "examples" / "goext",
    "goext2": REPO / "tests" / "goext2",
    "goext_bad": REPO / "tests" / "goext_bad",
}


def folder(name: str, module: str | None = None) -> str:
    """The folder holding the extension of FOLDERS[name] built as module ``module``
    (default: name), built now if needed."""
    return str(build(FOLDERS[name], module or name, cgocheck2=cgocheck2_wanted()))


def load(name: str):
    """Builds (or finds cached) and imports the extension ``name``."""
    import importlib

    path = folder(name)
    if path not in sys.path:
        sys.path.insert(0, path)
    return importlib.import_module(name)


if __name__ == "__main__":  # python tests/goext_build.py goext: prints its folder
    print(folder(sys.argv[1]))
