"""experiments/table1_verdicts.py: Table I's rows with Holm's correction over the rows."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "table1_verdicts.py"
spec = importlib.util.spec_from_file_location("table1_verdicts", SCRIPT)
verdicts = importlib.util.module_from_spec(spec)
spec.loader.exec_module(verdicts)

RESULTS = SCRIPT.parent / "results"


def _row(agent: str, wins: int, losses: int, draws: int = 0, level: int = 1) -> list[dict]:
    """Games of one row, from the row agent's side (seat 0), on one level."""
    return ([{"agent": agent, "opponent": "X", "level": level, "winner": 0, "agent_seat": 0}]
            * wins + [{"agent": agent, "opponent": "X", "level": level, "winner": 1,
                       "agent_seat": 0}] * losses
            + [{"agent": agent, "opponent": "X", "level": level, "winner": None,
                "agent_seat": 0}] * draws)


def test_holm_withholds_a_verdict_a_single_test_would_give():
    # 61 of 100: p = 0.035, below 0.05 but above Holm's 0.05 / 2 for the second of three
    games = pd.DataFrame(_row("A", 61, 39) + _row("D", 61, 39) + _row("C", 20, 80))
    table = verdicts.verdicts(games)
    table = table[table["levels"] == "all levels"].set_index("agent")
    assert 0.025 < table.loc["A", "p"] < 0.05
    assert table.loc["A", "verdict"] == table.loc["D", "verdict"] == \
        "not shown to differ from 50%"
    assert table.loc["C", "verdict"] == "weaker"
    # alone, the same 61 of 100 is a verdict
    alone = verdicts.verdicts(pd.DataFrame(_row("A", 61, 39))).iloc[0]
    assert alone["verdict"] == "stronger"


def test_a_draw_counts_half_and_is_left_out_of_the_test():
    games = pd.DataFrame(_row("A", 5, 3, draws=2))
    r = verdicts.verdicts(games).iloc[0]
    assert (r["wins"], r["draws"], r["losses"]) == (5, 2, 3)
    assert r["win_rate"] == pytest.approx(0.6)


def test_paper_and_other_levels_are_read_apart():
    paper = int(next(iter(verdicts.PAPER_SEEDS)))
    games = pd.DataFrame(_row("A", 30, 10, level=paper) + _row("A", 10, 30, level=7))
    table = verdicts.verdicts(games).set_index("levels")
    assert table.loc["paper levels", "verdict"] == "stronger"
    assert table.loc["other levels", "verdict"] == "weaker"
    assert table.loc["all levels", "games"] == 80


def test_the_committed_verdicts_recompute_from_the_committed_games():
    games = pd.concat([pd.read_csv(RESULTS / "table1_decide" / "games.csv"),
                       pd.read_csv(RESULTS / "table1_rhea" / "games.csv")], ignore_index=True)
    new = verdicts.verdicts(games)
    old = pd.read_csv(RESULTS / "table1_rhea" / "verdicts.csv")
    assert len(old) == 21  # 7 rows x 3 level groups
    pd.testing.assert_frame_equal(new.reset_index(drop=True), old, check_dtype=False)
    every = old[old["levels"] == "all levels"]
    assert (every["games"] >= 200).all() and len(every) == 7
    off = old[old["levels"] == "other levels"]
    assert (off["games"] * 2 >= every["games"].to_numpy()).all()
    ends = verdicts.end_of_game(games)
    pd.testing.assert_frame_equal(ends, pd.read_csv(RESULTS / "table1_rhea" / "end_of_game.csv"),
                                  check_dtype=False)


def test_end_of_game_reads_the_row_agents_seat():
    base = {"opponent": "X", "level": 1, "winner": 0, "p0_techs_pct": 0.0,
            "p1_techs_pct": 0.0, "p0_cities": 1, "p1_cities": 1, "p0_production": 1,
            "p1_production": 1}
    games = pd.DataFrame([{**base, "agent": "A", "agent_seat": 0, "p0_score": 10,
                           "p1_score": 99, "rounds": 26},
                          {**base, "agent": "A", "agent_seat": 1, "p0_score": 99,
                           "p1_score": 30, "rounds": 12}])
    r = verdicts.end_of_game(games).iloc[0]
    assert r["score"] == pytest.approx(20.0)
    assert r["ended_early"] == pytest.approx(0.5)
