"""godlpack.Func (docs/extensions.md): a Go function of any arity and signature bound by
reflection. tests/goext3 binds one function per point: more than four (and more
than eight) parameters, keyword-only ones, every Go integer width with CPython's
OverflowError out of range, float32, complex, bytes, lists, dicts, *T optionals,
any and *godlpack.Object, several results (a tuple), functions returning only an
error or nothing."""

from __future__ import annotations

import gc
import inspect
import re

import godlpack
import numpy as np
import pytest
from conftest import run_python
from goext_build import folder, load


@pytest.fixture(scope="module")
def m():
    return load("goext3")


def test_every_integer_width_in_range(m):
    top = 2**64 - 1
    assert m.widths(-128, -(2**15), -(2**31), 255, 2**16 - 1, 2**32 - 1, top, top) == (
        f"-128 -32768 -2147483648 255 65535 4294967295 {top} {top}"
    )
    assert m.widths(np.int8(1), 2, 3, np.uint8(4), 5, 6, np.uint64(7), 8) == "1 2 3 4 5 6 7 8"


@pytest.mark.parametrize(
    ("i", "value", "name"),
    [
        (0, 128, "i8"),
        (0, -129, "i8"),
        (1, 2**15, "i16"),
        (2, -(2**31) - 1, "i32"),
        (3, 256, "u8"),
        (3, -1, "u8"),
        (4, 70000, "u16"),
        (4, -1, "u16"),
        (5, 2**32, "u32"),
        (6, 2**64, "u64"),
        (6, -1, "u64"),
        (7, -1, "u"),
        (7, 2**80, "u"),
        (0, 2**70, "i8"),
    ],
)
def test_integer_out_of_range_is_overflow_error(m, i, value, name):
    args = [0] * 8
    args[i] = value
    with pytest.raises(
        OverflowError, match=rf"^widths\(\): argument {name}: .*(range|too large for int64)"
    ):
        m.widths(*args)


def test_integer_parameters_refuse_floats_and_str(m):
    with pytest.raises(TypeError, match=r"^widths\(\): argument u16: expected an int, got float$"):
        m.widths(0, 0, 0, 0, 1.0, 0, 0, 0)
    with pytest.raises(TypeError, match=r"^widths\(\): argument u64: expected an int, got str$"):
        m.widths(0, 0, 0, 0, 0, 0, "1", 0)


def test_more_parameters_than_func4_and_eight(m):
    assert m.many(*range(1, 10)) == sum(k * k for k in range(1, 10)) + 10 * 10 - 100 + 100
    assert m.many(*range(1, 11)) == sum(k * k for k in range(1, 11))
    assert m.many(*([0] * 9), j=1) == 10
    assert str(inspect.signature(m.many)) == "(a, b, c, d, e, f, g, h, i, j=10)"


def test_any_number_of_parameters(m):
    """No ceiling (it was 16): twenty parameters, by position and by keyword, keyword-only
    ones with defaults, the argument errors naming the right one."""
    args = list(range(1, 19))
    want = sum(k * a for k, a in enumerate(args))
    assert m.twenty(*args) == f"sum={float(want):g}"
    assert m.twenty(*args, scale=0.5, label="half") == f"half={want * 0.5:g}"
    kw = {f"a{k}": a for k, a in enumerate(args)}
    assert m.twenty(**kw, label="kw") == f"kw={float(want):g}"
    assert m.twenty(*args[:10], **{k: v for k, v in list(kw.items())[10:]}) == m.twenty(*args)
    with pytest.raises(TypeError, match=r"missing required argument 'a17' \(pos 18\)"):
        m.twenty(*args[:17])
    with pytest.raises(TypeError, match="takes 18 positional arguments but 19 were given"):
        m.twenty(*args, 1.0)
    with pytest.raises(TypeError, match=r"^twenty\(\): argument a16: expected an int, got str$"):
        m.twenty(*args[:16], "x", 1)
    sig = str(inspect.signature(m.twenty))
    assert sig.startswith("(a0, a1,") and sig.endswith("a17, *, scale=1.0, label='sum')")


