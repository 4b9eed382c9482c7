"""Sub-interpreters are refused with ImportError (docs/decisions/sub-interpreters-refused.md).

godlpack's state is process-wide (the Go runtime, the Array type, the dtype and device
objects, the static exchange-API table), so a sub-interpreter's import must fail
cleanly and leave the main interpreter's godlpack working; before, it overwrote the
process-wide objects with the sub-interpreter's, and after that interpreter was
destroyed ``repr(a.dtype)`` raised NameError. Each case runs in a child process (a
regression corrupts or crashes the interpreter), through every way of making a
sub-interpreter that this CPython has: ``_testcapi.run_in_subinterp`` (3.11-3.15,
the legacy config that admits single-phase modules), ``_xxsubinterpreters``
(3.11-3.12) and ``_interpreters`` (3.13-3.15).
"""

from __future__ import annotations

import importlib.util
import sys
import textwrap

import pytest
from conftest import GODLPACK_PATH, run_python

# How each mechanism runs `code` in a fresh sub-interpreter and destroys it.
MECHANISMS = {
    "_testcapi.run_in_subinterp": "import _testcapi\nassert _testcapi.run_in_subinterp(code) == 0",
    "_xxsubinterpreters": (
        "import _xxsubinterpreters as xi\n"
        "i = xi.create()\n"
        "try:\n    xi.run_string(i, code)\nfinally:\n    xi.destroy(i)"
    ),
    "_interpreters": (
        "import _interpreters as xi\n"
        "i = xi.create()\n"
        "try:\n    assert xi.run_string(i, code) is None\nfinally:\n    xi.destroy(i)"
    ),
}
AVAILABLE = [m for m in MECHANISMS if importlib.util.find_spec(m.split(".")[0]) is not None]


def test_every_supported_cpython_can_make_a_subinterpreter_here():
    # The cases below must run, not vanish: _testcapi exists on 3.11-3.15, and one of
    # the interpreter modules on each.
    assert "_testcapi.run_in_subinterp" in AVAILABLE
    other = "_interpreters" if sys.version_info >= (3, 13) else "_xxsubinterpreters"
    assert other in AVAILABLE


# Runs in the sub-interpreter; writes what its import did to OUT.
SUB_IMPORT = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {path!r})
    try:
        import godlpack
        result = "imported " + repr(godlpack.arange(2).tolist())
    except ImportError as e:
        result = "ImportError: " + str(e)
    with open({out!r}, "w") as f:
        f.write(result)
    """
)


def child_script(mechanism: str, out: str, main_first: bool) -> str:
    sub = SUB_IMPORT.format(path=GODLPACK_PATH, out=out)
    before = "import godlpack as g\na = g.arange(3)\n" if main_first else ""
    after = "" if main_first else "import godlpack as g\na = g.arange(3)\n"
    return (
        f"code = {sub!r}\n"
        + before
        + MECHANISMS[mechanism]
        + "\n"
        + after
        + textwrap.dedent(
            """
            import numpy as np
            assert repr(a.dtype) == "dtype('int64')", repr(a.dtype)
            assert tuple(a.__dlpack_device__()) == (1, 0)
            assert repr(a) == "Array([0, 1, 2])", repr(a)
            assert np.from_dlpack(a).tolist() == [0, 1, 2]
            assert g.from_dlpack(np.arange(2.0)).dtype == g.float64
            assert type(g.asarray([1.5]).dtype) is g.dtype
            print("main ok")
            """
        )
    )


@pytest.mark.parametrize("main_first", [True, False], ids=["main-first", "sub-first"])
@pytest.mark.parametrize("mechanism", AVAILABLE)
def test_subinterpreter_import_is_refused_and_main_keeps_working(tmp_path, mechanism, main_first):
    out = str(tmp_path / "sub.txt")
    r = run_python(child_script(mechanism, out, main_first))
    assert r.returncode == 0, r.stderr
    assert "main ok" in r.stdout
    with open(out) as f:
        result = f.read()
    assert result.startswith("ImportError: "), result
    assert "subinterpreter" in result.lower(), result  # ours, or CPython's (3.12+)


def test_second_module_object_in_the_main_interpreter_shares_the_state():
    # Multi-phase init makes a new module object when the extension is imported again
    # after leaving sys.modules: it must reuse the process-wide Array type and tables.
    r = run_python(
        textwrap.dedent(
            """
            import sys
            import numpy as np
            import godlpack as g
            a = g.arange(3)
            Array = g.Array
            for name in [m for m in sys.modules if m.startswith("godlpack")]:
                del sys.modules[name]
            import godlpack as g2
            assert g2 is not g and g2.Array is Array
            b = g2.arange(2)
            assert type(b) is type(a)
            assert repr(a.dtype) == "dtype('int64')" and repr(b.dtype) == "dtype('int64')"
            assert np.from_dlpack(b).tolist() == [0, 1]
            assert g2.from_dlpack(a).tolist() == [0, 1, 2]
            print("ok")
            """
        )
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"
