"""A user's project: pyproject.toml's [project] metadata and [tool.godlpack] settings,
checked when read (a BuildError names the key and what is wrong), and the project's
files that go into its sdist and wheel."""

from __future__ import annotations

import re
import shutil
import tomllib
from pathlib import Path
from typing import Any

from .errors import BuildError
from .golibrary import godlpack_version
from .toolchain import UNSUPPORTED_GO
from .wheel import BINARY_SUFFIXES, core_metadata

# The distribution every extension requires: the godlpack it was built against.
GODLPACK = "godlpack"
_NAME_RE = re.compile(r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$", re.I)
_EXPERIMENT_RE = re.compile(r"^[a-z0-9]+$")  # a GOEXPERIMENT name, "no" prefix included
_MODULE_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
# The setting that chooses what a build does with an unsupported Go, as messages name it.
UNSUPPORTED_GO_KEY = "[tool.godlpack] unsupported-go"
# Files of a project never put into its sdist.
SDIST_SKIP_DIRS = {"build", "dist", "__pycache__"}
# python -m godlpack init's files, which point into this machine's .godlpack/ (hidden,
# so skipped too): the build ignores them (GOWORK=off).
SDIST_SKIP_FILES = {"go.work", "go.work.sum"}


def new_pyproject(name: str, description: str, header: str) -> str:
    """The pyproject.toml of a project that godlpack writes (python -m godlpack init,
    python -m godlpack bind): header's comment lines, then a build through godlpack's
    backend of the godlpack this is, into the extension module name."""
    version = godlpack_version()
    return f"""{header}[build-system]
requires = ["{GODLPACK}=={version}"]
build-backend = "godlpack.build"

[project]
name = "{name}"
version = "0.1.0"
description = "{description}"
requires-python = ">=3.11"
dependencies = ["{GODLPACK}=={version}"]

[tool.godlpack]
module = "{name}" # the name godlpack.Module gives it
"""


def _load_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, ValueError) as e:
        raise BuildError(f"cannot read {path}: {e}") from e


class Project:
    """A user's project: its folder, [project] metadata and [tool.godlpack] settings."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        data = _load_toml(self.root / "pyproject.toml")
        meta = data.get("project")
        if not isinstance(meta, dict):
            raise BuildError(f"{self.root / 'pyproject.toml'} has no [project] table")
        dynamic = meta.get("dynamic") or []
        if dynamic:
            raise BuildError(
                f"[project] dynamic = {dynamic}: godlpack.build reads no dynamic fields"
            )
        for key in ("name", "version"):
            if not isinstance(meta.get(key), str):
                raise BuildError(f"[project] needs {key} = '...'")
        if not _NAME_RE.match(meta["name"]):
            raise BuildError(f"[project] name = {meta['name']!r} is not a valid project name")
        self.meta: dict[str, Any] = meta
        self.name: str = meta["name"]
        self.version: str = meta["version"]
        tool = data.get("tool", {}).get("godlpack", {})
        self.module: str = tool.get("module", re.sub(r"[-.]+", "_", self.name))
        if not isinstance(self.module, str) or not _MODULE_RE.match(self.module):
            raise BuildError(f"[tool.godlpack] module = {self.module!r} is not a module name")
        package = tool.get("package", ".")
        if not isinstance(package, str) or not (self.root / package).is_dir():
            raise BuildError(f"[tool.godlpack] package = {package!r} is not a folder")
        self.package = (self.root / package).resolve()
        if not (self.root / "go.mod").is_file():
            raise BuildError(f"{self.root} has no go.mod: a godlpack project is a Go module")
        self.python_packages = _python_packages(self.root, tool.get("python-packages", []))
        if self.module in {p.name for p in self.python_packages}:
            raise BuildError(
                f"[tool.godlpack] module = {self.module!r} is also a package of python-packages, "
                f"which would hide it: build it inside, as module = '{self.module}._{self.module}'"
            )

        # None (no key): the default, GOEXPERIMENT=simd where the toolchain has it
        # (cgo.default_goexperiment); a list, even [], is exactly those.
        self.goexperiment: list[str] | None = tool.get("goexperiment")
        exps = self.goexperiment
        if exps is not None and (
            not isinstance(exps, list)
            or not all(isinstance(e, str) and _EXPERIMENT_RE.match(e) for e in exps)
        ):
            raise BuildError(
                f"[tool.godlpack] goexperiment = {self.goexperiment!r} is not a list of"
                ' Go experiment names (such as ["simd"])'
            )
        # The runtime patch (runtime_patches.runtime_patch: Python threads calling Go in parallel
        # share no lock); false links the toolchain's runtime as it is.
        self.patch_go_runtime = tool.get("patch-go-runtime", True)
        if not isinstance(self.patch_go_runtime, bool):
            raise BuildError(
                f"[tool.godlpack] patch-go-runtime = {self.patch_go_runtime!r} is not true or false"
            )
        # A Go release the build has no patches and kernels for (UNSUPPORTED_GO).
        self.unsupported_go = tool.get("unsupported-go", UNSUPPORTED_GO[0])
        if self.unsupported_go not in UNSUPPORTED_GO:
            raise BuildError(
                f"{UNSUPPORTED_GO_KEY} = {self.unsupported_go!r} is not one of "
                + " or ".join(f'"{c}"' for c in UNSUPPORTED_GO)
            )
        # Go packages bound with no glue at build time (bind.generate): import paths.
        self.bind: list[str] = tool.get("bind", [])
        if not isinstance(self.bind, list) or not all(
            isinstance(b, str) and re.fullmatch(r"[\w.~-]+(/[\w.~-]+)*", b) for b in self.bind
        ):
            raise BuildError(
                f"[tool.godlpack] bind = {self.bind!r} is not a list of Go import paths"
                ' (such as ["gonum.org/v1/gonum/stat"])'
            )
        unknown = set(tool) - {
            "bind",
            "module",
            "package",
            "python-packages",
            "goexperiment",
            "patch-go-runtime",
            "unsupported-go",
        }
        if unknown:
            raise BuildError(f"[tool.godlpack] has unknown keys: {', '.join(sorted(unknown))}")

    @property
    def dist_name(self) -> str:
        """The name in file names (wheel, sdist, .dist-info): normalized, - as _."""
        return re.sub(r"[-_.]+", "_", self.name).lower()

    @property
    def dist_info(self) -> str:
        """The name of its wheel's .dist-info folder."""
        return f"{self.dist_name}-{self.version}.dist-info"

    def core_metadata(self) -> bytes:
        m = self.meta
        fields: list[tuple[str, str]] = [
            ("Metadata-Version", "2.4"),
            ("Name", self.name),
            ("Version", self.version),
        ]
        if isinstance(m.get("description"), str):
            fields.append(("Summary", m["description"]))
        if isinstance(m.get("requires-python"), str):
            fields.append(("Requires-Python", m["requires-python"]))
        lic = m.get("license")
        if isinstance(lic, str):
            fields.append(("License-Expression", lic))
        elif isinstance(lic, dict) and isinstance(lic.get("text"), str):
            fields.append(("License", lic["text"]))
        for key, field in (("authors", "Author-email"), ("maintainers", "Maintainer-email")):
            people = [
                f"{p['name']} <{p['email']}>" if "name" in p else p["email"]
                for p in m.get(key, [])
                if "email" in p
            ]
            if people:
                fields.append((field, ", ".join(people)))
        if m.get("keywords"):
            fields.append(("Keywords", ",".join(m["keywords"])))
        fields += [("Classifier", c) for c in m.get("classifiers", [])]
        fields += [("Project-URL", f"{k}, {v}") for k, v in m.get("urls", {}).items()]
        # The extension runs with the godlpack it was built against (its C API checks the
        # version at import): that one is required, whatever [project] says of godlpack.
        deps = [d for d in m.get("dependencies", []) if _req_name(d) != GODLPACK]
        fields += [("Requires-Dist", d) for d in [f"{GODLPACK}=={godlpack_version()}", *deps]]
        for extra, reqs in m.get("optional-dependencies", {}).items():
            fields.append(("Provides-Extra", extra))
            fields += [("Requires-Dist", _with_extra(r, extra)) for r in reqs]
        description = None
        readme = m.get("readme")
        if isinstance(readme, str):
            path = self.root / readme
            kind = "text/markdown" if path.suffix.lower() in (".md", ".markdown") else "text/plain"
            fields.append(("Description-Content-Type", kind))
            description = path.read_text(encoding="utf-8")
        return core_metadata(fields, description)

    def sdist_files(self) -> list[Path]:
        files = []
        for p in sorted(self.root.rglob("*")):
            rel = p.relative_to(self.root)
            if p.is_file() and not p.is_symlink() and not _skipped(rel):
                files.append(rel)
        return files


