"""``python -m godlpack init [FOLDER]``: sets up an extension's folder for the Go tools.

After it, ``go build ./...``, ``go vet ./...``, ``go test ./...`` and gopls work in the
folder with no flags and no environment, and need neither Python's headers nor libpython:
godlpack's extension API builds without them (its CPython glue, behind the build tag
``godlpack_python``, is left out), so an extension's go test checks its module
(godlpack.Check) and calls its functions (Function.Call) in plain Go. It writes:

- ``.godlpack/module/``: a copy of the installed godlpack's Go sources (the wheel's
  _go/module, or the checkout);
- ``go.work``: the folder's module, with godlpack replaced by that copy; ``go.work.sum``:
  the checksums of godlpack's own dependencies (gonum).

The build backend ignores both (it builds with GOWORK=off against the installed sources):
the folder builds with pip unchanged. Run it again after upgrading godlpack.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from godlpack_build.errors import BuildError
from godlpack_build.golibrary import GO_MODULE_PATH, go_library
from godlpack_build.goreleases import go_mod_version

# Where, in the extension's folder, the copy of godlpack's Go sources goes.
COPY_DIR = Path(".godlpack") / "module"
_COPIED_SUFFIXES = (".go", ".c", ".h", ".s", ".mod", ".sum")


def _copy_sources(src: Path, dst: Path) -> None:
    """src's Go module into dst, as it is."""
    if dst.exists():
        shutil.rmtree(dst)
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src)
        if not path.is_file() or path.suffix not in _COPIED_SUFFIXES:
            continue
        if any(part.startswith(".") or part == "testdata" for part in rel.parts):
            continue
        out = dst / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, out)


def init(folder: Path) -> list[str]:
    """Sets ``folder`` (an extension's Go module) up for the Go tools; returns the lines
    to print: what was written and the settings editors need."""
    folder = folder.resolve()
    if not (folder / "go.mod").is_file():
        raise BuildError(f"{folder} has no go.mod: run it in the extension's Go module")
    library, proxy = go_library()
    copy = folder / COPY_DIR
    _copy_sources(library, copy)
    want = max(go_mod_version(folder), go_mod_version(library))
    go_version = ".".join(map(str, want))
    (folder / "go.work").write_text(
        "// Written by python -m godlpack init: godlpack's Go sources for go build, go vet\n"
        "// and gopls (pip's build ignores this file).\n"
        f"go {go_version}\n\nuse .\n\n"
        f"replace {GO_MODULE_PATH} => ./{COPY_DIR.as_posix()}\n",
        encoding="utf-8",
    )
    sums = (
        (library / "go.sum").read_text(encoding="utf-8") if (library / "go.sum").is_file() else ""
    )
    (folder / "go.work.sum").write_text(sums, encoding="utf-8")
    lines = [
        f"wrote {folder / 'go.work'}, go.work.sum and {COPY_DIR}/ (godlpack's Go sources from "
        f"{library})",
        "go build ./..., go vet ./..., go test ./... and gopls now work in this folder with no",
        "flags and no Python headers;",
        "editors (gopls, VS Code's Go extension, GoLand) read go.work: nothing to set.",
        "Keep go.work and .godlpack/ out of version control; run this again after "
        "upgrading godlpack.",
    ]
    if proxy is not None:
        lines.append(
            f"Offline, godlpack's Go dependencies are in {proxy}: "
            f"GOPROXY={proxy.as_uri()},off go mod download"
        )
    return lines
