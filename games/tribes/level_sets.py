"""Named sets of Tribes level seeds (the generic forms and splits are `games.levels`).

Experiments refer to maps by level seed; naming the sets keeps configs short and makes
"the same maps as the published experiments" a single word. A set name is one of:

* a registered name, e.g. ``paper`` (the 25 level seeds of the published Tribes
  experiments, in their published order);
* ``seeds:1,2,3`` - an explicit list;
* ``range:100-120`` - consecutive seeds, both ends included.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from games.levels import level_set as _level_set
from games.levels import split

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

def level_set(name: str) -> list[int]:
    """The seeds of a level set given by name, ``seeds:a,b,...`` or ``range:lo-hi``."""
    return _level_set(name, LEVEL_SETS)


def levels_for(name: str | Iterable[int],
               tribes: Sequence[str | int] = ("XIN_XI", "IMPERIUS"),
               size: int | None = None) -> list[Level]:
    """Generate the levels of a set (a set name or the seeds themselves) for these tribes."""
    seeds = level_set(name) if isinstance(name, str) else [int(s) for s in name]
    return [generate_level(s, tribes, size) for s in seeds]
