"""`agents.draw`: the integers `Generator.integers` draws, the permutations
`Generator.permutation` draws and the floats `Generator.random` draws, whichever
implementation is in use (the compiled helpers where they were built)."""

from __future__ import annotations

import importlib.machinery
import os
from pathlib import Path

import numpy as np
import pytest

from agents import draw
from base.compiled import PURE_PYTHON

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_randbelow_draws_what_integers_draws_and_moves_the_generator_as_far(seed):
    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    bounds = [1, 2, 3, 5, 9, 16, 17, 66, 255, 1000, 65_537, (1 << 31) - 1, 1 << 32,
              (1 << 32) + 7, 1 << 48, (1 << 63) - 2]
    for i in range(2_000):
        n = bounds[i % len(bounds)]
        got = draw.randbelow(a, n)
        assert type(got) is int and got == int(b.integers(n)), (i, n)
    assert a.random() == b.random()


def test_randbelow_refuses_what_integers_refuses():
    for n in (0, -3):
        with pytest.raises(ValueError):
            draw.randbelow(np.random.default_rng(0), n)


def test_the_check_catches_a_helper_that_draws_other_numbers():
    assert draw.agrees(draw.randbelow)
    assert not draw.agrees(lambda rng, n: int(rng.integers(n)) if n < 1000 else 0)
    assert not draw.agrees(lambda rng, n: int(rng.integers(n)) + (n > 5 and rng.random() > 2))
    # one extra draw per call: the same first numbers are not enough, the stream must agree
    assert not draw.agrees(lambda rng, n: (int(rng.integers(n)), rng.random())[0])


@pytest.mark.parametrize("seed", [0, 7, 2024])
def test_permutation_draws_what_numpy_draws_and_moves_the_generator_as_far(seed):
    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    for n in [0, 1, 2, 3, 4, 6, 11, 31, 64, 100, 121, 500, 4_097] * 3:
        got = draw.permutation(a, n)
        assert type(got) is list and all(type(i) is int for i in got)
        assert got == b.permutation(n).tolist(), n
        assert a.random() == b.random()  # interleaved with other draws


def test_permutation_of_a_negative_size_is_numpy_s():
    a, b = np.random.default_rng(3), np.random.default_rng(3)
    assert draw.permutation(a, -2) == b.permutation(-2).tolist() == []
    assert a.random() == b.random()


def test_the_permutation_check_catches_a_helper_that_draws_another():
    assert draw.permutation_agrees(draw.permutation)
    assert not draw.permutation_agrees(lambda rng, n: rng.permutation(n).tolist()[::-1])
    assert not draw.permutation_agrees(lambda rng, n: sorted(rng.permutation(n).tolist()))
    assert not draw.permutation_agrees(
        lambda rng, n: (rng.permutation(n).tolist(), rng.random())[0])


@pytest.mark.parametrize("seed", [0, 5, 99])
def test_uniform_draws_what_random_draws(seed):
    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    for i in range(3_000):
        got = draw.uniform(a)
        assert type(got) is float and got == b.random(), i
        if i % 7 == 0:  # interleaved with other draws
            assert draw.randbelow(a, 10 + i) == int(b.integers(10 + i))


def test_the_uniform_check_catches_a_helper_that_draws_another():
    assert draw.uniform_agrees(draw.uniform)
    assert not draw.uniform_agrees(lambda rng: 1.0 - rng.random())
    assert not draw.uniform_agrees(lambda rng: (rng.random(), rng.random())[1])
    assert not draw.uniform_agrees(lambda rng: float(np.float32(rng.random())))


def test_the_compiled_helper_is_used_where_it_was_built():
    built = any((ROOT / "agents" / f"_draw{s}").is_file()
                for s in importlib.machinery.EXTENSION_SUFFIXES)
    if not built or os.environ.get(PURE_PYTHON) == "1":
        assert not draw.compiled
        pytest.skip("the helper is not built here (or Python is asked for): Python draws")
    assert draw.compiled