def test_keyword_only_parameters(m):
    assert str(inspect.signature(m.kwonly)) == "(x, ddof=0, *, center=True, scale=1.0, clip=None)"
    assert m.kwonly(2.0) == {"x": 2.0, "ddof": 0, "center": True, "scale": 1.0, "clip": None}
    assert m.kwonly(2.0, 1, center=False, clip=0.5)["clip"] == 0.5
    with pytest.raises(
        TypeError, match=r"^kwonly\(\) takes 2 positional arguments but 3 were given$"
    ):
        m.kwonly(2.0, 1, False)
    with pytest.raises(
        TypeError, match=r"^kwonly\(\) takes 2 positional arguments but 5 were given$"
    ):
        m.kwonly(2.0, 1, True, 1.0, None)


def test_optional_pointer_is_none_or_a_value(m):
    assert m.or_default() == -1.0
    assert m.or_default(None) == -1.0
    assert m.or_default(2) == 2.0
    assert m.or_default(x=2.5) == 2.5
    with pytest.raises(
        TypeError, match=r"^or_default\(\): argument x: expected float \| None, got str$"
    ):
        m.or_default("2")


def test_float32_complex_bytes(m):
    assert m.f32(0.1) == float(np.float32(0.1))
    assert m.conj(1 + 2j) == 1 - 2j
    assert m.conj(3.0) == 3 - 0j
    assert m.upper(b"go\x00") == b"GO\x00"
    assert type(m.upper(b"")) is bytes
    with pytest.raises(TypeError, match=r"^conj\(\): argument z: expected complex, got str$"):
        m.conj("1j")
    with pytest.raises(TypeError, match=r"^upper\(\): argument data: expected bytes, got str$"):
        m.upper("ab")


def test_bytes_parameter_takes_any_bytes_like(m):
    import array

    for data in (
        bytearray(b"go"),
        memoryview(b"go"),
        memoryview(b"xgox")[1:3],
        array.array("B", b"go"),
        np.frombuffer(b"go", np.uint8),
    ):
        assert m.upper(data) == b"GO", type(data)
    assert m.upper(np.array([[1, 2]], np.int16)) == np.array([[1, 2]], np.int16).tobytes()
    with pytest.raises(BufferError, match="contiguous"):  # the exporter's own refusal
        m.upper(memoryview(b"abcd")[::2])
    with pytest.raises(TypeError, match=r"^upper\(\): argument data: expected bytes, got list$"):
        m.upper([1, 2])


def test_lists_and_dicts(m):
    assert m.sorted_floats([3, 1.5, 2.0]) == [1.5, 2.0, 3.0]
    assert m.sorted_floats((2.0, 1.0)) == [1.0, 2.0]
    assert m.sorted_floats([]) == []
    assert m.lengths({"a": ["x", "y"], "b": []}) == {"a": 2, "b": 0}
    with pytest.raises(
        TypeError, match=r"^sorted_floats\(\): argument xs: item 1: expected float, got str$"
    ):
        m.sorted_floats([1.0, "2"])
    with pytest.raises(
        TypeError, match=r"^lengths\(\): argument words: key 'b': item 0: expected str, got int$"
    ):
        m.lengths({"a": [], "b": [1]})
    with pytest.raises(
        TypeError, match=r"^lengths\(\): argument words: expected dict\[str, list\[str\]\]"
    ):
        m.lengths({1: []})
    with pytest.raises(
        TypeError, match=r"^sorted_floats\(\): argument xs: expected list\[float\], got dict$"
    ):
        m.sorted_floats({})


def test_several_results_and_errors(m):
    assert m.divmod_(7, 2) == (3, 1)
    with pytest.raises(ZeroDivisionError, match=r"^divmod_\(\): b is zero$"):
        m.divmod_(1, 0)
    assert m.check(True) is None
    with pytest.raises(ValueError, match=r"^check\(\): not ok$"):
        m.check(False)
    assert m.nothing() is None
    with pytest.raises(
        TypeError, match=r"^nothing\(\) takes 0 positional arguments but 1 were given$"
    ):
        m.nothing(1)


def test_any_and_object(m):
    assert m.type_of([1, "a"]) == "[]interface {}"
    assert m.type_of(None) == "<nil>"
    assert m.type_of({"k": 1.0}) == "map[string]interface {}"
    assert m.echo_any({"a": [1, (2, 3)], "b": b"x"}) == {"a": [1, [2, 3]], "b": b"x"}
    assert m.call_it(lambda v: [v, v + 1], 2.0) == [2.0, 3.0]
    with pytest.raises(
        TypeError, match=r"^type_of\(\): argument x: no Go value for a Python object"
    ):
        m.type_of(object())


