"""Defaults the docs state are the code's defaults (where a test can read both)."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from agents.portfolio.pmcts import PMCTSAgent
from qd.config import config_from_dict
from qd.features import features_of

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_the_features_default_is_the_games_first_two():
    text = (DOCS / "qd.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("| `features` |"))
    assert "the game's first two features" in row
    shown = re.search(r"Tribes: `\[(.*?)\]`", row).group(1).split(", ")
    c = config_from_dict({"game": "tribes", "agent": {"name": "mcts", "budget": 10,
                                                      "genome_mapping": "none"},
                          "levels": {"train": "seeds:1,2"}, "seed": 1})
    assert [f.name for f in c.features] == shown == list(features_of("tribes"))[:2]


def test_pmcts_horizon_default_is_the_games():
    text = (DOCS / "agents.md").read_text()
    assert "`horizon=20`" not in text
    assert inspect.signature(PMCTSAgent).parameters["horizon"].default is None
    assert "`horizon=None` (the game's `search_horizon`: 20\nfor Tribes)" in text
    from games.registry import get_game
    assert get_game("tribes").search_horizon == 20


def _table_rows(text: str, header: str) -> dict[str, str]:
    """The rows of the markdown table whose header row starts with `header`: first cell ->
    second cell."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = {}
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = cells[1]
    return rows


def test_the_new_game_protocol_table_lists_every_member_of_the_code():
    from games.api import BaseGame, GameState
    text = (DOCS / "new-game.md").read_text()
    state_rows = _table_rows(text, "| state member |")
    documented = {name for cell in state_rows for name in re.findall(r"`(\w+)", cell)}
    required = {name for cell, req in state_rows.items() if req == "yes"
                for name in re.findall(r"`(\w+)", cell)}
    protocol = {n for n in vars(GameState) if not n.startswith("_")} | \
        set(GameState.__annotations__)
    assert required == protocol
    optional = {"multi_action_turns", "ends_turn", "results", "observation", "determinise",
                "new_belief", "digest"}
    assert optional <= documented - required
    game_rows = _table_rows(text, "| game member |")
    game_documented = {name for cell in game_rows for name in re.findall(r"`(\w+)", cell)}
    base = {n for n in vars(BaseGame) if not n.startswith("_")}
    assert base - {"check_options", "level_set"} <= game_documented


def test_the_starter_search_horizon_is_the_one_the_docs_measure():
    from games.new_game import TEMPLATES
    template = (Path(__file__).resolve().parents[1] / "games" / TEMPLATES / "package"
                / "game.py.tmpl").read_text()
    horizon = int(re.search(r"^    search_horizon = (\d+)$", template, re.M).group(1))
    text = (DOCS / "new-game.md").read_text()
    assert f"the game's `search_horizon`, {horizon})" in \
        (Path(__file__).resolve().parents[1] / "experiments" / "new_game_tuning.py").read_text()
    assert f"vs the default (horizon {horizon})" in text
