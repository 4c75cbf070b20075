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
from base.limits import MAX_LEVEL_BYTES
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
        check_rows(self.rows, "level")
        if self.first not in (0, 1, 2):
            raise ValueError(f"level: first: a player 0-2 expected, got {self.first!r}")

    def to_text(self) -> str:
        return f"first: {PLAYER_NAMES[self.first]}\n" + "\n".join(self.rows) + "\n"


def check_rows(rows, source: str, first_line: int = 1) -> None:
    """One clear error naming the line of the first malformed row."""
    if not isinstance(rows, (tuple, list)) or len(rows) != HEIGHT:
        n = len(rows) if isinstance(rows, (tuple, list)) else rows
        raise ValueError(f"{source}: {HEIGHT} board rows of {WIDTH} cells expected, got {n}")
    for y, row in enumerate(rows):
        where = f"{source}: line {first_line + y} (row y={y})"
        if not isinstance(row, str) or len(row) != WIDTH:
            raise ValueError(f"{where}: {WIDTH} cells expected, got "
                             f"{len(row) if isinstance(row, str) else row!r}")
        for x, ch in enumerate(row):
            if ch not in CELL_CHARS:
                raise ValueError(f"{where}: unknown cell {ch!r} at x={x} (one of "
                                 f"{' '.join(CELL_CHARS)} expected)")


def player_of(name: str, source: str) -> int:
    key = name.strip().lower()
    for p, (full, letter) in enumerate(zip(PLAYER_NAMES, PLAYER_LETTERS)):
        if key in (full, letter.lower()):
            return p
    raise ValueError(f"{source}: first: unknown player {name.strip()!r} (blue, red or green)")


def parse_level(text: str, source: str = "<level>") -> TriboloLevel:
    """A level from the text of a level file; one clear error naming the line otherwise.

    Args:
        text: the file's text (format in the module docstring).
        source: what errors call the text (a file name).
    """
    if not isinstance(text, str):
        raise ValueError(f"{source}: level text expected, got {type(text).__name__}")
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
                raise ValueError(f"{source}: line {n}: fields come before the board rows")
            if key.strip().lower() != "first":
                raise ValueError(f"{source}: line {n}: unknown field {key.strip()!r} "
                                 f"(only 'first' and board rows)")
            if first_seen:
                raise ValueError(f"{source}: line {n}: first: given twice")
            first = player_of(value, f"{source}: line {n}")
            first_seen = True
            continue
        if row_start is None:
            row_start = n
        elif n != row_start + len(rows):
            raise ValueError(f"{source}: line {n}: board rows must be consecutive lines")
        rows.append(line)
        if len(rows) > HEIGHT:
            raise ValueError(f"{source}: line {n}: more than {HEIGHT} board rows")
    check_rows(rows, source, row_start or 1)
    return TriboloLevel(tuple(rows), first)


def level_from_dict(data: dict, source: str = "level") -> TriboloLevel:
    """A level from a state object as the conformance vectors write it: ``board`` (11 rows
    of 16 cells) and ``to_move`` or ``first`` (a player name; absent or null: blue).

    Args:
        data: the mapping.
        source: what errors call it.
    """
    unknown = sorted(set(data) - {"board", "to_move", "first", "scores", "legal_moves",
                                  "legal_counts"})
    if unknown:
        raise ValueError(f"{source}: unknown field {unknown[0]!r} (board, to_move or first)")
    if "board" not in data:
        raise ValueError(f"{source}: board: missing")
    rows = data["board"]
    check_rows(tuple(rows) if isinstance(rows, list) else rows, f"{source}: board")
    who = data.get("first", data.get("to_move"))
    first = 0 if who is None else player_of(str(who), source)
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
