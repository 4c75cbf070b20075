"""Numbers the docs derive from committed games by a short computation (a pooled share, a
pairing inside a tournament, a rank correlation): each recomputed here from the committed
per-game or per-elite table, and found, as computed, on the page that quotes it."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from play.stats import wilson_interval
from qd.validation import spearman

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "experiments" / "results"


def page(name: str) -> str:
    """A docs page with its line breaks and runs of spaces read as one space."""
    return re.sub(r"\s+", " ", (ROOT / "docs" / name).read_text())


def share(successes: int, n: int) -> str:
    lo, hi = wilson_interval(successes, n)
    return f"{100 * successes / n:.1f}% ({100 * lo:.1f}-{100 * hi:.1f}%"


def test_first_player_share_of_the_turn_level_baselines():
    games = pd.concat(pd.read_csv(f) for f in
                      sorted((RESULTS / "action_trees" / "baselines").glob("*/games.csv")))
    n, first = len(games), int((games["winner"] == 0).sum())
    assert n == 1750
    assert (f"in the {n:,} baseline games against `rule_based` the first player won "
            f"{share(first, n)})") in page("agents.md")


def test_tribolo_style_ahead_of_its_control_at_one_table():
    games = pd.read_csv(RESULTS / "tribolo" / "tournament" / "games.csv").drop_duplicates("game")
    ahead = n = 0
    for _, row in games.iterrows():
        seat = {row[f"p{p}_agent"]: p for p in range(3)}
        if "evolved style" in seat and "control" in seat:
            n += 1
            ahead += row[f"p{seat['evolved style']}_place"] < row[f"p{seat['control']}_place"]
    text = page("tribolo.md")
    assert f"in the {n} games where both sat at one table" in text
    assert f"the style finished ahead of its control in {share(ahead, n)}, Wilson)" in text


def test_navy_evolved_against_held_out_cost():
    v = pd.read_csv(RESULTS / "navy" / "quickstart" / "validation.csv")
    rho = spearman(v["mean_score_evolved"], v["mean_score_validated"])
    cheapest = v.nlargest(5, "mean_score_evolved")  # scores are minus the cost
    gained = cheapest["mean_score_evolved"] - cheapest["mean_score_validated"]
    text = page("navy.md")
    assert (f"the five cheapest gained {gained.min():.0f}-{gained.max():.0f} points), the "
            f"Spearman correlation of evolved and held-out cost is {rho:.2f}") in text
