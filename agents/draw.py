"""Uniform integers below a bound, permutations and uniform floats from a numpy Generator,
exactly as `int(rng.integers(n))`, `rng.permutation(n).tolist()` and `rng.random()` draw
them: the search agents draw an integer at almost every step (a search copy's seed, a
rollout action, a tie), a permutation at every node they open and a float at every tie of a
script, and `Generator` spends most of its time on its arguments and arrays.

`randbelow`, `permutation` and `uniform` are the compiled helpers where `pip install -e .`
built them (`agents/_draw.pyx`: they call the functions of numpy's random C API that
`Generator.integers`, `Generator.shuffle` and `Generator.random` call, on the same bit
generator, so they draw the same numbers and move the generator as far), else numpy's. On
import the helpers are checked against numpy's over a range of bounds and are not used if any
draw differs (a numpy whose draws changed after the build). `PLAYSTYLES_PURE_PYTHON=1` uses
Python (`base.compiled`).
"""

from __future__ import annotations

import numpy as np

from base.compiled import pure_python_requested


def _randbelow(rng: np.random.Generator, n: int) -> int:
    return int(rng.integers(n))


def _permutation(rng: np.random.Generator, n: int) -> list[int]:
    return rng.permutation(n).tolist()


def _uniform(rng: np.random.Generator) -> float:
    return rng.random()


_CHECK_BOUNDS = (1, 2, 3, 7, 10, 37, 100, 1000, (1 << 32) - 1, 1 << 32, (1 << 32) + 1, 1 << 48,
                 (1 << 62) + 3)


def _agrees_with(fn, numpy_draw, args: list[tuple], seeds: int) -> bool:
    """Whether `fn(rng, *x)` draws what `numpy_draw(rng, *x)` draws for each `x` of `args` in
    turn, from `seeds` seeds, and leaves the generator where numpy leaves it."""
    for seed in range(seeds):
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        for x in args:
            if fn(a, *x) != numpy_draw(b, *x):
                return False
        if a.random() != b.random():
            return False
    return True


def agrees(fn, seeds: int = 4, draws: int = 8) -> bool:
    """Whether `fn(rng, n)` draws what `Generator.integers` draws, and leaves the generator
    where it leaves it, `draws` times for every bound of `_CHECK_BOUNDS`."""
    return _agrees_with(fn, _randbelow, [(n,) for n in _CHECK_BOUNDS for _ in range(draws)],
                        seeds)


_CHECK_SIZES = (0, 1, 2, 3, 5, 8, 13, 40, 257, 1000)


def permutation_agrees(fn, seeds: int = 4) -> bool:
    """Whether `fn(rng, n)` draws the list `Generator.permutation` draws, and leaves the
    generator where it leaves it, for every size of `_CHECK_SIZES`."""
    return _agrees_with(fn, _permutation, [(n,) for n in _CHECK_SIZES], seeds)


def uniform_agrees(fn, seeds: int = 4, draws: int = 64) -> bool:
    """Whether `fn(rng)` draws the `draws` floats `Generator.random` draws, and leaves the
    generator where it leaves it."""
    return _agrees_with(fn, _uniform, [()] * draws, seeds)


_PYTHON = (_randbelow, _permutation, _uniform, False)


def _pick():
    if pure_python_requested():
        return _PYTHON
    try:
        from agents._draw import permutation as fast_permutation
        from agents._draw import randbelow as fast
        from agents._draw import uniform as fast_uniform
    except ImportError:  # not built (or built before one of them): Python
        return _PYTHON
    if not (agrees(fast) and permutation_agrees(fast_permutation)
            and uniform_agrees(fast_uniform)):
        return _PYTHON
    return fast, fast_permutation, fast_uniform, True


randbelow, permutation, uniform, compiled = _pick()
"""`randbelow(rng, n)`: `int(rng.integers(n))`; `permutation(rng, n)`:
`rng.permutation(n).tolist()`; `uniform(rng)`: `rng.random()`; `compiled`: whether the
helpers draw them."""
