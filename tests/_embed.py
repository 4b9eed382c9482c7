"""Shared by the tests of Go programs that embed Python (test_embed.py, test_serve.py):
the shell command prefix that sets them up exactly as docs/embedding.md says, and the
environment the programs run in (this test interpreter, this run's godlpack)."""

from __future__ import annotations

import os
import shlex
import sys

import godlpack

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GODLPACK_PATH = os.path.dirname(os.path.dirname(os.path.abspath(godlpack.__file__)))


def env() -> dict[str, str]:
    """This environment with this run's godlpack importable by the embedded Python."""
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(p for p in (GODLPACK_PATH, e.get("PYTHONPATH")) if p)
    for name in ("GOFLAGS", "CGO_LDFLAGS", "GODLPACK_PYTHON"):
        e.pop(name, None)  # only go-env's settings
    return e


def with_go_env(command: str) -> str:
    """`command` after eval "$(python -m godlpack go-env --embed)", for bash -c."""
    return f'eval "$({shlex.quote(sys.executable)} -m godlpack go-env --embed)" && {command}'
