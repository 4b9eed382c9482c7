"""How an extension written in Go refuses to load: mistakes in its
godlpack.Module definition, a module built under another name, and a godlpack whose
C-API has another version. Each import runs in a child interpreter."""

from __future__ import annotations

from conftest import run_python
from goext_build import folder


def test_definition_mistakes_are_one_import_error(isolated):
    proc = isolated(
        f"import sys; sys.path.insert(0, {folder('goext_bad')!r})\n"
        "try:\n    import goext_bad\nexcept ImportError as e:\n    print(e)\n"
    )
    assert proc.returncode == 0, proc.stderr
    msg = proc.stdout
    assert msg.startswith('godlpack.Module("goext_bad"): ')
    for part in (
        "slice_param(): parameter x: unsupported type []int",
        "one_name(): the Go function has 2 parameters but 1 names were given (a)",
        "bad_default(): the default 3 does not suit parameter s of type string",
        "where_scalar(): parameter n is not a tensor: it takes no constraints",
        "bad_result(): unsupported result type struct { A int }",
        "bad_element(): parameter x: godlpack.Tensor[string]: the type argument must be",
        '"bad name" is not a valid Python function name',
        # nil is the default of an optional tensor only; a tensor takes no other
        "nil_default(): the default <nil> does not suit parameter n of type int64",
        "tensor_default(): the default 0.5 does not suit parameter x of type "
        "godlpack.Tensor[float32]",
        "optional_first(): parameter b has no default but follows one that has",
        "overlap_read(): parameter x: AllowOverlap applies to a MutTensor (a Tensor is only read)",
        # godlpack.Func, classes, exception classes, overloads
        "kwargs_no_map(): parameter **kw: **kwargs takes a map[string]T (the keywords no other "
        "parameter names), got int",
        'two_stars(): "*" may appear once among the parameter names',
        "chan_param(): parameter c: unsupported type chan int",
        "not_func(): Func needs a non-nil Go function, got int",
        "unbound(): *main.Loose is not a bound class (godlpack.Class[main.Loose])",
        "bad_callback(): parameter f: a callback type must return error or (T, error): "
        "func(int) int",
        'like_nothing(): ResultLike: no parameter named "nope"',
        'ov(): the overload a() must be named "ov" as its set',
        "Num(): the Go type int is not a struct: bind a struct type",
        "Thing(): the constructor must return *main.Thing or (*main.Thing, error)",
        "method(): the first parameter must be the instance, a *main.Thing",
        # AtomicProperty: a field C can read from the pinned value, or none
        "plain(): AtomicProperty: the field must be a func(*main.Thing) *atomic.X returning "
        "the address of a sync/atomic Int64, Uint64, Int32, Uint32 or Bool field of its "
        "argument, got func(*main.Thing) *int64",
        "outside(): AtomicProperty: the field function must return the address of a field "
        "of its argument itself (&t.count), got an address outside the main.Thing (or nil)",
        "through(): AtomicProperty: the field function panicked on a zero main.Thing",
        'two members are named "Thing"',
    ):
        assert part in msg, part


def test_module_built_under_another_name(isolated):
    proc = isolated(
        f"import sys; sys.path.insert(0, {folder('goext2', 'renamed')!r})\n"
        "try:\n    import renamed\nexcept ImportError as e:\n    print(e)\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == (
        'this extension defines no godlpack.Module("renamed", ...) (it defines: "goext2"); '
        "the module name must be the one the extension is built as"
    )


def test_c_api_version_mismatch(isolated):
    # A godlpack whose _C_API table says version 999: the extension refuses it.
    proc = isolated(
        f"import sys; sys.path.insert(0, {folder('goext2')!r})\n"
        """
import ctypes
import godlpack._godlpack as m
table = (ctypes.c_uint32 * 16)(999, 64)
new = ctypes.pythonapi.PyCapsule_New
new.restype = ctypes.py_object
new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
name = ctypes.c_char_p(b"godlpack._godlpack._C_API")
m._C_API = new(ctypes.addressof(table), name, None)
try:
    import goext2
except ImportError as e:
    print(e)
"""
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == (
        "goext2 was built for godlpack C-API version 1, but the godlpack imported has "
        "version 999: rebuild goext2 against this godlpack, or install the godlpack it was "
        "built with"
    )


def test_godlpack_module_defines_functions_with_the_api():
    # module_funcs.go: the godlpack module's own Func0 functions, added at its exec
    # through the API's call path, with the results and messages they always had.
    proc = run_python(
        """
import inspect, godlpack as g, godlpack._godlpack as m
names = ("_dtype_table", "_live_allocations", "_after_fork_parent", "_after_fork_child")
print([str(inspect.signature(getattr(m, n))) for n in names])
print(g._godlpack._dtype_table()[:2], len(g.dtypes) == len(m._dtype_table()))
try:
    m._live_allocations()
except RuntimeError as e:
    print(e)
m._after_fork_parent()  # no fork of ours under way: nothing to undo
""",
        env_extra={"GODLPACK_COUNT_ALLOCATIONS": "0"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "['()', '()', '()', '()']",
        "(('bool', 6, 8, 0), ('int8', 0, 8, 1)) True",
        "allocation counting is off: set GODLPACK_COUNT_ALLOCATIONS=1 in the environment "
        "before importing godlpack",
    ]
