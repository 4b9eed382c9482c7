"""``go build -buildmode=c-shared``: a Go main package into an extension module for one
interpreter, with the tools toolchain finds, cgo's environment and the runtime patches;
both backends compile through go_build_c_shared."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .cgo import default_goexperiment, go_env
from .errors import BuildError
from .golibrary import GO_BUILD_TAG
from .goreleases import supported_releases
from .runtime_patches import RUNTIME_FORK_TAG, runtime_fork_repair, runtime_patch
from .toolchain import (
    UNSUPPORTED_GO_LOSES,
    choose_otherwise,
    find_c_compiler,
    require_go,
    toolchain_gap,
)


def cgocheck2_setting(config_settings: dict[str, Any] | None) -> bool:
    """Whether a PEP 517 hook's config_settings ask for a cgocheck2 build (``cgocheck2=
    true``, pip's ``-C cgocheck2=true``: GOEXPERIMENT=cgocheck2)."""
    value = (config_settings or {}).get("cgocheck2", "")
    return str(value).lower() in {"1", "true", "yes", "on"}


def go_build_c_shared(
    pkg: str,
    target: Path,
    info: dict[str, Any],
    *,
    cwd: Path,
    want_go: tuple[int, ...],
    cgocheck2: bool = False,
    goexperiment: Iterable[str] | None = None,
    strip: bool = False,
    flags: Iterable[str] = (),
    env_extra: dict[str, str] | None = None,
    include_dirs: Iterable[Path] = (),
    tags: Iterable[str] = (),
    overlay: dict[str, str] | None = None,
    patch_runtime: bool = True,
    unsupported: str = "pinned",
    chooser: str | None = None,
) -> Path:
    """``go build -buildmode=c-shared -tags GO_BUILD_TAG`` of the Go package ``pkg`` (run
    in ``cwd``) into ``target``, an extension module for the interpreter ``info``; ``tags``
    are build tags added to GO_BUILD_TAG.

    cgo compiles against that interpreter's Python.h; libpython is not linked: the Python
    symbols stay undefined in the .so and the dynamic loader resolves them from the
    interpreter that imports it. ``flags`` go before the package (-modfile). ``overlay``:
    go build -overlay's replacements (file: its replacement), with the runtime patches
    (runtime_patch, runtime_fork_repair) unless ``patch_runtime`` is false.
    ``goexperiment`` None: default_goexperiment's. ``unsupported``: what to do when the
    Go found is not a supported one (UNSUPPORTED_GO; ``chooser``, the setting that
    chooses it, as find_go). Built with an unsupported one, the build says in one line
    what that loses, and a failed go build is one line too (its first error), not the
    compiler's output: godlpack's sources were never checked against that release."""
    target.parent.mkdir(parents=True, exist_ok=True)
    cc_env = find_c_compiler()
    passed: list[str] = []
    go, goroot_env = require_go(want_go, unsupported, passed, chooser)
    for note in passed:  # a newer Go on PATH, say: what was used instead
        print(
            f"godlpack: {note}: building with {go} instead"
            + choose_otherwise(chooser, "unpatched", "; "),
            file=sys.stderr,
            flush=True,
        )
    gap = toolchain_gap(go, goroot_env) if unsupported != "pinned" else None
    if gap is not None:
        print(
            f"godlpack: warning: {go} is {gap}: building without them: "
            f"{UNSUPPORTED_GO_LOSES}" + choose_otherwise(chooser, "pinned", "; "),
            file=sys.stderr,
            flush=True,
        )
        patch_runtime = False
    if goexperiment is None:
        goexperiment = default_goexperiment(go, goroot_env)
    env = go_env(
        info,
        cgocheck2=cgocheck2,
        goexperiment=goexperiment,
        extra={**goroot_env, **cc_env, **(env_extra or {})},
        include_dirs=include_dirs,
    )
    shown = " ".join(
        f"{k}={env[k]}"
        for k in dict.fromkeys(["CC", "GOROOT", "CGO_CFLAGS", "GOEXPERIMENT", *(env_extra or {})])
        if env.get(k)
    )
    with tempfile.TemporaryDirectory(prefix="godlpack-overlay-") as tmp:
        replace = dict(overlay or {})
        if patch_runtime:
            replace.update(runtime_patch(go, goroot_env, Path(tmp)) or {})
            fork_repair = runtime_fork_repair(go, goroot_env, Path(tmp))
            replace.update(fork_repair or {})
            tags = [*tags, RUNTIME_FORK_TAG] if fork_repair else tags
        cmd = [go, "build", "-buildmode=c-shared", "-tags=" + ",".join([GO_BUILD_TAG, *tags])]
        cmd += ["-trimpath", "-buildvcs=false", *flags]
        if replace:
            (Path(tmp) / "overlay.json").write_text(json.dumps({"Replace": replace}))
            cmd.append(f"-overlay={Path(tmp) / 'overlay.json'}")
        if strip:
            cmd.append("-ldflags=-s -w")
        cmd += ["-o", str(target), pkg]
        note = " (with godlpack's Go runtime patch)" if len(replace) > len(overlay or {}) else ""
        print(f"+ {shown} {' '.join(cmd)}{note}", file=sys.stderr, flush=True)
        if gap is None:
            try:
                subprocess.run(cmd, cwd=cwd, env=env, check=True)
            except subprocess.CalledProcessError as e:
                raise BuildError(f"go build failed (exit {e.returncode})") from e
        else:
            res = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
            if res.returncode != 0:
                raise BuildError(_unsupported_build_failed(go, gap, res, chooser))
    # go writes the cgo export header next to the library: it is not part of the package.
    target.with_suffix(".h").unlink(missing_ok=True)
    if not target.is_file():
        raise BuildError(f"go build did not produce {target}")
    return target


def _unsupported_build_failed(
    go: str, gap: str, res: subprocess.CompletedProcess[str], chooser: str | None
) -> str:
    """The one line of a go build that failed with an unsupported Go (toolchain_gap's
    ``gap``): that, its first error, and the way out."""
    out = (res.stderr + res.stdout).splitlines()
    errors = [ln.strip() for ln in out if ln.strip() and not ln.startswith("#")]
    first = errors[0] if errors else f"exit {res.returncode}"
    more = f" and {len(errors) - 1} more lines" if len(errors) > 1 else ""
    return (
        f"go build failed with {go}, {gap}: {first}{more}; build with Go "
        f"{supported_releases('or')}" + choose_otherwise(chooser, "pinned", ": ")
    )
