"""Tribes behind the game-neutral `games.api.Game` protocol."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from base.limits import MAX_BOARD, MAX_ROUNDS, short
from games.api import BaseGame, OptionSpec
from games.tribes import constants as K
from games.tribes.actions import ACTION_NAMES
from games.tribes.level import Level, load_level, tribe_key
from games.tribes.level_sets import LEVEL_SETS
from games.tribes.levelgen import generate_level
from games.tribes.state import TribesOptions, TribesState, new_game

DEFAULT_TRIBES = ("XIN_XI", "IMPERIUS")

MIN_SIZE = 5
"""The smallest board the level generator makes (capitals need rows and columns 2..N-3)."""

SNAPSHOT_EVENTS = ("techs", "tiles", "cities", "production", "score", "stars")
"""Events the engine logs at the end of each of a player's turns (a state, not a count)."""


def check_tribes(tribes: Any) -> None:
    """The `tribes` option's names: each a known tribe (any case, `tribe_key`), none twice."""
    keys = [tribe_key(t) for t in tribes]
    if len(set(keys)) != len(keys):
        raise ValueError(f"each tribe may appear once, got {short(list(tribes))}")


class TribesGame(BaseGame):
    """Tribes: a level (a `Level`, a level file or a generator seed) plus options."""

    name = "tribes"
    option_names = ("mode", "max_rounds", "tribes", "size", "reference_bugs")
    default_levels = "paper"
    level_sets = LEVEL_SETS
    table_columns = (("score", "Score", "{:.0f}"), ("techs_pct", "Techs %", "{:.1f}%"),
                     ("cities", "Cities", "{:.2f}"), ("production", "Production", "{:.2f}"))
    """Figures of the result tables (the paper's Table I): summary key, header, format."""
    search_horizon = 20  # the reference's depth: the difference heuristic judges a leaf
    snapshot_events = SNAPSHOT_EVENTS
    options_doc = {"mode": "capitals | score",
                   "max_rounds": "the game ends when the round counter passes it, after "
                                 "max_rounds + 1 rounds (default 50 / 30)",
                   "tribes": "2-4 tribe names", "size": "board size of generated levels",
                   "reference_bugs": "reproduce the reference engine's bugs"}
    option_specs = {"mode": OptionSpec(str, choices=(K.CAPITALS, K.SCORE), none=False),
                    "max_rounds": OptionSpec(int, lo=0, hi=MAX_ROUNDS - 1),
                    "tribes": OptionSpec(list, items=(2, 4), none=False,
                                         check_value=check_tribes),
                    "size": OptionSpec(int, lo=MIN_SIZE, hi=MAX_BOARD),
                    "reference_bugs": OptionSpec(bool, none=False)}
    """Bounds checked before a game starts (`games.api.check_game_options`)."""

    def round_limit_options(self, rounds: int) -> dict[str, Any]:
        """`max_rounds` keeps the reference's meaning (a game ends when the round counter
        passes it, so max_rounds=N plays N+1 rounds): N rounds are max_rounds=N-1."""
        if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
            raise ValueError(f"at least 1 round, got {rounds!r}")
        return {"max_rounds": rounds - 1}

    def level(self, level: Level | str | Path | int, tribes=DEFAULT_TRIBES,
              size: int | None = None, **options: Any) -> Level:
        """A level from a Level, a CSV file path, or a generator seed (the other game
        options are accepted and ignored, so callers can pass all of them)."""
        self.check_options({**options, "tribes": tribes, "size": size})
        if isinstance(level, Level):
            return level
        if isinstance(level, int):
            return generate_level(level, tribes=tuple(tribes), size=size)
        return load_level(level)

    def new_state(self, level: Level | str | Path | int, seed: int, *,
                  mode: str = K.CAPITALS, max_rounds: int | None = None,
                  tribes=DEFAULT_TRIBES, size: int | None = None,
                  reference_bugs: bool = False) -> TribesState:
        self.check_options({"mode": mode, "max_rounds": max_rounds, "tribes": tribes,
                            "size": size, "reference_bugs": reference_bugs})
        if mode not in (K.CAPITALS, K.SCORE):
            raise ValueError(f"mode: unknown game mode {mode!r} (capitals or score)")
        if not 2 <= len(tribes) <= 4:
            raise ValueError(f"tribes: between 2 and 4 tribes, got {len(tribes)}")
        keys = [tribe_key(t) for t in tribes]
        if len(set(keys)) != len(keys):
            raise ValueError(f"tribes: each tribe may appear once, got {list(tribes)}")
        if max_rounds is not None and max_rounds < 0:
            raise ValueError(f"max_rounds: must be >= 0, got {max_rounds}")
        lv = self.level(level, tribes, size)
        return new_game(lv, seed, TribesOptions(mode=mode, max_rounds=max_rounds,
                                                reference_bugs=reference_bugs))

    def level_from_text(self, text: str, source: str = "<level>") -> Level:
        return Level.from_csv(text, source=source)

    def level_text(self, level: Level) -> str:
        return level.to_csv()

    def render(self, state, ascii_only: bool = False) -> str:
        from games.tribes.render import render  # lazy: the text view, for play and watch only
        return render(state, ascii_only=ascii_only)

    def render_image(self, state, path, title: str | None = None) -> None:
        from games.tribes.render_image import render_image  # lazy: matplotlib, for images only
        render_image(state, path, title)

    def action_types(self) -> tuple[str, ...]:
        return ACTION_NAMES
