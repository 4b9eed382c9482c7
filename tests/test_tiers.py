"""The test tiers (tests/_tiers.py): the heavy marker read from a test's source, a run that
deselects it importing no module that imports a heavy consumer, and a test that imports one
unseen failing there. Checked on a project of its own, whose heavy consumer is a stand-in
module (fakeheavy) that leaves a file behind when it is imported, and on this suite's
quick tier (bash tests/run quick)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _tiers import ModuleRule, consumers_in

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
QUICK = "not heavy and not slow"  # tests/run's quick_markers
HEAVY = frozenset({"fakeheavy"})
# pytest runs in child projects: the same on every CPython
pytestmark = pytest.mark.ends_only


def test_consumers_in_reads_imports_in_code_and_in_strings():
    assert consumers_in("import a.b as c, fakeheavy as f") == {"a", "fakeheavy"}
    assert consumers_in("from fakeheavy.sub import x") == {"fakeheavy"}
    assert consumers_in('code = "import os, fakeheavy"') == {"os", "fakeheavy"}
    assert consumers_in('m, mark = optional_consumer("fakeheavy", "dist")') == {"fakeheavy"}
    assert consumers_in('pytest.importorskip("fakeheavy")') == {"fakeheavy"}
    assert consumers_in("a tensor from fakeheavy's side") == set()


MODULE = '''
import json

SCRIPT = """
import sys, fakeheavy
"""


def helper():
    import fakeheavy

    return fakeheavy


def calls_helper():
    return helper()


def cases():
    return [calls_helper]


def test_plain():
    assert json.dumps(1) == "1"


def test_imports_in_its_body():
    import fakeheavy  # noqa: F401


def test_runs_a_script_in_a_child():
    run(SCRIPT)


def test_through_two_helpers():
    calls_helper()
'''


def test_a_test_is_heavy_by_its_source_and_the_names_it_uses(tmp_path):
    path = tmp_path / "test_m.py"
    path.write_text(MODULE)
    rule = ModuleRule(path, HEAVY)
    assert rule.imports_heavy == []  # importing the module imports no heavy consumer
    assert rule.heavy_names == {
        "SCRIPT",
        "helper",
        "calls_helper",
        "cases",
        "test_imports_in_its_body",
        "test_runs_a_script_in_a_child",
        "test_through_two_helpers",
    }
    assert not rule.uses_heavy("def test_plain():\n    assert json.dumps(1) == '1'\n")


def test_a_module_importing_a_heavy_consumer_when_imported_is_heavy(tmp_path):
    variants = {
        "top": "import fakeheavy\n",
        "optional": 'mod, mark = optional_consumer("fakeheavy", "fake-heavy")\n',
        "decorator": MODULE + "\n@parametrize('case', cases())\ndef test_x(case):\n    pass\n",
        "class": "class T:\n    import fakeheavy\n",
    }
    for name, text in variants.items():
        path = tmp_path / f"test_{name}.py"
        path.write_text(text)
        assert ModuleRule(path, HEAVY).imports_heavy, name


def _project(tmp_path: Path) -> Path:
    """A test project whose heavy consumer is fakeheavy, which leaves imported.txt."""
    (tmp_path / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [tool.pytest.ini_options]
            addopts = ["-p", "no:cacheprovider", "--strict-markers"]
            markers = ["heavy: uses fakeheavy", "slow: slow"]
            heavy_consumers = ["fakeheavy"]
            """
        )
    )
    (tmp_path / "fakeheavy.py").write_text(
        "import pathlib\npathlib.Path(__file__).with_name('imported.txt').touch()\n"
    )
    (tmp_path / "test_top.py").write_text(
        "import fakeheavy  # noqa: F401\n\n\ndef test_a():\n    pass\n"
    )
    (tmp_path / "test_mixed.py").write_text(
        MODULE
        + textwrap.dedent(
            """

            def run(script):
                assert "fakeheavy" in script


            def test_imports_it_unseen():
                import importlib

                importlib.import_module("fake" + "heavy")
            """
        )
    )
    return tmp_path


def _pytest(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS), str(project)]))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "_tiers", "-q", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_run_deselecting_heavy_imports_no_heavy_module(tmp_path):
    project = _project(tmp_path)
    res = _pytest(project, "--collect-only", "-m", QUICK)
    assert res.returncode == 0, res.stdout + res.stderr
    collected = {line for line in res.stdout.splitlines() if "::" in line}
    assert collected == {
        "test_mixed.py::test_plain",
        "test_mixed.py::test_imports_it_unseen",
    }, res.stdout
    assert not (project / "imported.txt").exists()  # test_top.py was not even imported


def test_a_test_importing_a_heavy_consumer_unseen_fails_the_quick_run(tmp_path):
    project = _project(tmp_path)
    res = _pytest(project, "-m", QUICK)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "1 failed, 1 passed" in res.stdout, res.stdout
    assert (
        "test_mixed.py::test_imports_it_unseen imported fakeheavy in a run that deselects heavy"
        in res.stdout
    ), res.stdout


def test_the_full_run_runs_every_test(tmp_path):
    project = _project(tmp_path)
    res = _pytest(project)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "6 passed" in res.stdout, res.stdout  # test_top's one, test_mixed's five
    res = _pytest(project, "--collect-only", "-m", "heavy")
    heavy = {line for line in res.stdout.splitlines() if "::" in line}
    assert heavy == {
        "test_top.py::test_a",
        "test_mixed.py::test_imports_in_its_body",
        "test_mixed.py::test_runs_a_script_in_a_child",
        "test_mixed.py::test_through_two_helpers",
    }, res.stdout


def test_this_suites_quick_tier_collects_without_a_heavy_consumer():
    """What bash tests/run quick runs: collecting it imports none of pyproject.toml's
    heavy_consumers (_tiers.check_collection stops the run otherwise), and it leaves out
    the modules and tests that use one."""
    res = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", QUICK],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    collected = {
        line.split("::")[0] + "::" + line.split("::")[1].split("[")[0]
        for line in res.stdout.splitlines()
        if "::" in line
    }
    assert "tests/test_docs.py::test_module_demo" in collected
    assert "tests/test_docs.py::test_module_info" not in collected  # imports PyTorch
    assert not [t for t in collected if t.startswith("tests/test_export_torch.py")]
    assert not [t for t in collected if t.startswith("tests/test_wheel.py")]  # slow
