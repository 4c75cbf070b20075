"""Tribolo behind the game-neutral `games.api.Game` protocol."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from games.api import BaseGame
from games.tribolo.board import BIT, HEIGHT, PLAYER_LETTERS, PLAYER_NAMES, WIDTH
from games.tribolo.level import (
    TriboloLevel,
    generate_level,
    level_from_dict,
    load_level,
    parse_level,
)
from games.tribolo.state import TriboloState

SYMBOLS = {"ascii": {".": ".", "#": "#", "*": "*"},
           "unicode": {".": "·", "#": "█", "*": "∘"}}


def state_from_level(level: TriboloLevel) -> TriboloState:
    """The start position of a level.

    Args:
        level: the board rows and the first candidate to move.
    """
    bb = [0, 0, 0]
    walls = 0
    for y, row in enumerate(level.rows):
        for x, ch in enumerate(row):
            if ch == "#":
                walls |= BIT[(x, y)]
            elif ch in PLAYER_LETTERS:
                bb[PLAYER_LETTERS.index(ch)] |= BIT[(x, y)]
    return TriboloState(bb, walls, level.first)


class TriboloGame(BaseGame):
    """Tribolo: a level (a `TriboloLevel`, a level file, or a set-up seed); no options."""

    name = "tribolo"
    option_names: tuple[str, ...] = ()
    default_levels = "range:0-9"
    table_columns = (("score", "Cells", "{:.1f}"), ("share", "Share", "{:.3f}"),
                     ("skipped", "Skipped", "{:.2f}"))

    def level(self, spec: TriboloLevel | str | Path | int | dict, **options: Any) -> TriboloLevel:
        """A level from a `TriboloLevel`, a level file path, a set-up seed (an int), or a
        state object as the conformance vectors write it (``board``, ``to_move``).

        Args:
            spec: the level.
            options: game options (Tribolo has none: any is an error naming it).
        """
        self.check_options(options)
        if isinstance(spec, TriboloLevel):
            return spec
        if isinstance(spec, dict):
            return level_from_dict(spec)
        if isinstance(spec, bool):
            raise ValueError(f"level: a seed or a level file expected, got {spec!r}")
        if isinstance(spec, int):
            return generate_level(spec)
        if isinstance(spec, (str, Path)):
            return load_level(spec)
        raise ValueError(f"level: a seed or a level file expected, got {spec!r}")

    def new_state(self, level: TriboloLevel | str | Path | int | dict, seed: int = 0,
                  **options: Any) -> TriboloState:
        """A game from the start position of `level`.

        Args:
            level: as `level` takes it.
            seed: unused: the game has no chance after the set-up, which the level decides.
            options: none (any is an error naming it).
        """
        return state_from_level(self.level(level, **options))

    def level_text(self, level: TriboloLevel) -> str:
        return level.to_text()

    def level_from_text(self, text: str, source: str = "<level>") -> TriboloLevel:
        return parse_level(text, source=source)

    def render(self, state: TriboloState, ascii_only: bool = False) -> str:
        """The board (x across, y down), the mover's legal moves marked, then the scores."""
        sym = SYMBOLS["ascii" if ascii_only else "unicode"]
        legal = set(state.legal_actions())
        lines = ["    " + "".join(f"{x % 10}" for x in range(WIDTH)) + "   x"]
        for y in range(HEIGHT):
            row = []
            for x in range(WIDTH):
                ch = state.cell(x, y)
                row.append(sym["*"] if (x, y) in legal else sym.get(ch, ch))
            lines.append(f"{y:>3} " + "".join(row))
        lines.append("  y")
        scores = ", ".join(f"{PLAYER_NAMES[p]} ({PLAYER_LETTERS[p]}) {state.score[p]}"
                           for p in range(3))
        if state.is_terminal():
            head = f"game over after {state.plies} moves"
        else:
            head = (f"move {state.plies + 1}, {PLAYER_NAMES[state.to_move]} to move "
                    f"({len(legal)} moves, marked {sym['*']})")
        lines.append(f"{head}; cells: {scores}")
        return "\n".join(lines) + "\n"

    def render_image(self, state: TriboloState, path, title: str | None = None) -> None:
        from games.tribolo.render_image import render_image  # lazy: matplotlib, for images only
        render_image(state, path, title)
