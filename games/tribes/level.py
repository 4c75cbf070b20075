"""Tribes levels: an immutable map description and its CSV file format.

A ``Level`` is what a game is set up from: terrain and resource per tile and the capital
of each tribe. It is plain data (tuples of one-character strings) so it can be hashed,
cached, compared and shared between games without copying.

CSV format (one board row per line, ``N`` cells per line, ``N`` lines): a cell is
``T:R`` with ``T`` a terrain char and ``R`` a resource char, empty or a single space
for "none"; for a city ``R`` is the decimal tribe key of the capital. The reference
generator writes a few empty resources as a space (villages that replaced a forest);
``Level`` remembers which, so that writing a level back reproduces the file exactly.
"""

from __future__ import annotations

import operator
import os
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from base.files import atomic_write, read_text
from base.limits import MAX_BOARD, MAX_LEVEL_BYTES, short
from base.schema import errors_in, field_error

__all__ = [
    "TRIBE_KEYS",
    "TRIBE_NAMES",
    "TERRAIN_CHARS",
    "RESOURCE_CHARS",
    "Level",
    "LevelFormatError",
    "load_level",
    "save_level",
    "tribe_key",
]

TRIBE_NAMES: tuple[str, ...] = (
    "XIN_XI", "IMPERIUS", "BARDUR", "OUMAJI", "KICKOO", "HOODRICK",
    "LUXIDOOR", "VENGIR", "ZEBASI", "AI_MO", "QUETZALI", "YADAKK",
)
"""Tribe names indexed by tribe key (the number written after ``c:`` in level files)."""

TRIBE_KEYS: Mapping[str, int] = MappingProxyType({n: k for k, n in enumerate(TRIBE_NAMES)})
"""Tribe name -> tribe key."""

TERRAIN_CHARS = frozenset(".sdmvcf")
"""plain, shallow, deep, mountain, village, city, forest."""

RESOURCE_CHARS = frozenset("hfawocr")
"""fish, fruit, animal, whales, ore, crops, ruins."""

CITY = "c"


def tribe_key(tribe: str | int) -> int:
    """Normalise a tribe given by name (case-insensitive) or key to its key."""
    if not isinstance(tribe, str):
        if isinstance(tribe, bool):
            raise ValueError(f"not a tribe: {short(tribe)}")
        k = operator.index(tribe)  # ints, numpy ints
        if 0 <= k < len(TRIBE_NAMES):
            return k
        raise ValueError(f"tribe key {k} out of range 0..{len(TRIBE_NAMES) - 1}")
    key = TRIBE_KEYS.get(tribe.strip().upper().replace("-", "_"))
    if key is None:
        raise ValueError(f"unknown tribe {short(tribe)}; known: {', '.join(TRIBE_NAMES)}")
    return key


class LevelFormatError(ValueError):
    """A level file that cannot be read; the message names the source, line and cell."""


