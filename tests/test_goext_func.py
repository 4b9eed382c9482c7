"""godlpack.Func (issue 20): a Go function of any arity and signature bound by
reflection. tests/goext3 binds one function per point: more than four (and more
than eight) parameters, keyword-only ones, every Go integer width with CPython's
OverflowError out of range, float32, complex, bytes, lists, dicts, *T optionals,
any and *godlpack.Object, several results (a tuple), functions returning only an
error or nothing."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from goext_build import load


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