def test_an_exception_of_the_callable_keeps_its_type(m):
    def boom(v):
        raise KeyError(v)

    with pytest.raises(KeyError):
        m.call_it(boom, 1.0)


def test_class_dunders_len_iter_eq_and_unhashable(m):
    b = m.Bag(["a", "b"])
    assert len(b) == 2 and list(b) == ["a", "b"] and b == m.Bag(["a", "b"]) and b != m.Bag([])
    assert m.Bag() == m.Bag([]) and len(m.Bag()) == 0
    b.push("c")
    assert list(b) == ["a", "b", "c"] and b.first == "a" and m.Bag().first is None
    c = b.copy()
    assert type(c) is m.Bag and c == b and c is not b
    c.push("d")
    assert len(b) == 3  # a copy owns its own Go value
    with pytest.raises(TypeError, match="unhashable"):
        hash(b)
    assert str(inspect.signature(m.Bag)) == "(items=None)"
    assert str(inspect.signature(m.Bag.push)) == "(self, item)"


def test_eq_against_other_types_is_not_implemented(m):
    """__eq__'s other is a *Bag: anything else is NotImplemented, so == is False and !=
    True (identity, as for a Python class), never a TypeError; the other side's own
    __eq__ is asked first, as Python does."""
    b = m.Bag(["a"])
    assert b.__eq__(1) is NotImplemented and b.__eq__(m.make_sealed(1)) is NotImplemented
    assert (b == 1) is False and (b != "a") is True and (b == None) is False  # noqa: E711
    assert (b == m.make_sealed(1)) is False and b in [1, "x", b]
    assert ([b] == [m.Bag(["a"])]) is True and (b != m.Bag(["a"])) is False

    class AlwaysEqual:
        def __eq__(self, other):
            return True

    assert b == AlwaysEqual()


def test_instances_take_weak_references(m):
    import gc
    import weakref

    b = m.Bag(["a"])
    called = []
    r = weakref.ref(b, called.append)
    assert r() is b
    proxy = weakref.proxy(b)
    assert len(proxy) == 1
    cache = weakref.WeakValueDictionary({"b": b})
    before = m.live_instances()
    del b
    gc.collect()
    assert r() is None and called == [r] and "b" not in cache
    assert m.live_instances() == before - 1
    s = m.make_sealed(3)
    assert weakref.ref(s)() is s


def test_final_class_refuses_subclasses(m):
    with pytest.raises(TypeError):

        class Sub(m.Bag):
            pass


def test_class_without_constructor(m):
    with pytest.raises(TypeError, match="cannot create"):
        m.Sealed()
    s = m.make_sealed(7)
    assert type(s) is m.Sealed and s.n == 7


def test_optional_instance_parameter(m):
    assert m.maybe_bag() == -1
    assert m.maybe_bag(None) == -1
    assert m.maybe_bag(m.Bag(["x"])) == 1
    with pytest.raises(
        TypeError, match=r"^maybe_bag\(\): argument bag: expected Bag, got goext3.Sealed$"
    ):
        m.maybe_bag(m.make_sealed(1))


def test_instances_release_their_go_values(m):
    import gc

    gc.collect()
    before = m.live_instances()
    bags = [m.Bag(["x"]) for _ in range(1000)]
    copies = [b.copy() for b in bags]
    assert m.live_instances() == before + 2000
    del bags, copies
    gc.collect()
    assert m.live_instances() == before
    with pytest.raises(TypeError):
        m.Bag([1])  # a conversion error: no value made, none leaked
    assert m.live_instances() == before


def test_callback_from_another_goroutine(m):
    import threading

    callers = []

    def fn(x):
        callers.append(threading.get_ident())
        return x * 2

    assert m.call_on_goroutine(fn, 21.0) == 42.0
    assert callers and callers[0] != threading.get_ident()  # a thread of Go's, not ours

    boom = ValueError("from the goroutine")

    def bad(x):
        raise boom

    with pytest.raises(ValueError) as info:
        m.call_on_goroutine(bad, 1.0)
    assert info.value is boom


def test_callback_exception_stops_the_loop(m):
    seen = []

    def fn(i):
        seen.append(i)
        if i == 2:
            raise OSError(5, "disk")

    assert m.call_n(lambda i: None, 3) == 3
    with pytest.raises(OSError) as info:
        m.call_n(fn, 10)
    assert seen == [0, 1, 2] and info.value.errno == 5
    with pytest.raises(TypeError, match=r"^call_n\(\): argument fn: expected Callable"):
        m.call_n(3, 1)


