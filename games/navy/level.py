"""Navy Defense worlds: where every vessel starts, generated from a seed or read from a file.

A level is a `NavyLevel`: the board size, the Navy ship's cell, each cargo ship's cell and
direction, and each submarine's cell (creation order). `generate_level(seed, ...)` draws one
with `random.Random(seed)` in a fixed order (sub count, Navy ship, cargo ships, subs), so a
level seed is a world. A level file is the level's JSON (`NavyLevel.to_text`).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from base.files import load_json, read_text
from base.limits import MAX_LEVEL_BYTES, short
from base.schema import REQUIRED, Field, check_count, errors_in, field_error, list_of, read_section
from games.navy.world import board

MAX_SUBS = 3
"""The most submarines a world holds; the Navy ship knows this maximum, not the count."""
SIZES = (4, 12)
"""The board sizes allowed (square boards, inclusive)."""
DIRECTIONS = ("cw", "ccw")


@dataclass(frozen=True)
class NavyLevel:
    """A world's start: `size` x `size` board; cells as (x, y)."""

    size: int
    navy: tuple[int, int]
    cargo: tuple[tuple[int, int, str], ...]  # (x, y, direction)
    subs: tuple[tuple[int, int], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"size": self.size, "navy": list(self.navy),
                "cargo": [list(c) for c in self.cargo], "subs": [list(s) for s in self.subs]}

    def to_text(self) -> str:
        return json.dumps(self.to_dict()) + "\n"


def check_size(size: Any, field: str = "size") -> int:
    """A board side, `SIZES[0]` to `SIZES[1]`.

    Args:
        size: the value as given.
        field: its key path.
    """
    if isinstance(size, bool) or not isinstance(size, int) or not SIZES[0] <= size <= SIZES[1]:
        raise field_error(field, f"a board size from {SIZES[0]} to {SIZES[1]} expected, "
                                 f"got {short(size)}")
    return size


FIELDS = (Field("size", check_size, REQUIRED), Field("navy", default=REQUIRED),
          Field("cargo", list_of(lo=1), REQUIRED),
          Field("subs", list_of(hi=MAX_SUBS), REQUIRED))
"""A level's keys (`NavyLevel.to_dict`); the cells are checked against the size after."""


def generate_level(seed: int, size: int = 7, subs: int | None = None, cargo: int = 4) -> NavyLevel:
    """A random world: `subs` submarines (None: 1 to 3, uniformly), `cargo` cargo ships on
    distinct cells off the centre of an odd board (every cargo ship moves), each going
    clockwise or counter-clockwise with equal chance; the Navy ship and the subs anywhere
    (a sub may start within sonar range or share a cell).

    Args:
        seed: the world's seed (the level seed).
        size: board side.
        subs: number of submarines, 0 to `MAX_SUBS`; None: uniform on 1..3.
        cargo: number of cargo ships.
    """
    check_size(size)
    b = board(size, size)
    movable = [c for c in range(b.cells) if len(b.route(c, "cw")) > 1]
    check_count(cargo, "cargo", 1, len(movable))
    if subs is not None:
        check_count(subs, "subs", 0, MAX_SUBS)
    rng = random.Random(seed)
    n_subs = rng.randint(1, MAX_SUBS) if subs is None else subs
    navy = rng.randrange(b.cells)
    cells = rng.sample(movable, cargo)
    ships = tuple((*b.xy[c], rng.choice(DIRECTIONS)) for c in cells)
    subs_at = tuple(b.xy[rng.randrange(b.cells)] for _ in range(n_subs))
    return NavyLevel(size, b.xy[navy], ships, subs_at)


def level_from_dict(data: Any, source: str = "<level>") -> NavyLevel:
    """A level from its JSON form; a malformed one is one error naming the field.

    Args:
        data: the level's mapping (`NavyLevel.to_dict`).
        source: what errors call it (a file name).
    """
    with errors_in(source):
        if not isinstance(data, dict):
            raise field_error("", "a JSON object with size, navy, cargo, subs expected")
        d = read_section(data, FIELDS)
        size = d["size"]

        def cell(v: Any, field: str) -> tuple[int, int]:
            if not (isinstance(v, (list, tuple)) and len(v) >= 2 and all(
                    isinstance(u, int) and not isinstance(u, bool) and 0 <= u < size
                    for u in v[:2])):
                raise field_error(field, f"a cell [x, y] inside the {size}x{size} board "
                                         f"expected, got {short(v)}")
            return int(v[0]), int(v[1])

        navy = cell(d["navy"], "navy")
        ships = []
        for i, c in enumerate(d["cargo"]):
            x, y = cell(c, f"cargo[{i}]")
            if len(c) != 3 or c[2] not in DIRECTIONS:
                raise field_error(f"cargo[{i}]", f"direction cw or ccw expected, got {short(c)}")
            ships.append((x, y, c[2]))
        subs = tuple(cell(s, f"subs[{i}]") for i, s in enumerate(d["subs"]))
        return NavyLevel(size, navy, tuple(ships), subs)


def parse_level(text: str, source: str = "<level>") -> NavyLevel:
    """A level from its JSON text (nesting checked first); errors name `source`.

    Args:
        text: the level's JSON.
        source: what errors call it (a file name).
    """
    try:
        data = load_json(text, source)
    except ValueError as e:
        raise ValueError(f"{e} (a Navy Defense level)") from None
    return level_from_dict(data, source)


def load_level(path: str | Path) -> NavyLevel:
    """A level file, its size checked before it is read (`MAX_LEVEL_BYTES`).

    Args:
        path: the level file.
    """
    path = Path(path)
    if not path.exists():
        raise ValueError(f"level: no level file {path}")
    return parse_level(read_text(path, MAX_LEVEL_BYTES, what="level file"), source=str(path))
