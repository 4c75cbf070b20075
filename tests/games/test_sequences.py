"""`games.sequences.contains`: the answer of `in`, whichever implementation is in use."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from games.sequences import contains

actions = st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(-1, 3), st.integers(-1, 1))


@given(st.lists(actions, max_size=30), actions)
def test_contains_answers_as_in_for_equal_objects(seq, x):
    assert contains(x, seq) == (x in seq)
    assert contains(x, tuple(seq)) == (x in seq)


@given(st.lists(actions, min_size=1, max_size=30), st.data())
def test_contains_finds_an_element_itself(seq, data):
    x = seq[data.draw(st.integers(0, len(seq) - 1))]
    assert contains(x, seq) and contains(x, tuple(seq))


def test_identity_first_then_equality():
    nan = math.nan
    assert contains(nan, [1.0, nan])  # NaN is never equal, but it is the same object
    assert not contains(math.nan + 0, [1.0, nan])  # another NaN: `in` says no as well
    assert contains((1, 2), [(0, 0), (1, 2)])  # an equal tuple, not the same object
    assert not contains((1, 2), [])
    assert contains(3, {3: "a"}) and not contains(4, {3: "a"})  # any container `in` takes