def _python_packages(root: Path, value: Any) -> list[Path]:
    """The folders of [tool.godlpack] python-packages, checked: each a folder of the
    project whose name is a Python identifier (the package's import name)."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BuildError(f"[tool.godlpack] python-packages = {value!r} is not a list of folders")
    folders = []
    for v in value:
        path = (root / v).resolve()
        if not path.is_dir() or not path.is_relative_to(root):
            raise BuildError(
                f"[tool.godlpack] python-packages: {v!r} is not a folder of the project"
            )
        if not path.name.isidentifier():
            raise BuildError(
                f"[tool.godlpack] python-packages: {path.name!r} is not a package name"
            )
        folders.append(path)
    if len({p.name for p in folders}) != len(folders):
        raise BuildError("[tool.godlpack] python-packages: two folders of the same name")
    return folders


def copy_python_packages(project: Project, staging: Path) -> None:
    """Copies the project's python-packages into the wheel's staging folder, as
    sdist_files chooses files (no caches, hidden files or built binaries)."""
    for pkg in project.python_packages:
        for p in sorted(pkg.rglob("*")):
            rel = p.relative_to(pkg)
            if p.is_file() and not p.is_symlink() and not _skipped(rel):
                dst = staging / pkg.name / rel
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(p, dst)


def _skipped(rel: Path) -> bool:
    """Whether a project file stays out of its sdist and wheel."""
    return any(part.startswith(".") or part in SDIST_SKIP_DIRS for part in rel.parts) or (
        rel.name.endswith((".pyc", *BINARY_SUFFIXES)) or rel.name in SDIST_SKIP_FILES
    )


def _req_name(requirement: str) -> str:
    m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return re.sub(r"[-_.]+", "-", m.group(1)).lower() if m else ""


def _with_extra(requirement: str, extra: str) -> str:
    marker = f'extra == "{extra}"'
    if ";" in requirement:
        req, _, cond = requirement.partition(";")
        return f"{req.strip()}; ({cond.strip()}) and {marker}"
    return f"{requirement}; {marker}"
