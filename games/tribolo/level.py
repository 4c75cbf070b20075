"""Tribolo levels: a start position (walls, every player's cells, who moves first), drawn
from a seed as the original sets a game up, or read from a level file.

Level file (text, UTF-8):

    ; comment lines start with ';' (a '#' is a wall, so it cannot start a comment)
    first: red
    .B..B.B........G
    ... 11 rows of 16 cells in all: '.' empty, '#' wall, 'B' blue, 'R' red, 'G' green

`first` names the first candidate to move (optional, default blue): the game starts with the
first of `first`, the player after it and the one after that who has a legal move, as the
original does after its draw of the "previous player".
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from base.files import read_text
from base.limits import MAX_LEVEL_BYTES, short
from base.schema import REQUIRED, Field, errors_in, field_error, read_section
from games.tribolo.board import (
    EMPTY_CHAR,
    HEIGHT,
    PLAYER_LETTERS,
    PLAYER_NAMES,
    WALL_CHAR,
    WIDTH,
)

PLAYERS_AT_START = 12
WALLS_AT_START = 12
CELL_CHARS = EMPTY_CHAR + WALL_CHAR + "".join(PLAYER_LETTERS)


@dataclass(frozen=True)
class TriboloLevel:
    """A start position: `rows[y][x]` is one of '.#BRG'; `first` the first candidate to move
    (0 blue, 1 red, 2 green)."""

    rows: tuple[str, ...]
    first: int = 0

    def __post_init__(self) -> None:
        with errors_in("level"):
            check_rows(self.rows)
            if self.first not in (0, 1, 2):
                raise field_error("first", f"a player 0-2 expected, got {short(self.first)}")

    def to_text(self) -> str:
        return f"first: {PLAYER_NAMES[self.first]}\n" + "\n".join(self.rows) + "\n"


def check_rows(rows, first_line: int = 1) -> None:
    """One clear error naming the line of the first malformed row.

    Args:
        rows: the board rows.
        first_line: the line of a file the first row is on.
    """
    if not isinstance(rows, (tuple, list)) or len(rows) != HEIGHT:
        n = len(rows) if isinstance(rows, (tuple, list)) else short(rows)
        raise ValueError(f"{HEIGHT} board rows of {WIDTH} cells expected, got {n}")
    for y, row in enumerate(rows):
        where = f"line {first_line + y} (row y={y})"
        if not isinstance(row, str) or len(row) != WIDTH:
            raise field_error(where, f"{WIDTH} cells expected, got "
                                     f"{len(row) if isinstance(row, str) else short(row)}")
        for x, ch in enumerate(row):
            if ch not in CELL_CHARS:
                raise field_error(where, f"unknown cell {ch!r} at x={x} (one of "
                                         f"{' '.join(CELL_CHARS)} expected)")


def player_of(name: str, field: str) -> int:
    """The player a name or letter names (blue, red, green; B, R, G).

    Args:
        name: the name as given.
        field: its key path (`first`, `line 2: first`).
    """
    key = name.strip().lower()
    for p, (full, letter) in enumerate(zip(PLAYER_NAMES, PLAYER_LETTERS)):
        if key in (full, letter.lower()):
            return p
    raise field_error(field, f"unknown player {short(name.strip())} (blue, red or green)")


def parse_level(text: str, source: str = "<level>") -> TriboloLevel:
    """A level from the text of a level file; one clear error naming the line otherwise.

    Args:
        text: the file's text (format in the module docstring).
        source: what errors call the text (a file name).
    """
    with errors_in(source):
        return _parse(text)


def _parse(text: str) -> TriboloLevel:
    """`parse_level` (errors name the line; the caller puts the file in front)."""
    if not isinstance(text, str):
        raise ValueError(f"level text expected, got {type(text).__name__}")
    rows: list[str] = []
    first = 0
    first_seen = False
    row_start = None
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(";"):
            continue
        key, sep, value = line.partition(":")
        if sep:
            if rows:
                raise field_error(f"line {n}", "fields come before the board rows")
            if key.strip().lower() != "first":
                raise field_error(f"line {n}", f"unknown field {short(key.strip())} (only "
                                               f"'first' and board rows)")
            if first_seen:
                raise field_error(f"line {n}", "first: given twice")
            first = player_of(value, f"line {n}: first")
            first_seen = True
            continue
        if row_start is None:
            row_start = n
        elif n != row_start + len(rows):
            raise field_error(f"line {n}", "board rows must be consecutive lines")
        rows.append(line)
        if len(rows) > HEIGHT:
            raise field_error(f"line {n}", f"more than {HEIGHT} board rows")
    check_rows(rows, row_start or 1)
    return TriboloLevel(tuple(rows), first)


FIELDS = (Field("board", default=REQUIRED), Field("to_move"), Field("first"), Field("scores"),
          Field("legal_moves"), Field("legal_counts"))
"""The keys of a state object as the conformance vectors write it (`level_from_dict`)."""


def level_from_dict(data: dict, source: str = "level") -> TriboloLevel:
    """A level from a state object as the conformance vectors write it: ``board`` (11 rows
    of 16 cells) and ``to_move`` or ``first`` (a player name; absent or null: blue).

    Args:
        data: the mapping.
        source: what errors call it.
    """
    with errors_in(source):
        d = read_section(data, FIELDS)
        rows = d["board"]
        with errors_in("board"):
            check_rows(tuple(rows) if isinstance(rows, list) else rows)
        key = "first" if "first" in data else "to_move"
        first = 0 if d[key] is None else player_of(str(d[key]), key)
        return TriboloLevel(tuple(rows), first)


def load_level(path: str | Path) -> TriboloLevel:
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"level: {str(path)!r} is neither a level seed (an integer) nor a "
                         f"level file")
    return parse_level(read_text(p, MAX_LEVEL_BYTES, what="level file"), source=str(path))


def generate_level(seed: int) -> TriboloLevel:
    """The original's random set-up, seeded: a uniform shuffle of the 176 cells, the first 12
    to blue, the next 12 to red, to green, to walls; then a uniform draw of the "previous
    player", whose successor is the first candidate to move.

    Args:
        seed: the set-up seed (the level's id in level sets such as ``range:0-9``).
    """
    rng = random.Random(seed)
    coords = [(x, y) for x in range(WIDTH) for y in range(HEIGHT)]
    rng.shuffle(coords)
    grid = [[EMPTY_CHAR] * WIDTH for _ in range(HEIGHT)]
    marks = PLAYER_LETTERS + (WALL_CHAR,)
    for k, ch in enumerate(marks):
        for x, y in coords[k * PLAYERS_AT_START:(k + 1) * PLAYERS_AT_START]:
            grid[y][x] = ch
    previous = rng.randrange(3)
    return TriboloLevel(tuple("".join(r) for r in grid), (previous + 1) % 3)
