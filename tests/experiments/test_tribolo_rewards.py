"""experiments/tribolo_rewards.py: the rewards comparison recomputed from its committed games."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "tribolo_rewards.py"
spec = importlib.util.spec_from_file_location("tribolo_rewards", SCRIPT)
rewards = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rewards)

RESULTS = SCRIPT.parent / "results" / "tribolo_rewards"
LABELS = {"per_player": rewards.PER_PLAYER, "paranoid": rewards.PARANOID,
          "other": "original AI"}


def test_the_committed_figures_recompute_from_the_committed_games():
    paired = rewards.per_game(pd.read_csv(RESULTS / "games.csv"))
    assert len(paired) == 60
    # every game seats the three agents once
    seats = paired[["per_player_seat", "paranoid_seat", "other_seat"]]
    assert (seats.nunique(axis=1) == 3).all()
    pd.testing.assert_frame_equal(paired, pd.read_csv(RESULTS / "paired.csv"),
                                  check_dtype=False)
    assert rewards.summary(paired, LABELS) == (RESULTS / "paired.md").read_text()


def test_the_paired_difference_follows_the_seats():
    games = pd.read_csv(RESULTS / "games.csv").head(3).copy()
    one = rewards.per_game(games)
    # swap the two MCTS labels: the difference changes sign
    a, b = rewards.PER_PLAYER, rewards.PARANOID
    for p in range(rewards.SEATS):
        col = f"p{p}_agent"
        games[col] = games[col].map({a: b, b: a}).fillna(games[col])
    two = rewards.per_game(games)
    assert one["per_player_cells"].iloc[0] == two["paranoid_cells"].iloc[0]
    assert one["per_player_cells"].iloc[0] != one["paranoid_cells"].iloc[0]
