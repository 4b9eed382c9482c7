"""examples/streamstats's *args, **kwargs and dtype overloads (the Go declarations a Go
developer writes for them: a variadic Go function, a "**name" map[string]T parameter,
one typed Go function per dtype under godlpack.Overload): merged(*hists) merges its
Histograms into a new one, set_tags(**tags) keeps str values read back by the read-only
tags property. Built with godlpack's build backend (goext_build), as pip builds it."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from goext_build import load


@pytest.fixture(scope="module")
def ss():
    return load("streamstats")


def _hist(ss, values, bins=4):
    h = ss.Histogram(bins)
    h.add(np.asarray(values, dtype=np.float64))
    return h


def test_merged_sums_all_its_arguments_into_a_new_histogram(ss):
    a, b, c = _hist(ss, [0.1, 0.6]), _hist(ss, [0.1, 2.0]), _hist(ss, [0.9])
    m = ss.merged(a, b, c)
    assert isinstance(m, ss.Histogram) and m is not a
    assert m.counts().tolist() == [2, 0, 1, 1]
    assert (m.count, m.outside, m.bins, m.lo, m.hi) == (5, 1, 4, 0.0, 1.0)
    assert a.counts().tolist() == [1, 0, 1, 0]  # the arguments are left as they were
    one = ss.merged(a)
    assert one is not a and one.counts().tolist() == a.counts().tolist()
    assert ss.merged(a, a).counts().tolist() == [2, 0, 2, 0]
    assert ss.merged(*[a] * 20).count == 40  # any number: past the call's 16 on the stack


def test_merged_needs_at_least_one(ss):
    with pytest.raises(TypeError, match=r"merged\(\) takes at least one Histogram"):
        ss.merged()


def test_merged_refuses_different_bins_lo_hi(ss):
    a = ss.Histogram(4)
    for other, what in [
        (ss.Histogram(5), "bins=5"),
        (ss.Histogram(4, lo=-1.0), "lo=-1"),
        (ss.Histogram(4, hi=2.0), "hi=2"),
    ]:
        with pytest.raises(ValueError, match=rf"merged\(\): hists\[1\] has .*{what}.* hists\[0\]"):
            ss.merged(a, other)


@pytest.mark.parametrize("bad", [3, None, "h", np.zeros(3)])
def test_merged_names_the_argument_that_is_no_histogram(ss, bad):
    a = ss.Histogram(4)
    with pytest.raises(
        TypeError, match=r"merged\(\): argument hists\[2\]: expected Histogram, got "
    ):
        ss.merged(a, a, bad)


def test_merged_takes_no_keywords(ss):
    with pytest.raises(TypeError, match=r"merged\(\) got an unexpected keyword argument 'hists'"):
        ss.merged(hists=ss.Histogram(4))


def test_merged_signature_and_doc(ss):
    assert str(inspect.signature(ss.merged)) == "(*hists)"
    assert "A new Histogram with the counts of all its arguments" in ss.merged.__doc__


def test_set_tags_stores_str_values_read_back_by_tags(ss):
    h = ss.Histogram(4)
    assert h.tags == {}
    assert h.set_tags(site="a", run="7") is None
    h.set_tags(run="8", note="")
    tags = h.tags
    assert tags == {"site": "a", "run": "8", "note": ""} and type(tags) is dict
    tags["x"] = "y"  # a copy: the histogram's are its own
    assert "x" not in h.tags
    h.set_tags()  # no keywords: nothing changes
    h.set_tags(**{"not an identifier": "v"})  # any str key
    assert h.tags["not an identifier"] == "v"
    with pytest.raises(TypeError, match=r"got multiple values for argument 'self'"):
        h.set_tags(self="s")  # as a Python method's def set_tags(self, **tags)


@pytest.mark.parametrize("bad", [1, 2.5, None, b"x", ["a"]])
def test_set_tags_non_str_value_names_the_key(ss, bad):
    h = ss.Histogram(4)
    with pytest.raises(
        TypeError, match=r"set_tags\(\): argument tags: key 'run': expected str, got "
    ):
        h.set_tags(site="a", run=bad)
    assert h.tags == {}  # nothing stored when one value is refused


def test_set_tags_takes_no_positional_argument(ss):
    with pytest.raises(
        TypeError, match=r"set_tags\(\) takes 1 positional argument but 2 were given"
    ):
        ss.Histogram(4).set_tags({"a": "b"})


def test_tags_is_read_only(ss):
    h = ss.Histogram(4)
    with pytest.raises(AttributeError):
        h.tags = {}
    with pytest.raises(AttributeError):
        del h.tags


def test_set_tags_signature(ss):
    assert str(inspect.signature(ss.Histogram.set_tags)) == "(self, **tags)"


# total(x): three typed Go functions under one name, told apart by x's dtype alone.
TOTAL_CASES = [(np.float32, float, 6.0), (np.float64, float, 6.0), (np.int64, int, 6)]


def _producers(values, dtype):
    import godlpack as g
    import torch

    a = np.asarray(values, dtype=dtype)
    return {
        "numpy": a,
        "torch": torch.from_numpy(a.copy()),
        "godlpack": g.asarray(a),
        "capsule": a.copy().__dlpack__(),  # imported once for all three alternatives
    }


@pytest.mark.parametrize("dtype,kind,want", TOTAL_CASES, ids=lambda c: getattr(c, "__name__", ""))
@pytest.mark.parametrize("name", ["numpy", "torch", "godlpack", "capsule"])
def test_total_dispatches_on_the_dtype(ss, dtype, kind, want, name):
    x = _producers([1, 2, 3], dtype)[name]
    got = ss.total(x)
    assert type(got) is kind and got == want


def test_total_of_any_layout_and_by_keyword(ss):
    x = np.arange(12, dtype=np.float64).reshape(3, 4)[::2, ::-1]
    assert ss.total(x=x) == float(x.sum())
    assert ss.total(np.zeros(0, np.int64)) == 0
    big = np.full(3, 2**62, np.int64)
    assert ss.total(big[:1]) == 2**62  # an int64 sum, exact


@pytest.mark.parametrize("name", ["numpy", "torch", "godlpack", "capsule"])
def test_total_of_another_dtype_lists_the_three_signatures(ss, name):
    x = _producers([1, 2, 3], np.int32)[name]
    with pytest.raises(TypeError) as info:
        ss.total(x)
    msg = str(info.value)
    assert msg.startswith("total(): incompatible arguments. The supported signatures are:\n")
    for i, dt in enumerate(["float32", "float64", "int64"], 1):
        assert f"    {i}. total(x: SupportsDLPack[{dt}])\n" in msg
        assert f"argument x: expected a {dt} tensor, got int32" in msg
    shown = msg.rsplit("\nInvoked with types: ", 1)[1]
    assert shown.endswith(type(x).__name__)  # the capsule passed, not the Array made of it


def test_total_refuses_what_is_no_tensor(ss):
    with pytest.raises(TypeError, match=r"total\(\): incompatible arguments") as info:
        ss.total("x")
    assert "expected a tensor (a DLPack producer or capsule), got str" in str(info.value)
    used = np.zeros(2).__dlpack__()
    ss.total(used)
    with pytest.raises(ValueError, match="already consumed"):  # a capsule imports once
        ss.total(used)


def test_total_doc_lists_the_alternatives(ss):
    doc = ss.total.__doc__
    assert "1. total(x: SupportsDLPack[float32])" in doc
    assert "The sum of an int64 tensor's elements, an int." in doc
