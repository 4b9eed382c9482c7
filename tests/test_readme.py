"""The README and the guide (docs/*.md) say what is true: their examples run and print
what they show, the files they show are the repository's as they are, and the dtype
table is what NumPy, PyTorch, JAX and TVM-FFI really exchange with godlpack (checked with
the versions of the venv running the tests, each of which the table names).

The install command of the README's Quickstart is run by tests/test_install.py; every path
the docs name is checked by tests/test_doc_paths.py.
"""

from __future__ import annotations

import builtins
import json
import re
import textwrap
from pathlib import Path

import godlpack
from conftest import run_python, unpinned_skip

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
DOCS = REPO / "docs"
needs_tvm_ffi = unpinned_skip("apache-tvm-ffi")  # a column of the table (_PROBE's child)


def _section(page: Path, title: str) -> str:
    """The `## title` section of page, up to the next `## ` heading."""
    text = page.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def _blocks(text: str) -> list[tuple[str, str]]:
    """(language, code) of every fenced block that starts at the beginning of a line."""
    return re.findall(r"^```(\w*)\n(.*?)^```$", text, re.S | re.M)


def _shown_output(code: str) -> list[str]:
    """The output of each print() of code, written as comment lines right under it."""
    expected: list[str] = []
    lines = code.splitlines()
    for i, line in enumerate(lines):
        if line.lstrip().startswith("print("):
            for out in lines[i + 1 :]:
                if not out.lstrip().startswith("# "):
                    break
                expected.append(out.lstrip()[2:])
    assert expected, "the example shows no output"
    return expected


