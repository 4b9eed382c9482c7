"""The target interpreter: the CPython versions godlpack supports and the facts a build
needs of the one it builds for (headers, extension suffix, version, platform)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from .errors import BuildError

# The CPython versions godlpack supports and tests (tests/run's all_versions, checked by
# tests/test_run_script.py): the wheel's classifiers, requires-python and
# `python -m godlpack info` say these. 3.10 left at its end of life (October 2026).
PY_VERSIONS = ((3, 11), (3, 12), (3, 13), (3, 14), (3, 15))
MIN_PYTHON = PY_VERSIONS[0]

_INFO_SCRIPT = """
import json, sys, sysconfig
paths = sysconfig.get_paths()
print(json.dumps({
    "executable": sys.executable,
    "implementation": sys.implementation.name,
    "version": list(sys.version_info[:2]),
    "ext_suffix": sysconfig.get_config_var("EXT_SUFFIX"),
    "include": paths["include"],
    "platinclude": paths["platinclude"],
    "platform": sysconfig.get_platform(),
    "gil_disabled": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
}))
"""


def interpreter_info(python: str | None = None) -> dict[str, Any]:
    """Facts about the target interpreter ``python`` (default: this one): headers,
    extension suffix, version, platform."""
    if python is None:
        out: list[str] = []
        exec(_INFO_SCRIPT, {"print": out.append})  # the same code a subprocess runs
        info: dict[str, Any] = json.loads(out[0])
    else:
        try:
            res = subprocess.run(
                [python, "-c", _INFO_SCRIPT], check=True, capture_output=True, text=True
            )
        except (OSError, subprocess.CalledProcessError) as e:
            raise BuildError(f"cannot query interpreter {python!r}: {e}") from e
        info = json.loads(res.stdout)
    if info["implementation"] != "cpython":
        raise BuildError(f"godlpack needs CPython, not {info['implementation']}")
    if tuple(info["version"]) < MIN_PYTHON:
        raise BuildError(
            "godlpack needs Python >= {}.{}, {} is {}.{}".format(
                *MIN_PYTHON, info["executable"], *info["version"]
            )
        )
    if not info["ext_suffix"]:
        raise BuildError(f"{info['executable']} reports no EXT_SUFFIX")
    if not (Path(info["include"]) / "Python.h").is_file():
        raise BuildError(
            f"Python.h not found in {info['include']}: install the headers of "
            f"{info['executable']} (e.g. the python3-dev package)"
        )
    return info
