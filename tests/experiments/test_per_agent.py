"""experiments/per_agent.py: per-agent means of tournament columns, with t intervals."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "per_agent.py"
spec = importlib.util.spec_from_file_location("per_agent", SCRIPT)
per_agent = importlib.util.module_from_spec(spec)
spec.loader.exec_module(per_agent)

LEARNED = SCRIPT.parent / "results" / "learned"
COLUMNS = ["result", "score", "production", "n_buildings", "n_destroys", "ms_per_decision"]


def test_the_committed_table_recomputes_from_the_committed_games():
    rows = pd.concat(per_agent.per_agent(pd.read_csv(LEARNED / d / "games.csv"), COLUMNS)
                     for d in ("vs_diff_mcts", "vs_diff_hps"))
    assert per_agent.table(rows, COLUMNS) == (LEARNED / "vs_diff_per_agent.md").read_text()


def test_each_seat_counts_for_its_agent_and_unknown_columns_are_refused():
    games = pd.DataFrame({"game": [0, 1], "p0_agent": ["A", "B"], "p1_agent": ["B", "A"],
                          "p0_score": [10, 30], "p1_score": [20, 40],
                          "p0_think_s": [1.0, 2.0], "p0_decisions": [10, 10],
                          "p1_think_s": [3.0, 4.0], "p1_decisions": [10, 20]})
    rows = per_agent.per_agent(games, ["score", "ms_per_decision", "n_destroys"])
    a = rows[rows["agent"] == "A"]
    assert sorted(a["score"]) == [10, 40] and sorted(a["ms_per_decision"]) == [100, 200]
    assert (rows["n_destroys"] == 0).all()  # recorded by no game: none happened
    with pytest.raises(ValueError, match="p0_production"):
        per_agent.per_agent(games, ["production"])
