"""The build side of an editable install (PEP 660) of a user's extension: what goes into
the editable wheel. The extension is built once, into the project's
build/godlpack-editable/ (editable_hook.GoExtensionFinder, which rebuilds it at import
when its Go sources change); the wheel holds a copy of editable_hook.py with the
project's settings, a .pth that imports it, and the stub of that first build."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import editable_hook
from .errors import BuildError
from .project import Project
from .stubs import write_stubs


def stage_editable(project: Project, staging: Path) -> Path:
    """Builds ``project``'s extension where its editable install imports it from and
    writes the editable wheel's files (the hook, its .pth, the stub) into ``staging``;
    returns the built extension."""
    config: dict[str, Any] = {
        "root": str(project.root),
        "module": project.module,
        "packages": {p.name: str(p) for p in project.python_packages},
    }
    finder = editable_hook.GoExtensionFinder(config)
    try:
        finder.ensure_built()
    except ImportError as e:
        raise BuildError(str(e)) from None
    ext = Path(finder.library)
    if not project.python_packages:  # a package's own stubs are in its folder
        write_stubs(ext, project.module, staging)
        if "." not in project.module:  # <module>-stubs/, beside the hook: rewritten
            config["stub_root"] = "<site>"  # by each rebuild (resolved at install)
    write_hook(config, project.dist_name, staging)
    return ext


def write_hook(config: dict[str, Any], dist_name: str, site: Path) -> str:
    """Writes the import hook of an editable install (a copy of editable_hook.py that
    installs its finder with ``config``) and the .pth that imports it into ``site``;
    returns the hook's module name."""
    hook = f"_godlpack_editable_{dist_name}"
    source = Path(editable_hook.__file__).read_text(encoding="utf-8")
    settings = repr(config).replace("'<site>'", "os.path.dirname(__file__)")
    (site / f"{hook}.py").write_text(f"{source}\n\ninstall({settings})\n", "utf-8")
    (site / f"{hook}.pth").write_text(f"import {hook}\n", encoding="utf-8")
    return hook
