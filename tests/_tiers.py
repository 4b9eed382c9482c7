"""The test tiers' rule: which tests use a heavy consumer (the ``heavy`` marker).

``bash tests/run quick`` runs ``pytest -m "not heavy and not slow"`` on one CPython.
pyproject.toml registers both markers and lists the heavy consumers (``heavy_consumers``:
PyTorch, JAX, TVM-FFI, Ray, Dask, MPI, dpnp). ``slow`` is set by hand, on the test or its
module. ``heavy`` is read from the test module's source, so a new test cannot forget it.
A test is heavy when:

- its module imports a heavy consumer when it is imported: in its top-level code (an
  import, ``optional_consumer``, ``pytest.importorskip``) or in a decorator (a
  parametrize list that a heavy helper makes). A run that deselects ``heavy`` does not
  import such a module at all;
- its own source (decorators included) imports a heavy consumer. This also counts code
  that the test hands to a child interpreter as a string;
- its source names a module-level function, class or constant that is heavy by the
  same rule (a script kept in a constant, a helper, a fixture). This holds through any
  chain of such names.

A consumer that the source does not show (the example files test_examples runs) needs a
``heavy`` mark on the test itself. ``check_no_heavy_import`` backs the rule up: in a run
that deselects ``heavy``, a test that still imports a heavy consumer in the test process
fails and is named (a child's imports are not seen).

The hooks below are tests/conftest.py's (it imports them); tests/test_tiers.py loads this
module as a plugin (``-p _tiers``) in a project of its own.
"""

from __future__ import annotations

import ast
import functools
import inspect
import itertools
import re
import sys
from pathlib import Path

import pytest

# `import a.b as c, d`, `from a.b import c`, `optional_consumer("a", ...)`,
# `pytest.importorskip("a")`: in code or in a string of code
_IMPORT = re.compile(
    r"\bimport[ \t]+([\w. \t,]+)|\bfrom[ \t]+([\w.]+)[ \t]+import\b"
    r"|\b(?:optional_consumer|importorskip)\(\s*[\"'](\w+)"
)


def consumers_in(text: str) -> set[str]:
    """The top-level packages that ``text`` imports (as code or as code in a string)."""
    found = set()
    for listed, source, optional in _IMPORT.findall(text):
        if listed:
            names = (part.split()[0] for part in listed.split(",") if part.split())
        else:
            names = [source or optional]
        found.update(name.split(".")[0] for name in names)
    return found


class ModuleRule:
    """The rule's reading of one test module."""

    def __init__(self, path: Path, heavy: frozenset[str]):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text, str(path))
        self.heavy = heavy
        sources: dict[str, str] = {}
        defs: set[str] = set()
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                sources[node.name] = ast.get_source_segment(text, node) or ""
                defs.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name) and name.id != "_":
                            sources[name.id] = ast.get_source_segment(text, node) or ""
        # heavy module-level names, to a fixed point (a helper calling a heavy helper)
        self.heavy_names: set[str] = set()
        changed = True
        while changed:
            changed = False
            for name, src in sources.items():
                if name not in self.heavy_names and self.uses_heavy(src):
                    self.heavy_names.add(name)
                    changed = True
        # what importing the module runs: its top-level statements, and of its functions
        # their decorators and defaults (a parametrize list a heavy helper makes), not
        # their bodies; a heavy constant (a child's script) imports nothing there
        self.imports_heavy = sorted(
            name
            for name in _import_time(tree.body)
            if name in heavy or name in self.heavy_names & defs
        )

    def uses_heavy(self, source: str) -> bool:
        """Whether ``source`` imports a heavy consumer or names a heavy module-level name."""
        if consumers_in(source) & self.heavy:
            return True
        words = set(re.findall(r"\w+", source))
        return not words.isdisjoint(self.heavy_names)


def _called(func: ast.expr) -> str:
    """The name a call's function has: f(...) or module.f(...)."""
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _import_time(body: list[ast.stmt]) -> set[str]:
    """What the code run when ``body`` (a module's or a class's) runs imports, and the
    module-level names it uses; the bodies of its functions are not run."""
    found: set[str] = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            parts: list[ast.AST] = [*node.decorator_list, *node.args.defaults]
            parts += [d for d in node.args.kw_defaults if d is not None]
        elif isinstance(node, ast.ClassDef):
            parts = [*node.decorator_list, *node.bases, *node.keywords]
            found |= _import_time(node.body)
        else:
            parts = [node]
        for sub in (n for part in parts for n in ast.walk(part)):
            if isinstance(sub, ast.Import):
                found.update(alias.name.split(".")[0] for alias in sub.names)
            elif isinstance(sub, ast.ImportFrom) and sub.module and not sub.level:
                found.add(sub.module.split(".")[0])
            elif isinstance(sub, ast.Name):
                found.add(sub.id)
            elif (
                isinstance(sub, ast.Call)
                and _called(sub.func) in ("optional_consumer", "importorskip")
                and sub.args
                and isinstance(sub.args[0], ast.Constant)
                and isinstance(sub.args[0].value, str)
            ):
                found.add(sub.args[0].value)
    return found


