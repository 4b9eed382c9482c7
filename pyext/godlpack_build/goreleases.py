"""The Go releases godlpack's builds support, and what a Go toolchain says of itself (its
version, its GOROOT, any ``go env`` value) and a go.mod asks for."""

from __future__ import annotations

import itertools
import os
import subprocess
from pathlib import Path

from .errors import BuildError

# The Go releases godlpack's builds have everything for: package vec's SIMD kernels
# (dlpack/vec/archsimd_go1N.go, tools/gen_vec_kernels.py), the fork child's repair of
# the runtime (runtime_patches.RUNTIME_ADDED and the proc.go lines they need;
# internal/forksafe/idle_ms.go's scheduler layout) and the per-call lock's patch (or the
# runtime's own fix of it), each checked against that release's sources. A release not here
# (the next one, before that check) builds as toolchain.UNSUPPORTED_GO says. CONTRIBUTING.md,
# "Upgrading Go", is the checklist for adding one; tests/test_go_releases.py checks that
# the Go files' build constraints and vec's wrapper files agree with this table.
SUPPORTED_GO = ((1, 26), (1, 27))


def version_tuple(text: str) -> tuple[int, ...]:
    """ "go1.26.8" or "1.26" -> (1, 26, 8) / (1, 26); a suffix (rc1, "+auto") ends it."""
    nums = []
    for part in text.removeprefix("go").split("."):
        digits = "".join(itertools.takewhile(str.isdigit, part))
        if not digits:
            break
        nums.append(int(digits))
    return tuple(nums)


def release(version: tuple[int, ...]) -> str:
    """(1, 26) -> "1.26"."""
    return ".".join(map(str, version))


def supported_releases(conj: str = "and") -> str:
    """SUPPORTED_GO as a sentence says it: "1.26 and 1.27" (``conj``: "or")."""
    *rest, last = [release(r) for r in SUPPORTED_GO]
    return f"{', '.join(rest)} {conj} {last}" if rest else last


def go_mod_version(root: Path) -> tuple[int, ...]:
    """The Go version ``root``/go.mod asks for (its ``go 1.N[.P]`` line)."""
    for line in (root / "go.mod").read_text(encoding="utf-8").splitlines():
        words = line.split()
        if len(words) == 2 and words[0] == "go":
            return version_tuple(words[1])
    raise BuildError(f"no `go 1.N` line in {root / 'go.mod'}")


def go_env_value(go: str, name: str, env: dict[str, str] | None = None) -> str | None:
    """``go env NAME`` of the toolchain at ``go`` (GOTOOLCHAIN=local: that toolchain's
    own answer, never one it would download), or None if it does not run or says
    nothing."""
    try:
        res = subprocess.run(
            [go, "env", name],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "GOTOOLCHAIN": "local", **(env or {})},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    out = res.stdout.strip()
    return out if res.returncode == 0 and out else None


def go_version(go: str, env: dict[str, str] | None = None) -> tuple[int, ...] | None:
    """The version of the toolchain at ``go``, or None if it does not run."""
    version = go_env_value(go, "GOVERSION", env)
    return None if version is None else version_tuple(version)


def goroot(go: str, goroot_env: dict[str, str]) -> Path | None:
    """The GOROOT of the toolchain at ``go``, or None if it does not run."""
    root = go_env_value(go, "GOROOT", goroot_env)
    return None if root is None else Path(root)
