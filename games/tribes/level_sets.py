"""Named sets of Tribes level seeds, and deterministic train/held-out splits.

Experiments refer to maps by level seed; naming the sets keeps configs short and makes
"the same maps as the published experiments" a single word. A set name is one of:

* a registered name, e.g. ``paper`` (the 25 level seeds of the published Tribes
  experiments, in their published order);
* ``seeds:1,2,3`` - an explicit list;
* ``range:100-120`` - consecutive seeds, both ends included.
"""

from __future__ import annotations

import math
import re
from typing import Iterable, Sequence

import numpy as np

from .level import Level
from .levelgen import generate_level

__all__ = ["PAPER_SEEDS", "LEVEL_SETS", "level_set", "split", "levels_for"]

PAPER_SEEDS: tuple[int, ...] = (
    1590191438878, 1590791907337, 1591330872230, 1590557911279, 1589827394219,
    1590597667781, 1588955551452, 1588591994323, 1590218550448, 1592282275322,
    1592432219672, 1590938785410, 1589359308213, 1591528602817, 1592393638354,
    1588485987095, 1588564020405, 1589717827778, 1592435145738, 1592040799152,
    1588965819946, 1589014941900, 1590182659177, 1590912178111, 1588407146837,
)
"""The level seeds of the published Tribes experiments, in published order."""

LEVEL_SETS: dict[str, tuple[int, ...]] = {
    "paper": PAPER_SEEDS,
}
"""Registered set names -> seeds."""

_RANGE = re.compile(r"^\s*(-?\d+)\s*-\s*(-?\d+)\s*$")
_MAX_RANGE = 1_000_000  # guards against typos such as "range:1-10000000000"


def _parse_int(text: str, name: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ValueError(f"level set {name!r}: {text.strip()!r} is not an integer seed") from None


def level_set(name: str) -> list[int]:
    """The seeds of a level set given by name, ``seeds:a,b,...`` or ``range:lo-hi``."""
    key = name.strip()
    if key in LEVEL_SETS:
        return list(LEVEL_SETS[key])
    kind, sep, body = key.partition(":")
    kind = kind.strip().lower()
    if sep and kind == "seeds":
        parts = [p for p in body.split(",") if p.strip()]
        if not parts:
            raise ValueError(f"level set {name!r}: no seeds after 'seeds:'")
        seeds = [_parse_int(p, name) for p in parts]
        dup = sorted({s for s in seeds if seeds.count(s) > 1})
        if dup:
            raise ValueError(f"level set {name!r}: repeated seeds {dup}")
        return seeds
    if sep and kind == "range":
        m = _RANGE.match(body)
        if m is None:
            raise ValueError(f"level set {name!r}: expected 'range:LO-HI' with integer ends "
                             f"(both included)")
        lo, hi = int(m.group(1)), int(m.group(2))
        if hi < lo:
            raise ValueError(f"level set {name!r}: empty range ({hi} < {lo})")
        if hi - lo + 1 > _MAX_RANGE:
            raise ValueError(f"level set {name!r}: {hi - lo + 1} seeds, more than {_MAX_RANGE}")
        return list(range(lo, hi + 1))
    known = ", ".join(sorted(LEVEL_SETS))
    raise ValueError(f"unknown level set {name!r}; known: {known}, "
                     f"or 'seeds:1,2,3', or 'range:100-120'")


def split(seeds: Sequence[int], held_out: int | float, seed: int) -> tuple[list[int], list[int]]:
    """Split seeds into disjoint ``(train, held_out)`` lists, reproducibly.

    ``held_out`` is a count (int) or a fraction in ``[0, 1]`` (float, rounded half up).
    The choice depends only on the seeds, ``held_out`` and ``seed``; both parts keep the
    input order, so reordering the results never hides a different split.
    """
    seeds = list(seeds)
    n = len(seeds)
    if len(set(seeds)) != n:
        raise ValueError("split needs distinct seeds (a repeated seed could land on both sides)")
    numeric = (int, float, np.integer, np.floating)
    if isinstance(held_out, bool) or not isinstance(held_out, numeric):
        raise TypeError(f"held_out must be an int count or a float fraction, got {held_out!r}")
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


def levels_for(name: str | Iterable[int],
               tribes: Sequence[str | int] = ("XIN_XI", "IMPERIUS"),
               size: int | None = None) -> list[Level]:
    """Generate the levels of a set (a set name or the seeds themselves) for these tribes."""
    seeds = level_set(name) if isinstance(name, str) else [int(s) for s in name]
    return [generate_level(s, tribes, size) for s in seeds]
