"""The Go tools on an extension, and a new project. ``python -m godlpack init NAME`` in an
empty folder writes a project whose go vet, go test, pip install and pytest pass as
written; a non-empty folder without a go.mod is refused. The Go tools on an extension:
``go doc`` shows godlpack's extension API from a plain checkout
(docs/decisions/untagged-go-api.md). ``python -m godlpack init``, in a fresh copy of
examples/goext away from the checkout, writes what the Go tools need, after which ``go vet
./...``, ``go build ./...`` and ``go test ./...`` work there with no flags and no Go or cgo
settings in the environment (go test runs goext's functions without Python); godlpack's
build backend still builds the folder, unchanged by it. In tests/goext_bad, go test's
godlpack.Check reports the very message import raises."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import godlpack
import pytest
from conftest import run_python
from goext_build import folder as built_folder

# go vet, go build and go test in copies of the examples: the same on every CPython
pytestmark = [pytest.mark.slow, pytest.mark.ends_only]

REPO = Path(__file__).resolve().parent.parent
GODLPACK_PATH = str(Path(godlpack.__file__).resolve().parent.parent)


def _plain_env() -> dict[str, str]:
    """A shell with no Go build settings: no GOFLAGS, GOWORK, GOEXPERIMENT, CGO_*."""
    drop = ("GOFLAGS", "GOWORK", "GOEXPERIMENT", "GOOS", "GOARCH")
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("CGO_")}
    env["GOTOOLCHAIN"] = "local"
    return env


def _go(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    go = shutil.which("go")
    if go is None:
        pytest.skip("no go on PATH")
    return subprocess.run(
        [go, *args], cwd=cwd, env=_plain_env(), capture_output=True, text=True, timeout=900
    )


def _init(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m godlpack init [ARGS]` in folder, as a user runs it (no CGO_* settings)."""
    return subprocess.run(
        [sys.executable, "-m", "godlpack", "init", *args],
        cwd=folder,
        env={**_plain_env(), "PYTHONPATH": GODLPACK_PATH},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("ext") / "goext"
    shutil.copytree(REPO / "examples" / "goext", folder, ignore=shutil.ignore_patterns("*.so"))
    return folder


def test_go_tools_fail_before_init(project):
    res = _go(["vet", "./..."], project)
    assert res.returncode != 0  # godlpack is not on the Go module proxy


def test_init_then_go_vet_and_build(project):
    res = _init(project)
    assert res.returncode == 0, res.stderr
    assert "go.work" in res.stdout and "gopls" in res.stdout, res.stdout
    work = (project / "go.work").read_text()
    assert "use ." in work and "replace github.com/godlpack/godlpack => ./.godlpack/module" in work
    vet = _go(["vet", "./..."], project)
    assert vet.returncode == 0, vet.stdout + vet.stderr
    build = _go(["build", "-o", os.devnull, "./..."], project)
    assert build.returncode == 0, build.stdout + build.stderr
    # goext_test.go: Check and Function.Call, in a build with no Python headers or libpython
    test = _go(["test", "-count=1", "-v", "./..."], project)
    assert test.returncode == 0, test.stdout + test.stderr
    for name in (
        "TestModuleDeclaration",
        "TestScale",
        "TestScaleInPlace",
        "TestMatmulRefusesAVector",
    ):
        assert f"--- PASS: {name}" in test.stdout, test.stdout


@pytest.mark.parametrize(
    "symbol", ["Func", "Func2", "Class", "Module", "Tensor", "Function.Call", "Check"]
)
def test_go_doc_shows_the_api_from_a_plain_checkout(symbol):
    res = _go(["doc", "github.com/godlpack/godlpack", symbol], REPO)
    assert res.returncode == 0, res.stdout + res.stderr  # not "no symbol"
    name = symbol.rpartition(".")[2]
    assert re.search(rf"^func (\([^)]*\) )?{name}\b|^type {name}\b", res.stdout, re.M), res.stdout


@pytest.mark.parametrize("example", ["goext", "streamstats"])
def test_an_extension_imports_no_array_module_package(example):
    """An extension's Go build (with the bindings' tag, as the backend builds it) depends on
    the authoring API, never on the godlpack module's own package or the embedding runtime:
    it reaches godlpack.Array through the module's C-API capsule (what
    test_goext.test_extension_links_none_of_the_godlpack_module checks in the built .so)."""
    sys.path.insert(0, str(REPO / "pyext"))
    try:
        from godlpack_build.golibrary import GO_BUILD_TAG
    finally:
        sys.path.remove(str(REPO / "pyext"))
    res = _go(["list", "-deps", "-tags", GO_BUILD_TAG, "."], REPO / "examples" / example)
    assert res.returncode == 0, res.stdout + res.stderr
    deps = set(res.stdout.split())
    assert "github.com/godlpack/godlpack" in deps, res.stdout  # the listing is the real one
    module = "github.com/godlpack/godlpack/"
    assert (
        sorted(
            d for d in deps if d.startswith((module + "internal/arraymodule", module + "pyembed"))
        )
        == []
    )


def test_the_root_package_holds_at_most_60_files():
    """The root package is the extension-authoring API and Object alone (the Array
    module, the CPython glue, fork safety and the embedding runtime are packages of their
    own): its files in both build states, tests included, stay at most 60."""
    sys.path.insert(0, str(REPO / "pyext"))
    try:
        from godlpack_build.golibrary import GO_BUILD_TAG
    finally:
        sys.path.remove(str(REPO / "pyext"))
    fields = "{{range .GoFiles}}{{.}} {{end}}{{range .CgoFiles}}{{.}} {{end}}"
    fields += "{{range .CFiles}}{{.}} {{end}}{{range .HFiles}}{{.}} {{end}}"
    fields += "{{range .TestGoFiles}}{{.}} {{end}}{{range .XTestGoFiles}}{{.}} {{end}}"
    files: set[str] = set()
    for tags in ([], ["-tags", GO_BUILD_TAG]):
        res = _go(["list", *tags, "-f", fields, "."], REPO)
        assert res.returncode == 0, res.stdout + res.stderr
        files |= set(res.stdout.split())
    assert "ext_module.go" in files and "ext_call.c" in files  # both states were read
    assert len(files) <= 60, sorted(files)


def test_go_test_check_says_what_import_says(tmp_path):
    bad = tmp_path / "goext_bad"
    shutil.copytree(REPO / "tests" / "goext_bad", bad, ignore=shutil.ignore_patterns("*.so"))
    init = _init(bad)
    assert init.returncode == 0, init.stderr
    test = _go(["test", "-count=1", "-v", "./..."], bad)
    assert test.returncode == 0, test.stdout + test.stderr
    logged = re.search(r"goext_bad_test\.go:\d+: (godlpack\.Module.*)", test.stdout)
    assert logged, test.stdout
    proc = run_python(
        f"import sys; sys.path.insert(0, {built_folder('goext_bad')!r})\n"
        "try:\n    import goext_bad\nexcept ImportError as e:\n    print(e)\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert logged.group(1).strip() == proc.stdout.strip()


def test_backend_builds_the_folder_after_init(project, tmp_path):
    assert (project / "go.work").is_file()  # test_init_then_go_vet_and_build ran
    from godlpack_build.extension import build_extension

    ext = build_extension(project, tmp_path)
    code = "import goext, numpy as np; print(goext.sum(np.ones(4)))"
    res = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ext.parent), GODLPACK_PATH])},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.stdout.strip() == "4.0", res.stderr
    # the folder's own files untouched: init added only go.work, go.work.sum, .godlpack/
    original = {p.name for p in (REPO / "examples" / "goext").iterdir() if p.suffix != ".so"}
    assert {p.name for p in project.iterdir()} == original | {"go.work", "go.work.sum", ".godlpack"}
    for name in original:
        assert (project / name).read_bytes() == (REPO / "examples" / "goext" / name).read_bytes()


