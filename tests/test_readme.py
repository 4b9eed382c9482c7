"""README.md says what is true: its example runs and prints what it shows, and its dtype
table is what NumPy, PyTorch, JAX and TVM-FFI really exchange with godlpack (checked
with the versions of the venv running the tests, each of which the table names).

The install command of the Quickstart is run by tests/test_install.py.
"""

from __future__ import annotations

import builtins
import json
import re
import textwrap
from pathlib import Path

import godlpack
from conftest import run_python, unpinned_skip

README = Path(__file__).resolve().parent.parent / "README.md"
needs_tvm_ffi = unpinned_skip("apache-tvm-ffi")  # a column of the table (_PROBE's child)


def _section(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def _code_blocks(section: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", section, re.S)


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


def test_example_runs_and_prints_what_it_shows():
    (code,) = _code_blocks(_section("Example"), "python")
    r = run_python(code, env_extra={"JAX_PLATFORMS": "cpu"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == _shown_output(code)


def test_write_your_own_go_functions_is_examples_goext():
    """The section shows examples/goext's files as they are, the two pip commands that
    tests/test_goext_build.py runs, and a session that prints what it shows."""
    section = _section("Write your own Go functions")
    example = README.parent / "examples" / "goext"
    blocks = re.findall(r"^```(\w*)\n(.*?)^```$", section, re.S | re.M)
    assert blocks[:3] == [
        ("toml", (example / "pyproject.toml").read_text()),
        ("", (example / "go.mod").read_text()),
        ("go", (example / "main.go").read_text()),
    ]
    assert blocks[3:5] == [
        ("", "python3 -m pip install --find-links DIR ./examples/goext\n"),
        ("", "python3 -m pip install --no-build-isolation ./examples/goext\n"),
    ]
    # the workflow's go test (a list item's block, indented): goext_test.go's, verbatim
    go_test = re.search(r"^   ```go\n(.*?)^   ```$", section, re.S | re.M)
    assert go_test, "the workflow shows no go test"
    excerpt = "".join(line[3:] if line.strip() else line for line in go_test[1].splitlines(True))
    assert excerpt in (example / "goext_test.go").read_text()
    (lang, code), *rest = blocks[5:]
    assert lang == "python"
    from goext_build import folder  # builds goext as the other goext tests do

    r = run_python(code, env_extra={"PYTHONPATH": folder("goext")})
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == _shown_output(code)
    # the optional tensor's lines are tests/goext2's, the python-packages table is
    # tests/goext_pkg's (both built and run by the goext tests)
    # shell lines of the workflow steps aside, the blocks are go, toml, then the classes
    rest = [b for b in rest if b[0] in ("go", "toml", "python")]
    (go_lang, go_lines), (toml_lang, toml), *classes = rest
    goext2 = (README.parent / "tests" / "goext2" / "main.go").read_text().splitlines()
    assert go_lang == "go" and all(line in goext2 for line in go_lines.splitlines())
    pkg = (README.parent / "tests" / "goext_pkg" / "pyproject.toml").read_text()
    assert toml_lang == "toml" and pkg.endswith(toml)
    # Classes: examples/streamstats's main.go as it is, and a session printing what it shows
    streamstats = README.parent / "examples" / "streamstats"
    assert classes[0] == ("go", (streamstats / "main.go").read_text())
    lang, code = classes[1]
    assert lang == "python" and len(classes) == 4
    r = run_python(code, env_extra={"PYTHONPATH": folder("streamstats")})
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == _shown_output(code)
    # Cycles through Go: tests/goext3's Node, and a session freeing both kinds of cycle
    (go_lang, go_lines), (lang, code) = classes[2:]
    lend = (README.parent / "tests" / "goext3" / "lend.go").read_text().splitlines()
    assert go_lang == "go" and all(line in lend for line in go_lines.splitlines())
    r = run_python(code, env_extra={"PYTHONPATH": folder("goext3")})
    assert lang == "python" and r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == _shown_output(code)


def test_classes_guide_says_a_cycle_through_go_is_not_collected():
    """README's Classes guide says what docs/design.md says of a Go value holding an
    *Object that refers back to its own instance, and shows the two ways out (the
    session above runs them)."""
    classes = README.read_text().split("### Classes", 1)[1].split("\n## ", 1)[0]
    text = " ".join(classes.split())
    assert "a cycle the collector cannot see, and neither is ever freed" in text
    assert "a weak reference" in text and "close()" in text
    design = " ".join((README.parent / "docs" / "design.md").read_text().split())
    assert "a cycle through Python is not collected" in design


def test_fast_loops_shows_bench_vecbench():
    """The vec section's function is bench/vecbench's, line for line."""
    section = _section("Fast loops: package vec")
    blocks = re.findall(r"^```(\w*)\n(.*?)^```$", section, re.S | re.M)
    assert [lang for lang, _ in blocks] == ["go"]
    main = (README.parent / "bench" / "vecbench" / "main.go").read_text()
    assert blocks[0][1] in main


# --------------------------------------------------------------------------------------
# The dtype table
# --------------------------------------------------------------------------------------

LIBS = ("NumPy", "PyTorch", "JAX", "TVM-FFI")


def _dtype_table() -> dict[tuple[str, str], str]:
    """{(dtype name, library): cell} from the README's table."""
    rows = [line for line in _section("API").splitlines() if line.startswith("| ")]
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
            wrong.append(f"{key}: README says {written!r}, {versions[key[1]]} does {got!r}")
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
    api = _section("API")
    public = [n for n in dir(godlpack.Array) if not n.startswith("_")]
    for name in [*public, "__dlpack__", "__dlpack_device__"]:
        assert f"`{name}`" in api, f"README's API section does not name Array.{name}"


def test_from_go_to_python_is_examples_serve():
    """The section shows the go-env commands test_serve.py runs and examples/serve's
    files as they are (test_serve.py builds and runs them)."""
    section = _section("From Go to Python")
    example = README.parent / "examples" / "serve"
    blocks = re.findall(r"^```(\w*)\n(.*?)^```$", section, re.S | re.M)
    assert blocks[0][1].splitlines()[:2] == [
        'eval "$(python -m godlpack go-env --embed)"',
        "go build -o serve ./examples/serve",
    ]
    assert blocks[1:] == [
        ("python", (example / "model.py").read_text()),
        ("go", (example / "main.go").read_text()),
    ]
