"""BuildError, the one error of godlpack's build steps, and how a PEP 517 hook reports it."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

_T = TypeVar("_T")


class BuildError(RuntimeError):
    """A build step failed, with a message meant for the person running it."""


def one_line_errors(hook: Callable[..., _T]) -> Callable[..., _T]:
    """A BuildError in a hook ends the build with its message alone on stderr: pip shows
    that line, not a traceback through the backend."""

    @functools.wraps(hook)
    def wrapper(*args: Any, **kwargs: Any) -> _T:
        try:
            return hook(*args, **kwargs)
        except BuildError as e:
            print(f"godlpack: error: {e}", file=sys.stderr, flush=True)
            raise SystemExit(1) from None

    return wrapper
