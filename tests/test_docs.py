"""Documentation is part of the API: every public name explains itself.

- every name in ``godlpack.__all__`` has a docstring of its own (functions, classes) or
  its type's (the dtype objects are ``godlpack.dtype``), or is described in the
  package docstring (plain data: ``DLPACK_VERSION``, ``dtypes``, ``__version__``);
- every public method and attribute of ``godlpack.Array`` has a docstring, and every
  function and method has an introspectable signature;
- ``help(godlpack.Array.__dlpack__)`` explains its keywords and errors;
- ``python -m godlpack info`` and the demo run.
"""

from __future__ import annotations

import inspect
import os
import pydoc
import re
import subprocess
import sys
import types

import godlpack
import pytest

GODLPACK_PATH = os.path.dirname(os.path.dirname(os.path.abspath(godlpack.__file__)))

#: Docstrings that say nothing: the defaults Python gives objects without one.
_INHERITED = {t.__doc__ for t in (object, type, tuple, str, int, dict, types.BuiltinFunctionType)}


def _words(doc: str | None) -> int:
    return len(re.findall(r"[A-Za-z]{2,}", doc or ""))


def _own_doc(obj: object) -> str | None:
    """obj's docstring if it is its own, not one inherited from a builtin type."""
    doc = inspect.getdoc(obj)
    if doc is None or doc in _INHERITED or obj.__doc__ in _INHERITED:
        return None
    return doc


def _documented_in_package_doc(name: str) -> bool:
    # A definition list entry: the name alone on a line, then an indented description.
    m = re.search(rf"^{re.escape(name)}\n((?:    .*\n)+)", godlpack.__doc__ or "", re.M)
    return m is not None and _words(m.group(1)) >= 5


@pytest.mark.parametrize("name", godlpack.__all__)
def test_every_public_name_is_documented(name):
    obj = getattr(godlpack, name)
    if isinstance(obj, godlpack.dtype):
        # dtype objects are instances: their documentation is their class's.
        doc = inspect.getdoc(type(obj))
        assert type(obj).__module__.startswith("godlpack")
    elif callable(obj):
        doc = _own_doc(obj)
    else:
        assert _documented_in_package_doc(name), (
            f"godlpack.{name} is plain data ({type(obj).__name__}): describe it in the "
            f"package docstring as a '{name}' line followed by an indented description"
        )
        return
    assert doc is not None, f"godlpack.{name} has no docstring of its own"
    assert _words(doc) >= 5, f"godlpack.{name}'s docstring is too short: {doc!r}"


def test_all_names_exist_and_are_unique():
    assert len(set(godlpack.__all__)) == len(godlpack.__all__)
    for name in godlpack.__all__:
        assert hasattr(godlpack, name), name


def test_package_docstring():
    assert _words(godlpack.__doc__) >= 20
    assert "DLPack" in (godlpack.__doc__ or "")


ARRAY_PUBLIC = sorted(
    name
    for name in dir(godlpack.Array)
    if not name.startswith("_") or name in ("__dlpack__", "__dlpack_device__")
)


def test_array_public_names_are_what_the_api_section_lists():
    # If this changes, update docs/arrays-and-dlpack.md's API section and the stubs
    # (_godlpack.pyi).
    assert ARRAY_PUBLIC == sorted(
        [
            "__dlpack__",
            "__dlpack_device__",
            "copy",
            "data_ptr",
            "dtype",
            "flags",
            "item",
            "itemsize",
            "nbytes",
            "ndim",
            "readonly",
            "reshape",
            "shape",
            "size",
            "strides",
            "tolist",
            "toreadonly",
        ]
    )


@pytest.mark.parametrize("name", ARRAY_PUBLIC)
def test_every_array_method_and_attribute_is_documented(name):
    # Read from the class dict: for an attribute (a getset descriptor) this is its own
    # docstring, not the docstring of the value's type.
    member = inspect.getattr_static(godlpack.Array, name)
    doc = member.__doc__
    assert doc, f"Array.{name} has no docstring"
    assert doc not in _INHERITED
    assert _words(doc) >= 3, f"Array.{name}'s docstring is too short: {doc!r}"


def test_array_class_docstring():
    doc = inspect.getdoc(godlpack.Array)
    assert doc is not None and _words(doc) >= 10
    assert str(inspect.signature(godlpack.Array)) == "(obj, dtype=None)"


