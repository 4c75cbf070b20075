"""Named level sets and deterministic train/held-out splits, for every game.

Experiments refer to levels by id (for Tribes a generator seed, for games without levels a
set-up seed the game may ignore); naming the sets keeps configs short. A set name is one of:

* a name the game registers (Tribes: ``paper``, the 25 level seeds of the published
  experiments, in their published order);
* ``seeds:1,2,3`` - an explicit list;
* ``range:100-120`` - consecutive seeds, both ends included.
"""

from __future__ import annotations

import math
import re
from typing import Any, Mapping, Sequence

import numpy as np

from base.limits import short

__all__ = ["level_set", "split"]

_RANGE = re.compile(r"^\s*(-?\d+)\s*-\s*(-?\d+)\s*$")
_MAX_RANGE = 1_000_000  # guards against typos such as "range:1-10000000000"


def _parse_int(text: str, name: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ValueError(f"level set {short(name)}: {short(text.strip())} is not an integer seed") from None


def level_set(name: str, named: Mapping[str, Sequence[Any]] | None = None) -> list[Any]:
    """The levels of a set given by a registered name (`named`), ``seeds:a,b,...`` or
    ``range:lo-hi``."""
    named = named or {}
    if not isinstance(name, str):
        raise ValueError(f"level set: a name expected, got {short(name)}")
    key = name.strip()
    if key in named:
        return list(named[key])
    kind, sep, body = key.partition(":")
    kind = kind.strip().lower()
    if sep and kind == "seeds":
        parts = [p for p in body.split(",") if p.strip()]
        if not parts:
            raise ValueError(f"level set {short(name)}: no seeds after 'seeds:'")
        seeds = [_parse_int(p, name) for p in parts]
        dup = sorted({s for s in seeds if seeds.count(s) > 1})
        if dup:
            raise ValueError(f"level set {short(name)}: repeated seeds {dup}")
        return seeds
    if sep and kind == "range":
        m = _RANGE.match(body)
        if m is None:
            raise ValueError(f"level set {short(name)}: expected 'range:LO-HI' with integer ends "
                             f"(both included)")
        lo, hi = int(m.group(1)), int(m.group(2))
        if hi < lo:
            raise ValueError(f"level set {short(name)}: empty range ({hi} < {lo})")
        if hi - lo + 1 > _MAX_RANGE:
            raise ValueError(f"level set {short(name)}: {hi - lo + 1} seeds, more than {_MAX_RANGE}")
        return list(range(lo, hi + 1))
    known = ", ".join(sorted(named)) + ", " if named else ""
    raise ValueError(f"unknown level set {short(name)}; known: {known}"
                     f"'seeds:1,2,3', or 'range:100-120'")


def split(seeds: Sequence[Any], held_out: int | float, seed: int) -> tuple[list[Any], list[Any]]:
    """Split levels into disjoint ``(train, held_out)`` lists, reproducibly.

    ``held_out`` is a count (int) or a fraction in ``[0, 1]`` (float, rounded half up).
    The choice depends only on the levels, ``held_out`` and ``seed``; both parts keep the
    input order, so reordering the results never hides a different split.
    """
    seeds = list(seeds)
    n = len(seeds)
    if len(set(seeds)) != n:
        raise ValueError("split needs distinct seeds (a repeated seed could land on both sides)")
    numeric = (int, float, np.integer, np.floating)
    if isinstance(held_out, bool) or not isinstance(held_out, numeric):
        raise TypeError(f"held_out must be an int count or a float fraction, got {short(held_out)}")
    if isinstance(held_out, (float, np.floating)):
        if not 0.0 <= held_out <= 1.0 or math.isnan(held_out):
            raise ValueError(f"held-out fraction must be in [0, 1], got {held_out}")
        k = math.floor(held_out * n + 0.5)
    else:
        k = int(held_out)
        if not 0 <= k <= n:
            raise ValueError(f"held-out count must be in 0..{n}, got {k}")
    chosen = set(np.random.default_rng(seed).permutation(n)[:k].tolist())
    train = [s for i, s in enumerate(seeds) if i not in chosen]
    test = [s for i, s in enumerate(seeds) if i in chosen]
    return train, test