def test_a_wrapped_callback_exception_is_raised_with_the_go_message_as_a_note(m):
    """A Go error wrapping (%w) a callback's exception raises that exception object,
    args and traceback intact, with the Go error's message added as a note (add_note);
    errors.As still finds the *godlpack.PythonError in the Go error (its type in the note).
    Before: the exception was raised bare, the Go message lost."""
    boom = OSError(5, "disk")

    def fn():
        raise boom

    with pytest.raises(OSError) as info:
        m.wrap_callback_error(fn, True)
    assert info.value is boom and boom.args == (5, "disk")
    assert boom.__notes__ == [
        "wrap_callback_error(): errors.As found a OSError: OSError: [Errno 5] disk"
    ]
    assert info.traceback[-1].name == "fn"  # raised where Python raised it

    def at_two(i):
        if i == 2:
            raise KeyError("k")

    with pytest.raises(KeyError) as info:
        m.call_n(at_two, 5)
    assert info.value.__notes__ == ["call_n(): at 2: KeyError: 'k'"]


def test_a_callback_exception_returned_as_it_is_gets_no_note(m):
    boom = ValueError("plain")

    def fn():
        raise boom

    with pytest.raises(ValueError) as info:
        m.wrap_callback_error(fn, False)
    assert info.value is boom and not hasattr(boom, "__notes__")
    assert m.wrap_callback_error(lambda: None, True) is None


def test_a_note_refused_leaves_the_exception_as_raised(m):
    """An exception whose __notes__ is no list refuses add_note (TypeError): raised
    unchanged, with no other exception in its place."""
    boom = ValueError("no notes")
    boom.__notes__ = "not a list"

    def fn():
        raise boom

    with pytest.raises(ValueError) as info:
        m.wrap_callback_error(fn, True)
    assert info.value is boom and boom.__notes__ == "not a list"
    assert info.value.__context__ is None


# ---- Go values to Python: values holding themselves, keys of any scalar type ----------

SELFISH = ["map", "list", "deep", "pointer", "typed", "tuple"]
TOO_DEEP = "nested more than 100 deep (or a container holding itself)"