@dataclass(frozen=True, slots=True)
class Level:
    """An N x N map: terrain and resource per tile (row-major) and the capitals.

    ``terrain[k]`` / ``resource[k]`` describe tile ``k = row * size + col``; ``resource`` is
    ``''`` for none. ``capitals`` lists ``(tile, tribe_key)`` in row-major order, which is
    also the turn order of a game on this level. A capital tile has terrain ``'c'`` and
    resource ``''``. ``spaced`` only records which empty resources a file wrote as a
    space, so that ``to_csv`` is byte-exact; it is ignored by equality and hashing.
    """

    size: int
    terrain: tuple[str, ...]
    resource: tuple[str, ...]
    capitals: tuple[tuple[int, int], ...]
    spaced: frozenset[int] = field(default=frozenset(), compare=False)

    def __post_init__(self) -> None:
        n = self.size * self.size
        if self.size <= 0 or len(self.terrain) != n or len(self.resource) != n:
            raise ValueError(
                f"level of size {self.size} needs {n} terrain and resource entries, "
                f"got {len(self.terrain)} and {len(self.resource)}")
        bad_t = set(self.terrain) - TERRAIN_CHARS
        bad_r = set(self.resource) - RESOURCE_CHARS - {""}
        if bad_t or bad_r:
            raise ValueError(f"unknown terrain {sorted(bad_t)} / resource {sorted(bad_r)} chars")
        cities = [k for k, t in enumerate(self.terrain) if t == CITY]
        if [k for k, _ in self.capitals] != cities:
            raise ValueError(
                f"capitals {self.capitals} do not match the city tiles {cities} (row-major)")
        keys = [key for _, key in self.capitals]
        if len(set(keys)) != len(keys) or any(not 0 <= key < len(TRIBE_NAMES) for key in keys):
            raise ValueError(f"capital tribe keys must be distinct and in 0..11, got {keys}")
        if any(self.resource[k] for k in cities):
            raise ValueError("a capital tile cannot hold a resource")

    # --- convenience -------------------------------------------------------------------
    @property
    def tribes(self) -> tuple[int, ...]:
        """Tribe keys in turn order (row-major order of their capitals)."""
        return tuple(key for _, key in self.capitals)

    def rc(self, tile: int) -> tuple[int, int]:
        """``(row, col)`` of a tile index."""
        return divmod(tile, self.size)

    def capital_of(self, tribe: str | int) -> int:
        """Tile index of a tribe's capital."""
        key = tribe_key(tribe)
        for tile, k in self.capitals:
            if k == key:
                return tile
        raise KeyError(f"tribe {TRIBE_NAMES[key]} has no capital on this level")

    # --- CSV ---------------------------------------------------------------------------
    @classmethod
    def from_csv(cls, text: str, source: str = "<string>") -> Level:
        """Parse the level CSV format; raise ``LevelFormatError`` naming the file, the line
        and the cell.

        Args:
            text: the CSV text.
            source: what errors call it (a file name).
        """
        with errors_in(source, LevelFormatError):
            return cls._from_csv(text)

    @classmethod
    def _from_csv(cls, text: str) -> Level:
        """`from_csv` (errors name the line and the cell; the caller puts the file in
        front)."""
        rows: list[tuple[int, list[str]]] = []
        for ln, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                if len(rows) == MAX_BOARD or line.count(",") >= MAX_BOARD:
                    raise field_error(f"line {ln}", f"the board is larger than "
                                                    f"{MAX_BOARD}x{MAX_BOARD}")
                rows.append((ln, line.split(",")))
        if not rows:
            raise field_error("line 1", "no rows (empty level)")
        size = len(rows[0][1])
        terrain: list[str] = []
        resource: list[str] = []
        spaced: set[int] = set()
        capitals: list[tuple[int, int]] = []
        first_line: dict[int, int] = {}  # tribe key -> line of its capital

        def fail(ln: int, col: int | None, msg: str) -> ValueError:
            where = f"line {ln}" if col is None else f"line {ln}, cell {col + 1} (column {col})"
            return field_error(where, msg)

        for row, (ln, cells) in enumerate(rows):
            if row >= size:
                raise fail(ln, None, f"too many rows: the board is {size}x{size} "
                                     f"(line {rows[0][0]} has {size} cells)")
            if len(cells) != size:
                raise fail(ln, None, f"{len(cells)} cells, expected {size} "
                                     f"(the board is square; line {rows[0][0]} has {size})")
            for col, cell in enumerate(cells):
                t, sep, r = cell.partition(":")
                if not sep:
                    raise fail(ln, col, f"cell {cell!r} has no ':' (expected 'T:R')")
                if len(t) != 1 or t not in TERRAIN_CHARS:
                    raise fail(ln, col, f"unknown terrain {t!r} in cell {cell!r} "
                                        f"(expected one of '.sdmvcf')")
                k = row * size + col
                if t == CITY:
                    if not (r.isascii() and r.isdigit()) or int(r) >= len(TRIBE_NAMES):
                        raise fail(ln, col, f"bad tribe key {r!r} in city cell {cell!r} "
                                            f"(expected 0..{len(TRIBE_NAMES) - 1})")
                    key = int(r)
                    if key in first_line:
                        raise fail(ln, col, f"duplicate capital for tribe key {key} "
                                            f"(first on line {first_line[key]})")
                    first_line[key] = ln
                    capitals.append((k, key))
                    r = ""
                elif r == " ":
                    spaced.add(k)
                    r = ""
                elif r and (len(r) != 1 or r not in RESOURCE_CHARS):
                    raise fail(ln, col, f"unknown resource {r!r} in cell {cell!r} "
                                        f"(expected empty, ' ' or one of 'hfawocr')")
                terrain.append(t)
                resource.append(r)
        if len(rows) != size:
            raise fail(rows[-1][0] + 1, None, f"missing rows: found {len(rows)}, "
                                              f"expected {size} for a {size}x{size} board")
        if not capitals:
            raise fail(rows[0][0], None, f"no capital ('c:<tribe key>') on any of lines "
                                         f"{rows[0][0]}-{rows[-1][0]}")
        return cls(size, tuple(terrain), tuple(resource), tuple(capitals), frozenset(spaced))

    def to_csv(self) -> str:
        """The level in CSV form, one line per row with a trailing newline."""
        keys = dict(self.capitals)
        n = self.size
        cells = []
        for k in range(n * n):
            t = self.terrain[k]
            if t == CITY:
                r = str(keys[k])
            else:
                r = self.resource[k] or (" " if k in self.spaced else "")
            cells.append(f"{t}:{r}")
        return "".join(",".join(cells[i:i + n]) + "\n" for i in range(0, n * n, n))


def load_level(path: str | os.PathLike[str]) -> Level:
    """Read a level CSV file (errors name the file)."""
    p = Path(path)
    if not p.exists():
        raise ValueError(f"level: no such level file: {p}")
    text = read_text(p, MAX_LEVEL_BYTES, LevelFormatError, what="level file")
    return Level.from_csv(text, source=str(p))


def save_level(level: Level, path: str | os.PathLike[str]) -> None:
    """Write a level CSV file atomically, so a crash never leaves a half-written level."""
    atomic_write(path, level.to_csv())
