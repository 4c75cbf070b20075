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
