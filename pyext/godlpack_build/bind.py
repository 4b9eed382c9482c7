"""Binding Go packages with no glue: godlpack-bind (the Go program cmd/godlpack-bind of
the godlpack Go module the wheel carries, run with ``go run``) reads each package's
exported API with go/types and writes the godlpack registration code of a module
(docs/binding.md). Two callers:

- ``python -m godlpack bind IMPORT_PATH --name MODULE -o DIR`` (write_project): a
  complete project in DIR, its registration in ``MODULE_gen.go``;
- the build backend, for ``[tool.godlpack] bind = [...]`` (generate, at build time): the
  registration added to the project's main package by go build -overlay, nothing written
  into the project.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from .errors import BuildError
from .extension import _goproxy, _modfile, want_go
from .golibrary import GO_MODULE_PATH, go_library, godlpack_version
from .project import new_pyproject
from .toolchain import require_go

# The generator's package in the godlpack Go module.
GENERATOR = GO_MODULE_PATH + "/cmd/godlpack-bind"
# The report the CLI writes beside the project's files.
REPORT_FILE = "bind_report.txt"


def _go_env(
    go_env: dict[str, str], modfile: Path, proxy: Path | None, root: Path
) -> dict[str, str]:
    env = {**os.environ, **go_env, **_goproxy(proxy, want_go(root))}
    env["GOWORK"] = "off"  # a go.work of python -m godlpack init's would win over -modfile
    env["GOFLAGS"] = f"-modfile={modfile} -mod=mod"  # for go run and the go list go/build runs
    return env


def generate(
    module_root: Path,
    package: Path,
    module: str,
    import_paths: list[str],
    out_file: Path,
    *,
    with_main: bool,
    strict: bool = False,
    command: str = "",
    report_file: Path | None = None,
) -> str:
    """Runs godlpack-bind in the main package ``package`` of the Go module at
    ``module_root`` (its go.mod requires the packages' modules): the registration of
    ``import_paths`` as module ``module`` into ``out_file``, godlpack.Module and main
    with ``with_main``, else godlpack.Extend of the package's own module. Returns the
    report (also written to ``report_file``). A skip with ``strict``, or a failure, is
    a BuildError carrying go's message."""
    library, proxy = go_library()
    go, go_env = require_go(want_go(module_root))
    with tempfile.TemporaryDirectory(prefix="godlpack-bind-") as tmp:
        modfile = _modfile(module_root, library, Path(tmp))
        report = report_file or Path(tmp) / REPORT_FILE
        cmd = [go, "run", GENERATOR, "-module", module.rpartition(".")[2], "-o", str(out_file)]
        cmd += ["-report", str(report), "-command", command or "godlpack build backend"]
        cmd += ["-main"] * with_main + ["-strict"] * strict + ["--", *import_paths]
        res = subprocess.run(
            cmd,
            cwd=package,
            env=_go_env(go_env, modfile, proxy, module_root),
            capture_output=True,
            text=True,
        )
        text = report.read_text(encoding="utf-8") if report.is_file() else ""
        if res.returncode != 0:
            raise BuildError(
                f"godlpack-bind {' '.join(import_paths)} failed: {res.stderr.strip()}"
                + (f"\n{text}" if text and strict else "")
            )
        return text


def _required_version(library: Path, import_path: str) -> str | None:
    """The module path and version godlpack's own go.mod pins for import_path
    ("gonum.org/v1/gonum@v0.17.0"), or None."""
    text = (library / "go.mod").read_text(encoding="utf-8")
    best = None
    for mod, ver in re.findall(r"^\s*(?:require\s+)?([\w./-]+\.[\w./-]+)\s+(v\S+)", text, re.M):
        if (import_path == mod or import_path.startswith(mod + "/")) and (
            best is None or len(mod) > len(best[0])
        ):
            best = (mod, ver)
    return f"{best[0]}@{best[1]}" if best else None


def write_project(
    import_paths: list[str], name: str, out: Path, *, strict: bool = False, command: str = ""
) -> str:
    """Writes the project binding import_paths as module ``name`` into ``out``: go.mod
    (the packages' modules required at the versions godlpack pins, else the versions go
    get resolves), go.sum, pyproject.toml, ``<name>_gen.go`` and bind_report.txt.
    Returns the report."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise BuildError(f"--name {name!r} is not a Python module name")
    out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    library, proxy = go_library()
    go_mod = out / "go.mod"
    go_mod.write_text(
        f"module {name}\n\ngo 1.26\n\nrequire {GO_MODULE_PATH} v{godlpack_version()}\n",
        encoding="utf-8",
    )
    (out / "go.sum").write_text("", encoding="utf-8")
    go, go_env = require_go(want_go(out))
    with tempfile.TemporaryDirectory(prefix="godlpack-bind-") as tmp:
        modfile = _modfile(out, library, Path(tmp))
        wanted = [_required_version(library, p) or p for p in import_paths]
        res = subprocess.run(
            [go, "get", *wanted],
            cwd=out,
            env=_go_env(go_env, modfile, proxy, out),
            capture_output=True,
            text=True,
        )
        if res.returncode != 0:
            raise BuildError(f"go get {' '.join(wanted)} failed: {res.stderr.strip()}")
        # The project's go.mod: what go get required (the generated file imports the
        # packages: direct requirements), without the build's replace.
        lines = modfile.read_text(encoding="utf-8").splitlines()
        go_mod.write_text(
            "\n".join(
                ln.replace(" // indirect", "") for ln in lines if not ln.startswith("replace ")
            ).rstrip()
            + "\n",
            encoding="utf-8",
        )
        (out / "go.sum").write_text(
            (Path(tmp) / "go.sum").read_text(encoding="utf-8"), encoding="utf-8"
        )
    (out / "pyproject.toml").write_text(
        new_pyproject(
            name,
            f"{', '.join(import_paths)}, bound with godlpack",
            f"# Written by {command or 'python -m godlpack bind'}: pip builds this folder into\n"
            f"# the module {name}, the Go packages {', '.join(import_paths)} bound by "
            f"{name}_gen.go.\n",
        ),
        encoding="utf-8",
    )
    return generate(
        out,
        out,
        name,
        import_paths,
        out / f"{name}_gen.go",
        with_main=True,
        strict=strict,
        command=command,
        report_file=out / REPORT_FILE,
    )


def cli_command(argv: list[str]) -> str:
    """The command line the generated file's header names."""
    return shlex.join([Path(sys.executable).name, "-m", "godlpack", *argv])
