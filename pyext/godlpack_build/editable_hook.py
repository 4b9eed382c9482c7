"""The import hook of an editable install (PEP 660) of an extension written in Go.

``pip install -e ./project`` asks godlpack.build's build_editable (editable.py) for a
wheel holding a copy of this file (``_godlpack_editable_<dist>.py``, with a call to
install() and the project's settings appended) and a .pth file that imports it at
interpreter start. The hook, first on sys.meta_path, answers for the extension module
and the project's Python packages:

- a package of ``[tool.godlpack] python-packages`` is imported from the project's folder;
- the extension module is imported from ``<project>/build/godlpack-editable/<tag>/``,
  rebuilt first when the Go sources (``*.go``, ``*.c``, ``*.h``, ``*.s``, go.mod, go.sum,
  pyproject.toml: their names, sizes and times) or the godlpack it is built against
  changed since the last build: one line on stderr while ``go build`` runs; a failed
  build raises ImportError with go's messages; the installed stub (a top-level
  module's ``<module>-stubs``) is rewritten from the new signatures. The build runs in
  a subprocess of this interpreter (godlpack_build.extension.build_extension), under a
  file lock, so that interpreters starting together build once; a running process
  keeps the old library (the new one replaces it by rename).

Standard library only. The .pth imports this file at every interpreter start, so its top
level imports nothing but sys and os (which site has already imported) and the finder is a
plain object (no importlib.abc base): importlib, hashlib, subprocess, sysconfig... are
imported by the finder's methods once the extension module or a project package is
imported, so that a program that never imports them pays one small module's import at
start (tests/test_goext_build.py::test_editable_install_imports_nothing_at_start;
bench/bench_editable_start.py: ~0.6 ms). No
``from __future__ import annotations`` either (that statement imports __future__): the
annotations that name typing's or importlib's classes are strings.
"""

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # names for the annotations only (nothing imported at run time)
    import importlib.machinery
    from collections.abc import Sequence
    from types import ModuleType
    from typing import Any

# The files whose change makes the extension stale.
SOURCE_SUFFIXES = (".go", ".c", ".h", ".s")
SOURCE_NAMES = ("go.mod", "go.sum", "pyproject.toml")
# Folders of the project never walked: the builds, caches and hidden folders.
SKIP_DIRS = ("build", "dist", "__pycache__", "node_modules")

_BUILD_SCRIPT = """
import sys
from pathlib import Path
from godlpack_build.errors import BuildError
from godlpack_build.extension import build_extension
from godlpack_build.project import Project
from godlpack_build.stubs import write_stubs
try:
    ext = build_extension(Path(sys.argv[1]), Path(sys.argv[2]))
    if sys.argv[3]:  # the installed stub, rewritten from the new signatures
        write_stubs(ext, Project(Path(sys.argv[1])).module, Path(sys.argv[3]), keep=False)
except BuildError as e:
    print(f"godlpack: error: {e}", file=sys.stderr)
    sys.exit(1)
"""


def _fingerprint(root: str) -> str:
    """The sources' names, sizes and modification times, and godlpack's version."""
    import hashlib

    h = hashlib.sha256()
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS)
        for name in sorted(files):
            if name.endswith(SOURCE_SUFFIXES) or name in SOURCE_NAMES:
                path = os.path.join(folder, name)
                st = os.stat(path)
                h.update(
                    f"{os.path.relpath(path, root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode()
                )
    try:
        from importlib.metadata import version

        h.update(version("godlpack").encode())
    except Exception:  # noqa: BLE001 - no metadata: the version cannot say stale
        pass
    return h.hexdigest()


class GoExtensionFinder:
    """Finds the editable project's extension module (rebuilt when stale) and packages: a
    meta path finder (find_spec) without importlib.abc's base, not imported at start."""

    def __init__(self, config: "dict[str, Any]") -> None:
        self.root: str = config["root"]
        self.module: str = config["module"]
        self.packages: dict[str, str] = config.get("packages", {})
        tag = sys.implementation.cache_tag or "python"
        self.build_dir = os.path.join(self.root, "build", "godlpack-editable", tag)
        self.checked = False
        # Where the installed stub of a top-level module lives (its -stubs package, beside
        # this hook in site-packages), rewritten at each rebuild; "" for none.
        self.stub_root: str = config.get("stub_root", "")

    @property
    def library(self) -> str:
        """Where the extension module is built (its path ends in this CPython's EXT_SUFFIX)."""
        import sysconfig

        *pkgs, last = self.module.split(".")
        suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
        return os.path.join(self.build_dir, *pkgs, last + suffix)

    def find_spec(
        self,
        fullname: str,
        path: "Sequence[str] | None",
        target: "ModuleType | None" = None,
    ) -> "importlib.machinery.ModuleSpec | None":
        if fullname not in self.packages and fullname != self.module:
            return None  # every other import of the process: nothing imported, no stat
        import importlib.util

        if fullname in self.packages:
            folder = self.packages[fullname]
            return importlib.util.spec_from_file_location(
                fullname,
                os.path.join(folder, "__init__.py"),
                submodule_search_locations=[folder],
            )
        if not self.checked:
            self.ensure_built()
            self.checked = True
        return importlib.util.spec_from_file_location(fullname, self.library)

    def ensure_built(self) -> None:
        """Rebuilds the extension if its sources changed since the last build."""
        os.makedirs(self.build_dir, exist_ok=True)
        stamp = os.path.join(self.build_dir, "sources.sha256")
        with open(os.path.join(self.build_dir, "lock"), "w") as lock:
            try:
                import fcntl

                fcntl.flock(lock, fcntl.LOCK_EX)  # another interpreter may be building
            except ImportError:  # pragma: no cover - not POSIX
                pass
            now = _fingerprint(self.root)
            try:
                with open(stamp) as f:
                    if f.read() == now and os.path.exists(self.library):
                        return
            except OSError:
                pass
            self.rebuild()
            with open(stamp, "w") as f:
                f.write(now)

    def rebuild(self) -> None:
        import importlib.util
        import subprocess
        import time

        print(
            f"godlpack: building {self.module} from its changed Go sources in {self.root} ...",
            file=sys.stderr,
            flush=True,
        )
        staging = self.build_dir + ".new"
        start = time.monotonic()
        # The godlpack_build this interpreter finds (not imported here) builds it, in a
        # process that may not have its folder on sys.path (pip's isolated build
        # environment); godlpack, which the built module imports, is in the same folder.
        env = dict(os.environ)
        spec = importlib.util.find_spec("godlpack_build")
        if spec is not None and spec.origin:
            here = os.path.dirname(os.path.dirname(spec.origin))
            env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
        res = subprocess.run(
            [sys.executable, "-c", _BUILD_SCRIPT, self.root, staging, self.stub_root],
            capture_output=True,
            text=True,
            env=env,
        )
        if res.returncode != 0:
            # go's messages without the backend's command line ("+ ... go build ...")
            lines = [ln for ln in res.stderr.splitlines() if not ln.startswith("+ ")]
            raise ImportError(
                f"godlpack: building {self.module} from {self.root} failed "
                f"({time.monotonic() - start:.1f} s):\n" + "\n".join(lines),
                name=self.module,
            )
        *pkgs, _ = self.module.split(".")
        built = os.path.join(staging, *pkgs, os.path.basename(self.library))
        os.makedirs(os.path.dirname(self.library), exist_ok=True)
        os.replace(built, self.library)  # a process using the old one keeps its inode


def install(config: "dict[str, Any]") -> None:
    """Puts the finder of an editable project first on sys.meta_path (from its .pth)."""
    sys.meta_path.insert(0, GoExtensionFinder(config))