FROMGO_MOD = """module example.com/fromgo

go 1.26

require github.com/godlpack/godlpack v0.0.0
"""


def test_fromgo_builds_as_an_outside_module(tmp_path):
    """examples/fromgo copied out of the checkout, as a module of its own that requires
    godlpack (not on the Go module proxy): after init, go vet and go run work with no
    flags, and its C code includes nothing from the checkout."""
    folder = tmp_path / "fromgo"
    folder.mkdir()
    for name in ("main.go", "dlpack.h"):
        shutil.copy(REPO / "examples" / "fromgo" / name, folder / name)
    assert "${SRCDIR}" not in (folder / "main.go").read_text()
    (folder / "go.mod").write_text(FROMGO_MOD)
    init = _init(folder)
    assert init.returncode == 0, init.stderr
    vet = _go(["vet", "./..."], folder)
    assert vet.returncode == 0, vet.stdout + vet.stderr
    run = _go(["run", "."], folder)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines() == [
        "C consumer's sum: 10",
        "0:0 1:0.5 2:1 3:1.5 [2 2] [2 1]",
        "deleter calls: 1",
    ]


def test_sdist_leaves_out_what_init_wrote(project):
    from godlpack._goinit import init
    from godlpack_build.project import Project

    init(project)
    assert (project / "go.work").is_file()
    files = {str(p) for p in Project(project).sdist_files()}
    assert "main.go" in files and "go.mod" in files
    assert not files & {"go.work", "go.work.sum"}, files
    assert not [f for f in files if f.startswith(".godlpack")], files


