"""``python -m godlpack init NAME`` in a new or empty folder: a complete extension project,
as ``cargo new`` and ``maturin new`` write one. Its files build with ``pip install .`` and
its Go and Python tests pass as written; then _goinit sets the folder up for the Go tools
(go.work), so ``go vet ./...`` and ``go test ./...`` work in it at once. A folder with a
go.mod is an existing project: __main__ hands it to _goinit alone.
"""

from __future__ import annotations

import re
from pathlib import Path

from godlpack_build.errors import BuildError
from godlpack_build.golibrary import GO_MODULE_PATH, godlpack_version
from godlpack_build.project import new_pyproject

# The Go module path of a new project NAME when --module does not set one.
DEFAULT_MODULE_PATH = "example.com/{name}"

_GO_MOD = """module {module_path}

go 1.26

require {godlpack} v{version}
"""


_MAIN_GO = """// Command {name} is a Python extension module written in Go with godlpack: pip
// builds it (pyproject.toml) into the module {name}, with a function (add) and a
// class (Counter).
package main

import (
	"sync"

	"github.com/godlpack/godlpack"
)

func init() {{
	c := godlpack.Class[Counter]("Counter", "A running total of float values.")
	c.Init(newCounter, "start").Default("start", 0.0)
	c.Def("add", (*Counter).Add, "x").Doc("Adds x to the total; returns the new total.")
	c.Property("total", "The total so far (read-only).", (*Counter).Total, nil)

	godlpack.Module("{name}", "A Python extension module written in Go with godlpack.",
		godlpack.Func("add", add, "a", "b").Doc("a + b."),
		c,
	)
}}

// A c-shared library needs a main function; it never runs.
func main() {{}}

func add(a, b float64) float64 {{
	return a + b
}}

// Counter is bound as the Python class Counter. Python threads may call its
// methods at once (the GIL is released while Go runs): mu guards total.
type Counter struct {{
	mu    sync.Mutex
	total float64
}}

func newCounter(start float64) *Counter {{
	return &Counter{{total: start}}
}}

func (c *Counter) Add(x float64) float64 {{
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += x
	return c.total
}}

func (c *Counter) Total() float64 {{
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}}
"""

_MAIN_TEST_GO = """package main

// go test runs {name}'s functions without Python: Check finds the binding mistakes
// import would, and Function.Call calls a function as Python would (godlpack.Kw
// holds keyword arguments).

import (
	"testing"

	"github.com/godlpack/godlpack"
)

func TestModule(t *testing.T) {{
	if err := godlpack.Check("{name}"); err != nil {{
		t.Fatal(err)
	}}
}}

func TestAdd(t *testing.T) {{
	got, err := godlpack.Lookup("{name}", "add").Call(1.5, godlpack.Kw{{"b": 2.0}})
	if err != nil {{
		t.Fatal(err)
	}}
	if got != 3.5 {{
		t.Errorf("add(1.5, b=2.0) = %v, want 3.5", got)
	}}
}}

func TestCounter(t *testing.T) {{
	c, err := godlpack.Lookup("{name}", "Counter").Call(godlpack.Kw{{"start": 1.0}})
	if err != nil {{
		t.Fatal(err)
	}}
	got, err := godlpack.Lookup("{name}", "Counter.add").Call(c, 2.0)
	if err != nil {{
		t.Fatal(err)
	}}
	if got != 3.0 {{
		t.Errorf("Counter(start=1.0).add(2.0) = %v, want 3.0", got)
	}}
}}
"""

_TEST_PY = """import {name}


def test_add():
    assert {name}.add(1.5, b=2.0) == 3.5


def test_counter():
    c = {name}.Counter(start=1.0)
    assert c.add(2.0) == 3.0
    assert c.total == 3.0
"""

_README = """# {name}

A Python extension module written in Go with godlpack.

Build and install it: `pip install .`; test it: `go vet ./... && go test ./...` (the Go
side, no Python needed) and `python -m pytest tests` (after `pip install .`).
Run `python -m godlpack init` here again after upgrading godlpack (it refreshes go.work).
"""

# What python -m godlpack init writes for the Go tools: per machine, not the project's.
_GITIGNORE = "go.work\ngo.work.sum\n.godlpack/\n"


def new_project(folder: Path, module_path: str | None = None) -> list[str]:
    """Writes a new project into ``folder`` (created if missing; else it must be empty),
    named after it; returns the lines to print."""
    folder = folder.resolve()
    name = folder.name
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise BuildError(
            f"{name!r} is not a Python module name: name the new project's folder with letters, "
            "digits and _ (python -m godlpack init my_ext)"
        )
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise BuildError(
            f"{folder} is not empty and has no go.mod: init writes a new project only into a new "
            "or empty folder (python -m godlpack init NEW_NAME), and sets an existing project up "
            "for the Go tools only where its go.mod is"
        )
    folder.mkdir(parents=True, exist_ok=True)
    version = godlpack_version()
    fields = {
        "name": name,
        "module_path": module_path or DEFAULT_MODULE_PATH.format(name=name),
        "godlpack": GO_MODULE_PATH,
        "version": version,
    }
    files = {
        "go.mod": _GO_MOD,
        "main.go": _MAIN_GO,
        "main_test.go": _MAIN_TEST_GO,
        f"tests/test_{name}.py": _TEST_PY,
        "README.md": _README,
        ".gitignore": _GITIGNORE,
    }
    texts = {rel: template.format(**fields) for rel, template in files.items()}
    texts["pyproject.toml"] = new_pyproject(
        name,
        "A Python extension module written in Go with godlpack",
        f"# pip builds this folder (go.mod, the Go files of one main package) into the\n"
        f"# extension module {name} through godlpack's build backend: `pip install .`\n",
    )
    for rel, text in texts.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return [f"wrote the project {name} in {folder}: {', '.join(files)}"]