def test_a_go_value_holding_itself_raises_type_error_not_a_stack_overflow():
    """A map[string]any or []any holding itself (directly, deeper, through a pointer or a
    named type) reaching Python: an `any` result, a callback's argument, FromGo. Before:
    `fatal error: stack overflow`, the process aborted (so the calls run in a child)."""
    code = f"""
import sys; sys.path.insert(0, {folder("goext3")!r})
import goext3 as m
def check(f):
    try:
        f()
    except TypeError as e:
        assert {TOO_DEEP!r} in str(e), e
        assert str(e).count("item") <= 1 and str(e).count("'self'") <= 1, e  # one level named
        return
    raise AssertionError("no TypeError")
for how in {SELFISH!r}:
    check(lambda: m.selfish(how))
    check(lambda: m.selfish_to_callback(lambda x: None, how))
for how in ("map", "list", "deep", "tuple"):
    assert m.selfish_from_go(how) == "TypeError: cannot pass a Go value {TOO_DEEP} to Python"
assert m.selfish("none") is None
print("ok")
"""
    proc = run_python(code, timeout=120)
    assert proc.returncode == 0 and proc.stdout.split() == ["ok"], (
        f"child exited {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    )


def test_the_python_side_of_a_container_holding_itself_is_a_type_error_too(m):
    x: list = []
    x.append(x)
    for f in (m.echo_any, m.type_of):
        with pytest.raises(
            TypeError, match=rf": argument x: cannot convert .*{re.escape(TOO_DEEP)}"
        ):
            f(x)


@pytest.mark.parametrize(
    ("how", "want"),
    [
        ("int", {1: "one", 2: "two", 3: "three"}),
        ("uint8", {0: False, 255: True}),
        ("float", {0.5: 1, -2.0: 2}),
        ("bool", {True: "yes", False: "no"}),
        ("complex", {1 + 2j: 3}),
        ("any", {"s": 1, 2: "two", None: "none", 2.5: [{1: 1}]}),
        ("nested", {"inner": {-1: "minus one"}}),
    ],
)
def test_go_maps_keep_keys_of_every_scalar_type(m, how, want):
    """Before: every key became the str '<int Value>' and all entries but one were lost."""
    got = m.keyed(how)
    assert got == want
    assert {type(k) for k in got} == {type(k) for k in want}  # True == 1 == 1.0: types too


def test_go_map_keys_without_a_python_key_type_are_refused(m):
    for how, key in (("array", r"\[2\]int"), ("pointer", r"\*int"), ("any_array", r"\[2\]int")):
        with pytest.raises(TypeError, match=rf"^cannot pass a Go map.*its keys of type {key}"):
            m.keyed(how)
    # Distinct Go keys that are one Python key (int64(1), 1.0): refused, not one lost.
    with pytest.raises(ValueError, match=r"equals another of its keys as a dict key"):
        m.keyed("collide")


def test_go_maps_with_int_keys_as_callback_argument_and_result(m):
    seen = []
    assert m.keyed_to_callback(seen.append) is None
    assert seen == [{1: "one", 2: "two"}]
    assert m.int_keys() == {1: "one", 2: "two"}


# ---- lists whose __len__ lies ---------------------------------------------------------


def test_list_and_tuple_subclasses_whose_len_lies_convert_their_real_items():
    """A []T or an `any` parameter reads the list's own storage: __len__ is not asked.
    Before: a __len__ of 2**40 aborted the process (`fatal error: runtime: out of
    memory`), a raising or negative one was a RuntimeError "Go panic:
    reflect.MakeSlice: negative len" that lost the __len__'s own exception."""
    code = f"""
import sys; sys.path[:0] = [{folder("goext3")!r}, {folder("streamstats")!r}]
import goext3 as m, streamstats
class Huge(list):
    def __len__(self): return 2**40
class Raises(list):
    def __len__(self): raise KeyError("my __len__")
class Negative(tuple):
    def __len__(self): return -5
class Lies(list):
    def __len__(self): return 1
    def __getitem__(self, i): return 99.0
    def __iter__(self): return iter([99.0])
for cls in (Huge, Raises, Negative, Lies):
    x = cls([3.0, 1.0, 2.0])
    assert m.sorted_floats(x) == [1.0, 2.0, 3.0], cls
    assert m.echo_any(x) == [3.0, 1.0, 2.0], cls
    assert m.type_of(x) == "[]interface {{}}", cls
    assert streamstats.clip(x, 0.0, 2.5) == [2.5, 1.0, 2.0], cls
    assert m.lengths({{"k": cls(["a", "b"])}}) == {{"k": 2}}, cls
print("ok")
"""
    proc = run_python(code, timeout=120)
    assert proc.returncode == 0 and proc.stdout.split() == ["ok"], (
        f"child exited {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    )


def test_items_changed_by_an_items_own_code_do_not_change_the_walk(m):
    """The walk reads a list and a dict as they were when the conversion began (a
    snapshot): an item whose __index__ empties the list or the dict being converted
    changes nothing of the conversion. Before: the list's IndexError ("list index out
    of range") raised, the dict's remaining entries lost."""
    L: list = []
    D: dict = {}

    class Evil:
        def __init__(self, v):
            self.v = v

        def __index__(self):
            L.clear()
            D.clear()
            return self.v

    L[:] = [Evil(2), Evil(1), 3]
    assert m.fit_list(L) == "int8 [2 1 3]" and L == []
    D.update(a=Evil(1), b=2, c=Evil(3))
    t = m.Tally()
    t.counts = D
    assert t.counts == {"a": 1, "b": 2, "c": 3} and D == {}


# ---- overloads: an alternative that does not fit gives way ---------------------------


def test_overload_falls_through_alternatives_that_do_not_fit(m):
    """Before: fit(128) raised the int8 alternative's OverflowError; fit_list([300])
    the int8 list's; fit_tensor(float64) the float32 tensor's TypeError."""
    assert m.fit(1) == "int8 1"
    assert m.fit(-128) == "int8 -128"
    assert m.fit(128) == "int64 128"
    assert m.fit(2**63) == "float64 9.223372036854776e+18"
    assert m.fit(2**70).startswith("float64 1.18059162")
    assert m.fit(1.5) == "float64 1.5"
    assert m.fit_list([1, 2]) == "int8 [1 2]"
    assert m.fit_list([300]) == "int64 [300]"
    assert m.fit_list((1, 2**63)) == "float64 [1 9.223372036854776e+18]"
    assert m.fit_list([0.5]) == "float64 [0.5]"
    assert m.fit_tensor(np.ones(2, np.float32)) == "float32"
    assert m.fit_tensor(np.ones(2)) == "float64"
    bag = m.Bag(["a", "b"])
    assert m.fit_bag(bag, 1) == 3
    assert m.fit_bag(bag) == 2
    assert m.fit_bag() == -1 and m.fit_bag(None) == -1


def test_overload_none_fitting_lists_every_signature_with_python_types(m):
    """Each signature with why the arguments did not fit it: a dtype or a range that
    gives way to the next alternative is still named."""
    with pytest.raises(TypeError) as info:
        m.fit("x")
    assert str(info.value) == (
        "fit(): incompatible arguments. The supported signatures are:\n"
        "    1. fit(x: int)\n        argument x: expected an int, got str\n"
        "    2. fit(x: int)\n        argument x: expected an int, got str\n"
        "    3. fit(x: float)\n        argument x: expected a float, got str\n"
        "Invoked with types: str"
    )
    with pytest.raises(TypeError) as info:
        m.fit_list([1, "a"])
    assert (
        "    3. fit_list(xs: list[float])\n        argument xs: item 1: expected float, got str\n"
        in str(info.value)
    )
    with pytest.raises(TypeError) as info:
        m.fit_tensor(np.ones(2, np.int64))
    msg = str(info.value)
    assert "        argument x: expected a float32 tensor, got int64\n" in msg
    assert "        argument x: expected a float64 tensor, got int64\n" in msg
    assert msg.endswith("Invoked with types: numpy.ndarray")
    # A bound class by its Python name; "| None" only where None is taken (a Default of nil).
    with pytest.raises(TypeError) as info:
        m.fit_bag("x")
    msg = str(info.value)
    assert (
        "    1. fit_bag(bag: Bag, n: int)\n        fit_bag() missing required argument 'n'" in msg
    )
    assert (
        "    2. fit_bag(bag: Bag | None = None)\n        argument bag: expected Bag, got str\n"
        in msg
    )
    assert "main." not in msg
    assert "fit_bag(bag: Bag, n: int)" in m.fit_bag.__doc__


# ---- messages -------------------------------------------------------------------------


def test_any_parameter_given_a_lone_surrogate_raises_unicode_encode_error(m):
    """Before: TypeError "echo_any(): argument x: python exception set"."""
    for x in ("\ud800", ["ok", "\udfff"], {"\ud800": 1}, {"k": "\ud800"}):
        with pytest.raises(UnicodeEncodeError) as info:
            m.echo_any(x)
        assert info.value.reason == "surrogates not allowed"
    with pytest.raises(UnicodeEncodeError):
        m.lengths({"\ud800": []})  # a dict[str, ...] key


def test_narrow_int_beyond_int64_names_its_own_range(m):
    """Before: "int too large for int64" for an int8 parameter."""
    args = [0] * 8
    for i, name, rng in ((0, "i8", "int8 (-128 to 127)"), (4, "u16", "uint16 (0 to 65535)")):
        for v in (2**70, -(2**70)):
            a = list(args)
            a[i] = v
            with pytest.raises(OverflowError) as info:
                m.widths(*a)
            assert str(info.value) == f"widths(): argument {name}: int out of range for {rng}"
    a = list(args)
    a[0] = 128
    with pytest.raises(
        OverflowError,
        match=r"^widths\(\): argument i8: 128 is out of range for int8 \(-128 to 127\)$",
    ):
        m.widths(*a)


def test_missing_keyword_only_argument_says_keyword_only(m):
    assert m.kwreq(1, b=2) == 3
    with pytest.raises(TypeError) as info:
        m.kwreq(1)
    assert str(info.value) == "kwreq() missing required keyword-only argument 'b'"
    with pytest.raises(TypeError, match=r"^kwreq\(\) missing required argument 'a' \(pos 1\)$"):
        m.kwreq(b=1)


def test_float_parameter_given_an_int_beyond_a_double_has_the_argument_prefix(m):
    """Before: "int too large to convert to float", with the argument only in a note."""
    with pytest.raises(OverflowError) as info:
        m.f32(10**400)
    assert str(info.value) == "f32(): argument x: int too large to convert to float"
    assert not getattr(info.value, "__notes__", None)


# ---- ResultLike / ResultIn with an error or a read-only result -------------------------


def frameworks_inputs():
    import godlpack as g
    import jax.numpy as jnp
    import torch

    return {
        "torch-int64": torch.ones(2, dtype=torch.int64),
        "torch-bfloat16": torch.ones(2, dtype=torch.bfloat16),
        "jax-int32": jnp.ones(2, dtype=jnp.int32),
        "godlpack-float16": g.ones(2, dtype="float16"),
        "numpy-int64": np.ones(2, np.int64),
    }


@pytest.mark.parametrize(
    "name", ["torch-int64", "torch-bfloat16", "jax-int32", "godlpack-float16", "numpy-int64"]
)
def test_result_like_error_raises_the_functions_type_error(m, name):
    """Before: SystemError "returned NULL without setting an exception" for every input
    but NumPy's (the call's TypeError was cleared while x's framework was looked up)."""
    import torch

    x = frameworks_inputs()[name]
    with pytest.raises(TypeError, match=r"^scale\(\): argument x: expected a float32 or float64"):
        load("streamstats").scale(x, 2.0)  # the same ResultLike("x"), in the example
    with pytest.raises(
        TypeError, match=r"^scaled_like\(\): argument x: expected a float32 or float64 tensor, got "
    ):
        m.scaled_like(x, 2.0)
    # The function's own error (x float32: not taken by its Go code) too.
    for y in (np.ones(2, np.float32), torch.ones(2, dtype=torch.float32)):
        with pytest.raises(TypeError, match=r"^scaled_like\(\): x must be float64, got float32$"):
            m.scaled_like(y, 2.0)
    assert torch.equal(
        m.scaled_like(torch.ones(2, dtype=torch.float64), 2.0),
        torch.full((2,), 2.0, dtype=torch.float64),
    )


def _jax_imports_read_only() -> bool:
    """Whether this JAX imports a read-only array: from 0.12 its from_dlpack asks for a
    versioned capsule, whose read-only flag it honours by copying; before, it asked for a
    legacy capsule, which has no such flag, and the export refuses."""
    import jax

    a = godlpack.asarray(np.arange(3.0)).toreadonly()
    try:
        jax.dlpack.from_dlpack(a)
    except BufferError:
        return False
    return True


@pytest.mark.heavy  # godlpack imports JAX to make the result (tests/_tiers.py cannot see)
def test_read_only_result_to_jax_says_so(m):
    """A read-only result in JAX: where JAX cannot import read-only arrays (a legacy
    capsule, which has no read-only flag), the error says that the result is read-only
    and JAX cannot import it (no copy is made); where it can (a versioned capsule), the
    result is JAX's copy of it. Before: BufferError "__dlpack__: ... pass
    max_version=(1, 0) or later", of a call the caller never made."""
    import jax

    if _jax_imports_read_only():
        r = m.read_only_like(np.arange(3.0))
        assert isinstance(r, jax.Array) and r.tolist() == [0.0, 1.0, 2.0]
        return
    with pytest.raises(BufferError) as info:
        m.read_only_like(np.ones(3))
    msg = str(info.value)
    assert msg.startswith(
        "read_only_like(): the result is read-only, and JAX cannot import a read-only array"
    )
    assert "no copy is made" in msg and "max_version" not in msg


def test_typed_callbacks_take_no_reflection(m):
    """func(int64) (float64, error), func(int64, *tensor.Tensor) (float64, error) and
    func(*tensor.Tensor) error are Go funcs of godlpack's own (no reflect.MakeFunc per
    call); a func type it does not list (func(string) (string, error)) still works
    through reflection."""
    impls = m.callback_impls(lambda i: 0.5, lambda i, r: 0.5, lambda t: None, lambda s: s)
    assert impls == ["typed", "typed", "typed", "reflect"]
    assert m.float_of_int(lambda i: i * 0.5, 3) == 1.5
    assert m.int_of_int(lambda i: i + 1, 41) == 42
    assert m.str_of_str(lambda s: s + "!", "go") == "go!"
    seen = []

    def row(i, t):
        seen.append(np.from_dlpack(t).tolist())
        return i + 0.25

    assert m.float_of_row(row, 2, [1.0, 2.0]) == 2.25 and seen == [[1.0, 2.0]]


def test_callback_tensor_arguments_on_every_path(m):
    """A tensor argument of a callback crosses exported (gd_cb_fast makes its Array
    with the call, in one crossing); from another goroutine, the general path makes
    it under the GIL. Either way the Array owns it, and the producer it holds lives
    exactly until the callable lets the Array go; the callable's exception is raised
    again; one that cannot be exported is refused before any call."""
    import weakref

    x = np.arange(3.0)
    alive = weakref.ref(x)
    seen = []

    def row(i, t):
        seen.append((i, np.from_dlpack(t).tolist()))
        return 2.5

    assert m.row_elsewhere(row, x) == 2.5 and seen == [(1, [0.0, 1.0, 2.0])]
    del x
    gc.collect()
    assert alive() is None, "the kept tensor outlived its callback"
    boom = KeyError("k")

    def bad(i, t):
        raise boom

    with pytest.raises(KeyError) as info:
        m.row_elsewhere(bad, np.arange(2.0))
    assert info.value is boom
    called = []
    with pytest.raises(
        ValueError, match=r"^closed_row\(\): callback fn: argument 1: tensor: use of a closed"
    ):
        m.closed_row(lambda i, t: called.append(i) or 0.0)
    assert called == []


def test_callback_tensor_arguments_in_the_functions_framework(m):
    """A function's callbacks get its tensors in the framework its results are in
    (ResultLike, ResultIn), on each path: the call's thread (one crossing), another
    goroutine's (under the GIL), more arguments than a frame holds (a tuple); zero-copy,
    a godlpack.Array where the argument is of no known framework."""
    import weakref

    seen = []

    def row(i, t):
        seen.append((type(t), np.asarray(t).tolist()))
        return 1.5

    x = np.arange(3.0)
    for f in (m.row_here_like, m.row_elsewhere_like):
        seen.clear()
        assert f(row, x) == 1.5
        assert seen == [(np.ndarray, [0.0, 1.0, 2.0])], f
        assert f(row, godlpack.asarray(x)) == 1.5
        assert seen[-1] == (godlpack.Array, [0.0, 1.0, 2.0]), f
    # The NumPy array a callback gets owns the tensor: its producer (x, kept by Keep)
    # lives until the array goes, then is released (the capsule that is its base runs
    # the tensor's deleter). Made on the call's thread: one made on a goroutine's thread
    # is freed, on a free-threaded CPython, only once that thread merges its references
    # (biased reference counting), which a thread parked in Go does later.
    for f in (m.row_here_like,):
        x = np.arange(3.0)
        alive = weakref.ref(x)
        got: list = []
        f(lambda i, t, got=got: got.append(t) or 0.0, x)
        del x
        gc.collect()
        assert alive() is not None and got[0].tolist() == [0.0, 1.0, 2.0], f
        got.clear()
        gc.collect()
        assert alive() is None, f"{f}: the callback's array did not release its tensor"
    kept = []

    def five(*rows):
        kept.extend(rows)

    m.five_rows_in_numpy(five)
    assert [type(r) for r in kept] == [np.ndarray] * 5
    assert [r.tolist() for r in kept] == [[0.0], [1.0], [2.0], [3.0], [4.0]]
    assert m.row_elsewhere(row, np.arange(3.0)) == 1.5 and seen[-1][0] is godlpack.Array  # no fw


def test_typed_callbacks_convert_and_raise_as_reflective_ones(m):
    """The typed path converts results with the same rules (an int or a float
    subclass for a float; bool refused for an int) and the same messages, and an
    exception the callable raises is raised again, the same object."""

    class F(float):
        pass

    assert m.float_of_int(lambda i: 7, 0) == 7.0
    assert m.float_of_int(lambda i: F(1.5), 0) == 1.5
    with pytest.raises(
        TypeError, match=r"^float_of_int\(\): the result of callback fn: expected float, got str$"
    ):
        m.float_of_int(lambda i: "x", 0)
    with pytest.raises(OverflowError, match=r"^float_of_int\(\): the result of callback fn: "):
        m.float_of_int(lambda i: 10**400, 0)
    with pytest.raises(TypeError, match=r"^int_of_int\(\): the result of callback fn: "):
        m.int_of_int(lambda i: 1.5, 0)
    with pytest.raises(
        TypeError, match=r"^str_of_str\(\): the result of callback fn: expected str, got int$"
    ):
        m.str_of_str(lambda s: 3, "x")
    boom = KeyError("k")

    def bad(i, t=None):
        raise boom

    for call in (lambda: m.float_of_int(bad, 1), lambda: m.float_of_row(bad, 1, [1.0])):
        with pytest.raises(KeyError) as info:
            call()
        assert info.value is boom
    with pytest.raises(TypeError, match=r"takes 0 positional arguments but 1 was given"):
        m.float_of_int(lambda: 1.0, 0)
