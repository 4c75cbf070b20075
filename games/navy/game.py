"""Navy Defense behind the game-neutral `games.api.Game` protocol."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from base.limits import MAX_ROUNDS
from games.api import BaseGame, OptionSpec
from games.navy.level import (
    MAX_SUBS,
    SIZES,
    NavyLevel,
    check_count,
    generate_level,
    level_from_dict,
    load_level,
    parse_level,
)
from games.navy.state import SNAPSHOT_EVENTS, NavyState

STEPS = 30
"""Time steps of an episode (the source's experiments)."""


class NavyGame(BaseGame):
    """Navy Defense: a level (a seed, a level file, a `NavyLevel`); options `size` (board
    side, default 7), `subs` (submarines, default 1 to 3 drawn by the level seed), `cargo`
    (cargo ships, default 4) for generated levels, and `steps` (default 30)."""

    name = "navy"
    option_names = ("size", "subs", "cargo", "steps")
    options_doc = {"size": "board side of generated worlds (4 to 12; default 7)",
                   "subs": "submarines of generated worlds (0 to 3; default 1 to 3 at random)",
                   "cargo": "cargo ships of generated worlds (default 4)",
                   "steps": "time steps of an episode (default 30)"}
    option_specs = {"size": OptionSpec(int, lo=SIZES[0], hi=SIZES[1]),
                    "subs": OptionSpec(int, lo=0, hi=MAX_SUBS),
                    "cargo": OptionSpec(int, lo=1, hi=SIZES[1] ** 2),
                    "steps": OptionSpec(int, lo=1, hi=MAX_ROUNDS)}
    """Bounds checked before a game starts (`games.api.check_game_options`)."""
    default_levels = "range:0-9"
    search_horizon = 5
    snapshot_events = SNAPSHOT_EVENTS
    table_columns = (("cost", "Cost", "{:.1f}"), ("cargo_destroyed", "Cargo lost", "{:.2f}"),
                     ("navy_destroyed", "Navy lost", "{:.2f}"), ("moves", "Moves", "{:.1f}"))

    def level(self, spec: NavyLevel | str | Path | int | dict, **options: Any) -> NavyLevel:
        """A world from a seed (generated with the options `size`, `subs`, `cargo`), a level
        file, a `NavyLevel` or its dict form.

        Args:
            spec: the level.
            options: game options (`steps` does not shape the world).
        """
        self.check_options(options)
        if isinstance(spec, bool):
            raise ValueError(f"level: a seed or a level file expected, got {spec!r}")
        if isinstance(spec, int):
            return generate_level(spec, size=options.get("size", 7), subs=options.get("subs"),
                                  cargo=options.get("cargo", 4))
        if isinstance(spec, NavyLevel):
            level = spec
        elif isinstance(spec, dict):
            level = level_from_dict(spec)
        elif isinstance(spec, (str, Path)):
            level = load_level(spec)
        else:
            raise ValueError(f"level: a seed or a level file expected, got {spec!r}")
        for key, have in (("size", level.size), ("subs", len(level.subs)),
                          ("cargo", len(level.cargo))):
            if options.get(key) is not None and options[key] != have:
                raise ValueError(f"{key}: the level has {have}, the option says {options[key]}")
        return level

    def new_state(self, level: NavyLevel | str | Path | int | dict, seed: int = 0,
                  **options: Any) -> NavyState:
        """The start of a world.

        Args:
            level: as `level` takes it.
            seed: the game seed: the submarines' tie-breaks.
            options: `size`, `subs`, `cargo` (generated worlds), `steps`.
        """
        world = self.level(level, **options)
        steps = check_count(options.get("steps", STEPS), "steps", 1, MAX_ROUNDS)
        return NavyState.start(world, steps, seed)

    def round_limit_options(self, rounds: int) -> dict[str, Any]:
        """One round is one time step: `steps`."""
        return {"steps": rounds}

    def level_text(self, level: NavyLevel) -> str:
        return level.to_text()

    def level_from_text(self, text: str, source: str = "<level>") -> NavyLevel:
        return parse_level(text, source=source)

    # -- rendering ------------------------------------------------------------------------
    def render(self, state: NavyState, ascii_only: bool = False) -> str:
        """Everything, hidden subs included (``s``; seen ones ``S``): replays, spectators."""
        return text_view(state, reveal=True)

    def render_view(self, state: NavyState, player: int, ascii_only: bool = False) -> str:
        """What the Navy ship sees: no sub outside the sonar block."""
        return text_view(state, reveal=False)

    def render_image(self, state: NavyState, path, title: str | None = None) -> None:
        from games.navy.render_image import render_image  # lazy: matplotlib, for images only
        render_image(state, path, title)


def text_view(state: NavyState, reveal: bool) -> str:
    """The board (x across, y down), one cell 4 characters: ``N`` the Navy ship, ``1``-``9``
    cargo ships by number, ``S`` a sub seen, ``s`` a hidden sub (`reveal` only); ``:`` marks
    the sonar block. Then the figures."""
    b = state.board
    w = state.size
    block = b.block[state.navy] if state.navy_hp > 0 else 0
    cells = [""] * b.cells
    if state.navy_hp > 0:
        cells[state.navy] += "N"
    for c in range(len(state.c_hp)):
        if state.c_hp[c] > 0:
            cells[state.cargo_cell(c)] += str(c + 1)
    hidden = 0
    for p, h in zip(state.s_pos, state.s_hp):
        if h <= 0:
            continue
        if block >> p & 1:
            cells[p] += "S"
        else:
            hidden += 1
            if reveal:
                cells[p] += "s"
    lines = ["    " + "".join(f"{x:<4}" for x in range(w)) + "x"]
    for y in range(w):
        row = []
        for x in range(w):
            i = y * w + x
            txt = cells[i] or (":" if block >> i & 1 else ".")
            row.append(f"{txt:<4}")
        lines.append(f"{y:>3} " + "".join(row).rstrip())
    lines.append("  y")
    ships = ", ".join(
        f"{c + 1} {'sunk' if state.c_hp[c] <= 0 else f'hp {state.c_hp[c]}'} "
        f"{state.c_dir[c]}"
        for c in range(len(state.c_hp)))
    seen = sum(1 for p, h in zip(state.s_pos, state.s_hp) if h > 0 and block >> p & 1)
    subs = f"subs seen {seen}" + (f", hidden {hidden}" if reveal else "")
    navy = f"navy hp {state.navy_hp}" if state.navy_hp > 0 else "navy sunk"
    head = "over" if state.is_terminal() else f"step {state.t + 1} of {state.steps}"
    lines.append(f"{head}; cost {state.cost}; {navy}; cargo: {ships}; {subs}")
    return "\n".join(lines) + "\n"