def _runs_as_shown(code: str, **env: str) -> None:
    r = run_python(code, env_extra=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == _shown_output(code)


def _lines_of(code: str, path: Path) -> None:
    """Every line of an excerpt is a line of the file it is taken from."""
    lines = set(path.read_text().splitlines())
    missing = [line for line in code.splitlines() if line not in lines]
    assert not missing, f"not lines of {path.relative_to(REPO)}: {missing}"


def _goext(name: str) -> str:
    from goext_build import folder  # builds the extension as the other goext tests do

    return folder(name)


# --------------------------------------------------------------------------------------
# README.md: the two set-up commands and one example per audience
# --------------------------------------------------------------------------------------


def test_readme_quickstart_has_the_two_commands_and_ci_runs_the_second():
    blocks = _blocks(_section(README, "Quickstart"))
    assert blocks[0] == ("", "python3 -m pip install . numpy && python3 -m godlpack\n")
    assert ("", "bash tests/run\n") in blocks
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    assert [line for line in ci if line and not line.startswith(("#", "set ", "cd "))] == [
        "bash tests/run"
    ]


def test_readme_python_example_runs_and_prints_what_it_shows():
    ((lang, code),) = _blocks(_section(README, "For Python users"))
    assert lang == "python"
    _runs_as_shown(code, JAX_PLATFORMS="cpu")


def test_readme_extension_example_is_examples_goext():
    """The Go lines are examples/goext's, and the session prints what it shows."""
    (go_lang, go_code), (lang, code) = _blocks(_section(README, "For extension authors"))
    assert go_lang == "go" and lang == "python"
    _lines_of(go_code, REPO / "examples" / "goext" / "main.go")
    _runs_as_shown(code, PYTHONPATH=_goext("goext"))


def test_readme_embedding_example_is_examples_serve():
    """The Go lines are examples/serve's, and the build lines are test_serve.py's."""
    *go, (sh_lang, sh) = _blocks(_section(README, "For Go programs that embed Python"))
    assert go and all(lang == "go" for lang, _ in go)
    for _, code in go:
        _lines_of(code, REPO / "examples" / "serve" / "main.go")
    assert sh_lang == "" and sh.splitlines() == [
        'eval "$(python -m godlpack go-env --embed)"',
        "go build -o serve ./examples/serve",
    ]


# --------------------------------------------------------------------------------------
# The guide's examples are the repository's files, and run
# --------------------------------------------------------------------------------------


def test_extensions_guide_is_examples_goext():
    """docs/extensions.md shows examples/goext's files as they are, the two pip commands
    that tests/test_goext_build.py runs, a session that prints what it shows, its go test,
    tests/goext2's optional tensor and tests/goext_pkg's python-packages table."""
    page = DOCS / "extensions.md"
    example = REPO / "examples" / "goext"
    assert _blocks(_section(page, "A project")) == [
        ("toml", (example / "pyproject.toml").read_text()),
        ("", (example / "go.mod").read_text()),
        ("go", (example / "main.go").read_text()),
    ]
    *pip, (lang, code) = _blocks(_section(page, "Build and install"))
    assert pip == [
        ("", "python3 -m pip install --find-links DIR ./examples/goext\n"),
        ("", "python3 -m pip install --no-build-isolation ./examples/goext\n"),
    ]
    assert lang == "python"
    _runs_as_shown(code, PYTHONPATH=_goext("goext"))
    ((lang, go_test),) = _blocks(_section(page, "Testing in Go"))
    assert lang == "go" and go_test in (example / "goext_test.go").read_text()
    ((lang, go_lines),) = _blocks(_section(page, "Optional tensors"))
    assert lang == "go"
    _lines_of(go_lines, REPO / "tests" / "goext2" / "main.go")
    ((lang, toml),) = _blocks(_section(page, "Python code beside the extension"))
    pkg = (REPO / "tests" / "goext_pkg" / "pyproject.toml").read_text()
    assert lang == "toml" and pkg.endswith(toml)


def test_classes_guide_is_examples_streamstats_and_goext3():
    """docs/classes.md shows examples/streamstats's main.go as it is and a session
    printing what it shows; then tests/goext3's Node and a session freeing both kinds of
    cycle through Go."""
    page = DOCS / "classes.md"
    (go_lang, main), (lang, code) = _blocks(_section(page, "An example"))
    assert (go_lang, main) == ("go", (REPO / "examples" / "streamstats" / "main.go").read_text())
    assert lang == "python"
    _runs_as_shown(code, PYTHONPATH=_goext("streamstats"))
    (go_lang, go_lines), (lang, code) = _blocks(_section(page, "Cycles through Go"))
    assert go_lang == "go" and lang == "python"
    _lines_of(go_lines, REPO / "tests" / "goext3" / "lend.go")
    _runs_as_shown(code, PYTHONPATH=_goext("goext3"))
    (go_lang, go_lines), (lang, code) = _blocks(_section(page, "Iterators"))
    assert go_lang == "go" and lang == "python"
    _lines_of(go_lines, REPO / "examples" / "streamstats" / "histogram.go")
    _runs_as_shown(code, PYTHONPATH=_goext("streamstats"))


def test_classes_guide_says_a_cycle_through_go_is_not_collected():
    """The Classes guide says what the classes' internals page says of a Go value holding
    an *Object that refers back to its own instance, and shows the two ways out (the
    session above runs them)."""
    text = " ".join(_section(DOCS / "classes.md", "Cycles through Go").split())
    assert "a cycle the collector cannot see, and neither is ever freed" in text
    assert "a weak reference" in text and "close()" in text
    internals = " ".join((DOCS / "internals" / "classes.md").read_text().split())
    assert "a cycle through Python is not collected" in internals


def test_callbacks_guide_is_streamstats_apply_rows():
    """docs/callbacks.md's Go lines are examples/streamstats's, and its session (a callback
    per row, an exception raised again unchanged) prints what it shows."""
    blocks = _blocks((DOCS / "callbacks.md").read_text())
    *go, (lang, code) = blocks
    assert go and all(g_lang == "go" for g_lang, _ in go) and lang == "python"
    for _, lines in go:
        _lines_of(lines, REPO / "examples" / "streamstats" / "stats.go")
    _runs_as_shown(code, PYTHONPATH=_goext("streamstats"))


def test_fast_loops_shows_bench_vecbench():
    """docs/fast-loops.md's function is bench/vecbench's, line for line."""
    blocks = _blocks((DOCS / "fast-loops.md").read_text())
    assert [lang for lang, _ in blocks] == ["go"]
    main = (REPO / "bench" / "vecbench" / "main.go").read_text()
    assert blocks[0][1] in main


def test_arrays_guide_shows_examples_fromgo_whole():
    """docs/arrays-and-dlpack.md shows examples/fromgo/main.go whole, byte for byte (its
    Example test checks that it prints what the page says)."""
    prog = (REPO / "examples" / "fromgo" / "main.go").read_text()
    assert "```go\n" + prog + "```" in (DOCS / "arrays-and-dlpack.md").read_text()


def test_embedding_guide_is_examples_serve():
    """docs/embedding.md shows the go-env commands test_serve.py runs and examples/serve's
    files as they are (test_serve.py builds and runs them)."""
    page = (DOCS / "embedding.md").read_text()
    example = REPO / "examples" / "serve"
    blocks = _blocks(page)
    assert blocks[0][1].splitlines()[:2] == [
        'eval "$(python -m godlpack go-env --embed)"',
        "go build -o serve ./examples/serve",
    ]
    assert blocks[1:] == [
        ("python", (example / "model.py").read_text()),
        ("go", (example / "main.go").read_text()),
    ]


# --------------------------------------------------------------------------------------
# The dtype table
# --------------------------------------------------------------------------------------

ARRAYS = DOCS / "arrays-and-dlpack.md"

LIBS = ("NumPy", "PyTorch", "JAX", "TVM-FFI")


def _dtype_table() -> dict[tuple[str, str], str]:
    """{(dtype name, library): cell} from docs/arrays-and-dlpack.md's table."""
    rows = [line for line in _section(ARRAYS, "Dtypes").splitlines() if line.startswith("| ")]
    header = [c.strip() for c in rows[0].strip("|").split("|")]
    assert header == ["dtype", *LIBS], header
    table = {}
    for row in rows[1:]:  # the |---| line does not start with "| "
        cells = [c.strip() for c in row.strip("|").split("|")]
        for name in cells[0].split(", "):
            for lib, cell in zip(LIBS, cells[1:], strict=True):
                table[(name, lib)] = cell
    return table


# Run in a child: the x64 pass changes JAX's global configuration. For each dtype and
# library it prints what the cell should say:
#   yes     lib.from_dlpack(godlpack array) keeps the dtype, and godlpack imports the
#           result back with the same dtype
#   no      lib.from_dlpack(godlpack array) raises
#   x64     JAX: the dtype comes back 32-bit, and kept with jax_enable_x64 (second child)
#   import  JAX: the export raises, but godlpack imports JAX's own array of the dtype
_PROBE = textwrap.dedent(
    """
    import json, sys, warnings
    warnings.simplefilter("ignore")
    import jax
    if sys.argv[1] == "x64":
        jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp, ml_dtypes, numpy as np, torch, tvm_ffi
    import godlpack as g

    def name_of(x):
        dt = x.dtype
        return dt.name if hasattr(dt, "name") else str(dt).removeprefix("torch.")

    exporters = {
        "NumPy": np.from_dlpack,
        "PyTorch": torch.from_dlpack,
        "JAX": jnp.from_dlpack,
        "TVM-FFI": tvm_ffi.from_dlpack,
    }
    out = {}
    for d in g.dtypes:
        for lib, export in exporters.items():
            try:
                x = export(g.zeros(2, dtype=d.name))
            except Exception:
                cell = "no"
                if lib == "JAX":
                    try:
                        native = jnp.zeros(2, dtype=getattr(ml_dtypes, d.name))
                        if g.from_dlpack(native).dtype == d.name:
                            cell = "import"
                    except Exception:
                        pass
            else:
                back = g.from_dlpack(x).dtype.name
                same = (lib == "TVM-FFI" or name_of(x) == d.name) and back == d.name
                cell = "yes" if same else f"changed to {back}"
            out[f"{d.name}|{lib}"] = cell
    out["versions"] = {"NumPy": np.__version__, "PyTorch": torch.__version__,
                       "JAX": jax.__version__, "TVM-FFI": tvm_ffi.__version__}
    print(json.dumps(out))
    """
)


def _probe(mode: str) -> tuple[dict[tuple[str, str], str], dict[str, str]]:
    r = run_python(_PROBE.replace("sys.argv[1]", repr(mode)), timeout=300)
    assert r.returncode == 0, r.stderr
    raw = json.loads(r.stdout.splitlines()[-1])
    versions = raw.pop("versions")
    return {tuple(k.split("|")): v for k, v in raw.items()}, versions


def _expected(cell: str, lib: str, versions: dict[str, str]) -> str:
    """A cell is a value, or "value (other with Lib X.Y)" where an older pinned release
    differs: the value to expect from the installed version."""
    m = re.fullmatch(r"(\S+)(?: \((\S+) with (\S+) ([\d.]+)\))?", cell)
    assert m, f"cannot read the table cell {cell!r}"
    if m.group(2) and m.group(3) == lib and versions[lib].startswith(m.group(4) + "."):
        return m.group(2)
    return m.group(1)


@needs_tvm_ffi
def test_dtype_table_is_what_the_libraries_do():
    table = _dtype_table()
    assert {name for name, _ in table} == {d.name for d in godlpack.dtypes}
    (plain, versions), (x64, _) = _probe("plain"), _probe("x64")
    wrong = []
    for key, written in sorted(table.items()):
        cell = _expected(written, key[1], versions)
        if cell == "x64":
            ok = plain[key].startswith("changed to ") and x64[key] == "yes"
            got = f"{plain[key]}; with x64: {x64[key]}"
        else:
            ok, got = plain[key] == cell, plain[key]
        if not ok:
            wrong.append(f"{key}: the table says {written!r}, {versions[key[1]]} does {got!r}")
    assert not wrong, "\n".join(wrong)


# --------------------------------------------------------------------------------------
# Claims of the API section
# --------------------------------------------------------------------------------------


def test_star_import_does_not_shadow_builtins():
    shadowed = [n for n in godlpack.__all__ if hasattr(builtins, n)]
    assert shadowed == []
    assert godlpack.bool.name == "bool"  # still there, by its module attribute
    r = run_python("from godlpack import *\nassert bool is __builtins__.bool\nprint(float32)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "float32"


def test_api_section_names_every_array_method():
    api = _section(ARRAYS, "API")
    public = [n for n in dir(godlpack.Array) if not n.startswith("_")]
    for name in [*public, "__dlpack__", "__dlpack_device__"]:
        assert f"`{name}`" in api, f"the API section does not name Array.{name}"
