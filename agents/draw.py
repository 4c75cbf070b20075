"""Uniform integers below a bound from a numpy Generator, exactly as `int(rng.integers(n))`
draws them: the search agents draw one at almost every step (a search copy's seed, a rollout
action, a tie), and `Generator.integers` spends most of its time on its arguments.

`randbelow` is the compiled helper where `pip install -e .` built it (`agents/_draw.pyx`: it
calls the function of numpy's random C API that `Generator.integers` calls for one integer,
on the same bit generator, so it draws the same numbers and moves the generator as far),
else `int(rng.integers(n))`. On import the helper is checked against `Generator.integers`
over a range of bounds and is not used if any draw differs (a numpy whose bounded integers
changed after the build). `PLAYSTYLES_PURE_PYTHON=1` uses Python (`base.compiled`).
"""

from __future__ import annotations

import numpy as np

from base.compiled import pure_python_requested


def _randbelow(rng: np.random.Generator, n: int) -> int:
    return int(rng.integers(n))


_CHECK_BOUNDS = (1, 2, 3, 7, 10, 37, 100, 1000, (1 << 32) - 1, 1 << 32, (1 << 32) + 1, 1 << 48,
                 (1 << 62) + 3)


def agrees(fn, seeds: int = 4, draws: int = 8) -> bool:
    """Whether `fn(rng, n)` draws what `Generator.integers` draws, and leaves the generator
    where it leaves it, for every bound of `_CHECK_BOUNDS`."""
    for seed in range(seeds):
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        for n in _CHECK_BOUNDS:
            for _ in range(draws):
                if fn(a, n) != int(b.integers(n)):
                    return False
        if a.random() != b.random():
            return False
    return True


def _pick():
    if pure_python_requested():
        return _randbelow, False
    try:
        from agents._draw import randbelow as fast
    except ImportError:  # not built: Python
        return _randbelow, False
    if not agrees(fast):
        return _randbelow, False
    return fast, True


randbelow, compiled = _pick()
"""`randbelow(rng, n)`: `int(rng.integers(n))`; `compiled`: whether the helper draws them."""
