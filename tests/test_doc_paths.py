"""Every repository path the docs name exists, and every link and anchor resolves.

The docs are README.md, CONTRIBUTING.md, CHANGELOG.md and docs/**/*.md. Checked:

- links (`[text](target)`, images too): the target exists, relative to the page; an
  anchor (`page.md#heading`, `#heading`) is a heading of that page (GitHub's slugs);
- paths in backticks and in the text that start at a top-level entry of the repository
  (`tests/test_x.py`, `dlpack/vec`, `examples/goext/main.go`): they exist (a `*` is a glob
  that must match); `tests/test_x.py::test_name` also names a test defined in that file;
- file names alone, in backticks or not (`wait.c`): a file of that name exists
  somewhere in the repository, unless it is another project's (ALLOWED_FOREIGN_NAMES,
  FOREIGN_PAGES).

Code blocks are not read: they are checked against the files they show by
tests/test_readme.py.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# File names in backticks that are not this repository's: the Go runtime's and
# toolchain's files the fork repair and the archsimd wrappers are checked against,
# CPython's headers, and files the build generates into a temporary overlay.
ALLOWED_FOREIGN_NAMES = frozenset(
    {
        "godlpack_pyinit_generated.go",  # generated per build, given by -overlay
        "gostat_gen.go",  # what python -m godlpack bind writes (docs/binding.md)
        "bind_report.txt",
        "slice_gen_amd64.go",  # simd/archsimd's, diffed per Go release
        "types_amd64.go",
        "ops_amd64.go",
        "shuffles_amd64.go",
        "cgocall.go",  # runtime's
        "proc.go",
        "runtime2.go",
        "netpoll_epoll.go",
        "list_manual.go",
        "lock_spinbit.go",
        "cpuflags.go",
        "preempt_amd64.s",
        "Python.h",
        "pyconfig.h",
        "_cgo_export.c",
        "_cgo_export.h",
        "libDPCTLSyclInterface.so",  # dpctl's C interface, loaded at run time
        "_optional_torch_c_dlpack.py",  # TVM-FFI's, read for docs/internals/exchange-api.md
        "tvm_ffi_python_helpers.h",
        "stdlib.h",
        "bench_abi3.py",  # the abi3 harness, reproduced in docs/decisions/no-abi3.md
    }
)

# Pages about other projects' files: their file names are not checked (their paths are).
FOREIGN_PAGES = frozenset({"docs/decisions/cgo-over-gopy-evidence.md"})

_SKIP_DIRS = {".git", "build", "dist", "node_modules", "__pycache__", ".pytest_cache"}


def _doc_pages() -> list[Path]:
    pages = [REPO / name for name in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md")]
    pages += sorted((REPO / "docs").rglob("*.md"))
    return [p for p in pages if p.is_file()]


def _file_names() -> set[str]:
    names: set[str] = set()
    for _dir, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS and not d.startswith(".venv")]
        names.update(files)
    return names


PAGES = _doc_pages()
TOP_LEVEL = {p.name for p in REPO.iterdir() if p.name not in _SKIP_DIRS}


def _prose(text: str) -> str:
    """The page without its fenced code blocks."""
    return re.sub(r"^```.*?^```$", "", text, flags=re.S | re.M)


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but - and _ dropped, spaces -."""
    text = re.sub(r"[`*]", "", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    headings = re.findall(r"^#{1,6} (.+)$", _prose(page.read_text(encoding="utf-8")), re.M)
    return {_slug(h) for h in headings}


def _rel(page: Path) -> str:
    return str(page.relative_to(REPO))


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_links_and_anchors_resolve(page):
    wrong = []
    text = re.sub(r"`[^`\n]*`", "", _prose(page.read_text(encoding="utf-8")))  # code spans
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            wrong.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            wrong.append(f"{target}: no heading #{anchor} in {dest.relative_to(REPO)}")
    assert not wrong, f"{_rel(page)}:\n" + "\n".join(wrong)


_PATH = re.compile(r"(?<![\w./-])([A-Za-z_.][\w.*<>-]*(?:/[\w.*<>-]+)+/?(?:::\w+)?)")


def _named_paths(text: str) -> set[str]:
    """Tokens of the prose (backticked or not) that start at a top-level repository entry."""
    found = set()
    for token in _PATH.findall(_prose(text)):
        token = token.rstrip(".")
        if "<" in token or ">" in token:  # a placeholder: `tests/test_<file>.py`
            continue
        if token.split("/", 1)[0] in TOP_LEVEL:
            found.add(token)
    return found


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_named_repository_paths_exist(page):
    wrong = []
    for token in sorted(_named_paths(page.read_text(encoding="utf-8"))):
        path, _, test = token.partition("::")
        path = path.rstrip("/")
        if "*" in path:
            if not list(REPO.glob(path)):
                wrong.append(f"{token}: matches no file")
            continue
        if not (REPO / path).exists():
            wrong.append(f"{token}: no such path")
        elif test and not re.search(
            rf"^\s*(?:async )?def {test}\b", (REPO / path).read_text(), re.M
        ):
            wrong.append(f"{token}: no test {test} in {path}")
    assert not wrong, f"{_rel(page)}:\n" + "\n".join(wrong)


# A file name of a kind the repository holds, alone (not the tail of a path or a glob,
# not a domain such as pkg.go.dev).
_FILE_NAME = re.compile(
    r"(?<![\w./<*-])([\w-]+(?:\.[\w-]+)*\.(?:go|c|h|py|pyi|sh|toml|json|gz|png))(?![\w/]|\.\w)"
)


def _named_file_names(text: str) -> set[str]:
    return set(_FILE_NAME.findall(_prose(text)))


@pytest.mark.parametrize("page", [p for p in PAGES if _rel(p) not in FOREIGN_PAGES], ids=_rel)
def test_named_file_names_exist(page):
    names = _file_names()
    named = _named_file_names(page.read_text(encoding="utf-8"))
    wrong = sorted(n for n in named if n not in names and n not in ALLOWED_FOREIGN_NAMES)
    assert not wrong, f"{_rel(page)} names files that do not exist: {wrong}"


def test_the_path_rules_find_what_they_should():
    """The extraction itself: paths in text and backticks, with and without a test name,
    and not words with a slash that are no paths."""
    text = (
        "See tests/test_readme.py::test_fast_loops_shows_bench_vecbench and `dlpack/vec`,\n"
        "[x](docs/performance.md), read/write access, go1.26/1.27, tests/test_<file>.py.\n"
        "```\ntests/in_a_code_block.py\n```\n"
    )
    assert _named_paths(text) == {
        "tests/test_readme.py::test_fast_loops_shows_bench_vecbench",
        "dlpack/vec",
        "docs/performance.md",
    }
    assert _named_file_names("wait.c, `ext.h`; pkg.go.dev, dlpack/vec/doc.go, *_test.go.") == {
        "wait.c",
        "ext.h",
    }
    assert _slug("Any signature: `godlpack.Func`") == "any-signature-godlpackfunc"
    assert _slug("DLPack from Go (dlpack/tensor)") == "dlpack-from-go-dlpacktensor"