@pytest.mark.parametrize(
    "func",
    [
        godlpack.Array.__dlpack__,
        godlpack.Array.__dlpack_device__,
        godlpack.Array.tolist,
        godlpack.Array.item,
        godlpack.Array.copy,
        godlpack.Array.toreadonly,
        godlpack.Array.reshape,
        godlpack.empty,
        godlpack.zeros,
        godlpack.ones,
        godlpack.full,
        godlpack.arange,
        godlpack.asarray,
        godlpack.from_dlpack,
    ],
    ids=lambda f: f.__qualname__,
)
def test_signatures_are_introspectable(func):
    # The C tables carry a "name(args)\n--\n\n" header: help() and inspect show the
    # parameters instead of (*args, **kwargs), and the header is not left in __doc__.
    sig = inspect.signature(func)
    assert "--" not in (func.__doc__ or "").splitlines()[0]
    assert all(p.kind is not p.VAR_KEYWORD for p in sig.parameters.values())


def test_asarray_signature_is_the_array_api_standard_one():
    assert str(inspect.signature(godlpack.asarray)) == (
        "(obj, /, *, dtype=None, device=None, copy=None)"
    )


def test_dlpack_signature_is_keyword_only():
    sig = inspect.signature(godlpack.Array.__dlpack__)
    kw = [n for n, p in sig.parameters.items() if p.kind is p.KEYWORD_ONLY]
    assert kw == ["stream", "max_version", "dl_device", "copy"]
    assert all(sig.parameters[n].default is None for n in kw)


def _help_text(obj: object) -> str:
    """What help(obj) prints."""
    return pydoc.render_doc(obj, renderer=pydoc.plaintext)


def test_help_dlpack_explains_keywords_and_errors():
    text = _help_text(godlpack.Array.__dlpack__)
    for word in ("stream", "max_version", "dl_device", "copy", "BufferError"):
        assert word in text, f"help(Array.__dlpack__) does not mention {word}"
    # Each keyword is described, not only named in the signature line.
    body = text.split("\n", 3)[3]
    for kw in ("stream", "max_version", "dl_device", "copy"):
        assert re.search(rf"^\s*{kw}: \S", body, re.M), f"no description of {kw}"
    for exc in ("ValueError", "TypeError"):
        assert exc in body
    assert "read-only" in body and "legacy" in body


def test_help_dlpack_device_names_the_devices():
    text = _help_text(godlpack.Array.__dlpack_device__)
    assert "kDLCPU" in text and "device_id" in text


def test_help_from_dlpack_explains_keywords_and_errors():
    text = _help_text(godlpack.from_dlpack)
    for word in ("device", "copy", "BufferError", "capsule", "__dlpack__"):
        assert word in text


def test_help_of_the_package_renders():
    text = _help_text(godlpack)
    assert "DLPACK_VERSION" in text and "from_dlpack" in text and "class Array" in text


def test_dtype_and_device_types_are_documented():
    assert _words(inspect.getdoc(godlpack.dtype)) >= 10
    assert _words(inspect.getdoc(godlpack.dtype.name)) >= 3
    assert _words(inspect.getdoc(godlpack.DLDeviceType)) >= 3


# --------------------------------------------------------------------------------------
# python -m godlpack
# --------------------------------------------------------------------------------------


def _run_module(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (GODLPACK_PATH, env.get("PYTHONPATH")) if p)
    env.setdefault("JAX_PLATFORMS", "cpu")
    return subprocess.run(
        [sys.executable, "-m", "godlpack", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_module_info():
    import ml_dtypes
    import numpy
    import torch

    r = _run_module("info")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    major, minor = godlpack.DLPACK_VERSION
    assert lines[0] == f"godlpack {godlpack.__version__}, DLPack {major}.{minor}"
    assert lines[1] == "dtypes: " + ", ".join(d.name for d in godlpack.dtypes)
    assert lines[2].startswith("devices: kDLCPU")
    here = "{}.{}.{}".format(*sys.version_info[:3])
    assert lines[3] == f"python: CPython {here} (godlpack supports CPython 3.11-3.15)"
    # The consumers the test suite requires are found, with their versions.
    for mod in (numpy, torch, ml_dtypes):
        assert f"  {mod.__name__}: {mod.__version__}" in lines, r.stdout
    for name in ("jax", "tvm_ffi"):
        assert any(line.startswith(f"  {name}: ") for line in lines), r.stdout


def test_module_help_prints_usage():
    r = _run_module("--help")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: python -m godlpack")
    assert "info" in r.stdout and "demo" in r.stdout
    assert "same address" not in r.stdout  # the demo did not run
    r = _run_module("nonsense")
    assert r.returncode == 2 and "invalid choice" in r.stderr


def test_module_demo():
    r = _run_module()
    assert r.returncode == 0, r.stderr
    assert "same address: True" in r.stdout
    assert "256-byte aligned: True" in r.stdout
    assert "dtype=bfloat16" in r.stdout