def test_init_name_writes_a_project_that_builds_and_passes_its_tests(tmp_path):
    """As cargo new / maturin new: init NAME in an empty folder makes NAME/, whose go vet and
    go test (Check, Function.Call with a Kw) pass as written, which pip install builds (the
    backend of this checkout, as test_bind installs), and whose generated pytest passes."""
    init = _init(tmp_path, "hello")
    assert init.returncode == 0, init.stderr
    project = tmp_path / "hello"
    assert {p.name for p in project.iterdir()} >= {
        "go.mod",
        "pyproject.toml",
        "main.go",
        "main_test.go",
        "tests",
        "README.md",
        "go.work",
    }
    assert (project / "go.mod").read_text().startswith("module example.com/hello\n")
    assert "pip install ." in (project / "README.md").read_text()
    vet = _go(["vet", "./..."], project)
    assert vet.returncode == 0, vet.stdout + vet.stderr
    test = _go(["test", "-count=1", "-v", "./..."], project)
    assert test.returncode == 0, test.stdout + test.stderr
    for name in ("TestModule", "TestAdd", "TestCounter"):
        assert f"--- PASS: {name}" in test.stdout, test.stdout
    env = {**_plain_env(), "PYTHONPATH": GODLPACK_PATH}
    site = tmp_path / "site"
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps"]
    pip += ["--no-index", "--target", str(site), "."]
    res = subprocess.run(pip, cwd=project, env=env, capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, (res.stdout + res.stderr)[-4000:]
    pytest_cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
    env["PYTHONPATH"] = os.pathsep.join([str(site), GODLPACK_PATH])
    res = subprocess.run(
        pytest_cmd, cwd=project, env=env, capture_output=True, text=True, timeout=300
    )
    assert res.returncode == 0 and "2 passed" in res.stdout, res.stdout + res.stderr


def test_init_sets_a_new_projects_go_module_path(tmp_path):
    """--module sets a new project's module path; init in the current folder, empty, names
    the project after it; --module on a folder with a go.mod is refused."""
    folder = tmp_path / "my_ext"
    folder.mkdir()
    init = _init(folder, "--module", "github.com/me/my_ext")
    assert init.returncode == 0, init.stderr
    assert (folder / "go.mod").read_text().startswith("module github.com/me/my_ext\n")
    assert 'godlpack.Module("my_ext"' in (folder / "main.go").read_text()
    again = _init(folder, "--module", "github.com/me/other")
    assert again.returncode == 1 and "--module goes with a new project" in again.stderr


def test_init_refuses_a_folder_with_files_and_no_go_mod(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    res = _init(tmp_path)
    assert res.returncode == 1
    assert f"{tmp_path} is not empty and has no go.mod" in res.stderr, res.stderr
    assert "python -m godlpack init NEW_NAME" in res.stderr, res.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]  # nothing written
    bad = _init(tmp_path, "my-ext")
    assert bad.returncode == 1 and "'my-ext' is not a Python module name" in bad.stderr
    assert not (tmp_path / "my-ext").exists()
