"""How godlpack's build backends are laid out, checked without a build:

- godlpack_build (pyext/godlpack_build), the package both backends are made of, imports
  with the standard library alone and never imports godlpack, so godlpack's own build
  imports it before godlpack's extension exists; every module uses one BuildError;
- godlpack.build, the backend users name, is its hooks, nothing else;
- godlpack's own backend (pyproject.toml's build-backend) is not a module named
  ``build``, and ``python -m build`` run from the repository root, which finds the root
  build.py (the developer CLI) first, reaches pypa's build through it;
- the PyInit file the backend adds to an extension comes from the backend itself and
  calls the init function the Go library's headers declare.

The builds themselves: tests/test_wheel.py (godlpack's), tests/test_goext_build.py
(users')."""

from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys
import tomllib
from pathlib import Path

import godlpack_build
import pytest
from godlpack_build.errors import BuildError
from godlpack_build.extension import pyinit_source
from godlpack_build.golibrary import GO_BUILD_TAG

REPO = Path(__file__).resolve().parent.parent
BACKEND = REPO / "pyext" / "godlpack_build"


def _modules() -> list[str]:
    return sorted(f"godlpack_build.{m.name}" for m in pkgutil.iter_modules(godlpack_build.__path__))


def test_godlpack_build_imports_alone():
    # -S: no site-packages (no wheel, no packaging, no godlpack installed); every module
    # imported, and neither godlpack nor a third-party module comes with them.
    code = (
        "import importlib, sys\n"
        f"sys.path.insert(0, {str(REPO / 'pyext')!r})\n"
        f"for name in {_modules()!r}:\n"
        "    importlib.import_module(name)\n"
        "print(sorted({n.split('.')[0] for n in sys.modules} - set(sys.stdlib_module_names)))\n"
    )
    res = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=120
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "['__main__', 'godlpack_build']", res.stdout


def test_one_build_error_everywhere():
    for name in _modules():
        module = importlib.import_module(name)
        if hasattr(module, "BuildError"):
            assert module.BuildError is BuildError, name
    assert not (REPO / "pyext" / "godlpack" / "_gobuild.py").exists()


def test_godlpack_build_is_the_hooks_alone():
    import godlpack.build
    from godlpack_build import hooks

    public = {n for n in vars(godlpack.build) if not n.startswith("_") and n != "annotations"}
    hook_names = {n for n in public if n.startswith(("build_", "get_requires_", "prepare_"))}
    assert public == set(godlpack.build.__all__) == hook_names
    assert hook_names >= {"build_wheel", "build_sdist", "build_editable"}
    for name in hook_names:
        assert getattr(godlpack.build, name) is getattr(hooks, name), name


def test_the_moved_helpers_forward_with_a_warning():
    """godlpack.build's helpers of the release before the backend's split stay one
    release, as deprecated forwards to godlpack_build (tests and scripts that built
    extensions with them keep working)."""
    import godlpack.build
    from godlpack_build import extension, project

    with pytest.warns(DeprecationWarning, match=r"godlpack_build\.extension\.build_extension"):
        assert godlpack.build.build_extension is extension.build_extension
    with pytest.warns(DeprecationWarning, match=r"godlpack_build\.project\.Project"):
        assert godlpack.build.Project is project.Project
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        godlpack.build.nothing  # noqa: B018


def test_own_backend_is_not_named_build():
    system = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]
    assert system["build-backend"] == "godlpack_build.own"
    assert system["backend-path"] == ["pyext"]


def _python_m_build(*args: str, pythonpath: Path | None) -> subprocess.CompletedProcess[str]:
    """``python -m build ARGS`` from the repository root (-S: without site-packages, so
    that only ``pythonpath`` can hold a package named build)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run(
        [sys.executable, "-S", "-m", "build", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_python_m_build_from_the_root_reaches_pypa_build(tmp_path):
    # A package named build on PYTHONPATH, as pypa's is in site-packages: `python -m
    # build` from the root finds build.py first (the current folder leads sys.path),
    # which hands over to that package's __main__ with the same arguments.
    pkg = tmp_path / "build"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "__main__.py").write_text(
        "import sys\n"
        "import build\n"
        "print('pypa build', build.__file__, sys.argv[1:], __name__)\n"
        "sys.exit(3)\n"
    )
    res = _python_m_build("--sdist", "--outdir", "somewhere", pythonpath=tmp_path)
    assert res.returncode == 3, res.stdout + res.stderr
    assert res.stdout.split() == [
        "pypa",
        "build",
        str(pkg / "__init__.py"),
        "['--sdist',",
        "'--outdir',",
        "'somewhere']",
        "__main__",
    ], res.stdout + res.stderr


def test_python_m_build_without_pypa_build_says_so(tmp_path):
    res = _python_m_build("--sdist", pythonpath=None)
    assert res.returncode == 1, res.stdout + res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("python -m build: pypa's build is not installed"), lines
    assert "pip install build" in lines[0] and "python build.py ext" in lines[0], lines
    assert "usage: build.py" not in res.stderr  # not the CLI's own argument error


def test_pyinit_file_is_the_backends_own():
    # The file comes from the backend, not from reading the Go library's sources; the
    # function it calls is the one the library's headers declare.
    text = pyinit_source("goextpkg._native")
    assert f"//go:build {GO_BUILD_TAG}\n" in text
    call = 'PyMODINIT_FUNC PyInit__native(void) { return godlpack_ext_init("_native"); }'
    assert call in text
    (declaration,) = [ln for ln in text.splitlines() if ln.startswith("PyObject *")]
    headers = [
        p
        for p in REPO.rglob("*.h")
        if ".git" not in p.parts and "tests" not in p.parts and "build" not in p.parts
    ]
    assert [p for p in headers if declaration in p.read_text(encoding="utf-8")], declaration