@functools.cache
def module_rule(path: Path, heavy: frozenset[str]) -> ModuleRule:
    return ModuleRule(path, heavy)


def heavy_consumers(config: pytest.Config) -> frozenset[str]:
    return frozenset(config.getini("heavy_consumers"))


def is_heavy(item: pytest.Item) -> bool:
    """Whether the rule marks ``item`` (a test function) heavy."""
    heavy = heavy_consumers(item.config)
    path = getattr(item, "path", None)
    function = getattr(item, "function", None)
    if not heavy or path is None or path.suffix != ".py" or function is None:
        return False
    rule = module_rule(Path(path), heavy)
    if rule.imports_heavy:
        return True
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return False
    return rule.uses_heavy(source)


@functools.cache
def _deselects(markexpr: str, marker: str) -> bool:
    """Whether ``-m markexpr`` deselects every test that carries ``marker``, whatever
    other markers it has."""
    try:  # pytest's own parser of -m (pinned in tests/requirements*.txt)
        from _pytest.mark.expression import Expression
    except ImportError:  # pragma: no cover - then every module is collected
        return False
    try:
        expr = Expression.compile(markexpr)
    except Exception:  # pytest reports a malformed -m itself
        return False
    others = sorted(set(re.findall(r"[A-Za-z_]\w*", markexpr)) - {"and", "or", "not", marker})
    for values in itertools.product((False, True), repeat=len(others)):
        marks = {marker, *(name for name, on in zip(others, values, strict=True) if on)}
        if expr.evaluate(marks.__contains__):
            return False
    return True


def deselects_heavy(config: pytest.Config) -> bool:
    """Whether this run deselects ``heavy`` tests (the quick tier does)."""
    return bool(config.option.markexpr) and _deselects(config.option.markexpr, "heavy")


def skip_module(collection_path: Path, config: pytest.Config) -> bool:
    """Whether to leave a test module unimported: one that imports a heavy consumer at
    top level, in a run that deselects ``heavy``."""
    if collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return False
    heavy = heavy_consumers(config)
    if not heavy or not deselects_heavy(config):
        return False
    return bool(module_rule(collection_path, heavy).imports_heavy)


def heavy_loaded(config: pytest.Config) -> set[str]:
    """The heavy consumers this process has imported."""
    return {name for name in heavy_consumers(config) if name in sys.modules}


def check_no_heavy_import(item: pytest.Item, before: set[str]) -> None:
    """In a run that deselects ``heavy``: fails ``item`` if it imported a heavy consumer."""
    new = heavy_loaded(item.config) - before
    if new and deselects_heavy(item.config):
        pytest.fail(
            f"{item.nodeid} imported {', '.join(sorted(new))} in a run that deselects heavy "
            "tests (the quick tier), and the rule in tests/_tiers.py did not see it: "
            "mark the test @pytest.mark.heavy",
            pytrace=False,
        )


def check_collection(config: pytest.Config) -> None:
    """In a run that deselects ``heavy``: stops it if collecting imported a heavy consumer
    (a test module importing one through a helper module, which the rule cannot see)."""
    loaded = heavy_loaded(config)
    if loaded and deselects_heavy(config):
        pytest.exit(
            f"collecting the tests imported {', '.join(sorted(loaded))} in a run that deselects "
            "heavy tests (the quick tier): a test module imports it through a helper module; "
            "import it in the test module itself, where tests/_tiers.py's rule sees it",
            returncode=1,
        )


# --------------------------------------------------------------------------------------
# The hooks (tests/conftest.py imports them)
# --------------------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        "heavy_consumers",
        "packages whose tests the heavy marker selects (tests/_tiers.py)",
        type="linelist",
        default=[],  # without pyproject.toml (the installed wheel's suite): none
    )


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    return True if skip_module(collection_path, config) else None


@pytest.hookimpl(tryfirst=True)  # before -m deselects by the markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    check_collection(config)  # every test module is imported by now
    for item in items:
        if is_heavy(item):
            item.add_marker("heavy")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    before = heavy_loaded(item.config)
    result = yield
    check_no_heavy_import(item, before)
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    before = heavy_loaded(item.config)
    result = yield
    check_no_heavy_import(item, before)
    return result
