"""Numbers the docs derive from committed games by a short computation (a pooled share, a
pairing inside a tournament, a rank correlation): each recomputed here from the committed
per-game or per-elite table, and found, as computed, on the page that quotes it."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from base.stats import wilson_interval
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


def _script(name: str):
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, ROOT / "experiments" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tribolo_alliance_figures_from_the_per_set_up_tables():
    alliance = _script("tribolo_alliance")
    text = re.sub(r"\s+", " ", (RESULTS / "tribolo" / "alliance.md").read_text())

    def bracket(values) -> str:
        i = alliance.interval([float(v) for v in values])
        return f"{i['mean']:.2f} [{i['ci95'][0]:.2f}, {i['ci95'][1]:.2f}]"

    for table, sets in (("alliance_blue_random.csv", 100), ("alliance_blue_ai.csv", 60)):
        rows = pd.read_csv(RESULTS / "tribolo" / table)
        with_, without = (rows[rows["red_green_against"] == c].sort_values("level")
                          for c in ("blue", "none"))
        assert len(with_) == len(without) == sets
        assert f"| with the alliance | {bracket(with_['blue_cells'])} | " \
               f"{bracket(with_['red_plus_green_cells'])} |" in text
        assert f"| without | {bracket(without['blue_cells'])} |" in text
        diff = with_["blue_cells"].to_numpy() - without["blue_cells"].to_numpy()
        assert f"**{bracket(diff)}** over {sets} paired set-ups" in text
        allied, decisions = (int(with_[c].sum()) for c in ("red_green_allied_decisions",
                                                            "red_green_decisions"))
        assert f"{allied:,} of {decisions:,} (" in text


def test_tribolo_alphabeta_tables_from_the_per_decision_table():
    rows = pd.read_csv(RESULTS / "tribolo" / "alphabeta_decisions.csv")
    text = (RESULTS / "tribolo" / "alphabeta.md").read_text()
    for depth, label in ((1, "1 (the original)"), (2, "2")):
        d = rows[rows["depth"] == depth]
        calls = {k: d[d["search"] == k].sort_values("decision")["calls"]
                 for k in ("minimax", "paranoid")}
        n = len(calls["minimax"])
        ratio = calls["paranoid"].to_numpy() / calls["minimax"].to_numpy()
        cells = [f"{int(c.sum()):,} / {int(c.median()):,} / {int(c.max()):,}"
                 for c in calls.values()]
        disagree = int(d[d["search"] == "minimax"]["disagree"].sum())
        assert (f"| {label} | {disagree} / {n} | {cells[0]} | {cells[1]} | "
                f"{float(pd.Series(ratio).median()):.3f}; "
                f"{calls['paranoid'].sum() / calls['minimax'].sum():.3f} |") in text
        m = {k: int(d[d["search"] == f"maxn_{k}"]["calls"].sum()) for k in ("pruned", "unpruned")}
        dis = int(d[d["search"] == "maxn_pruned"]["disagree"].sum())
        assert f"| {depth} | {dis} / {n} | {m['pruned']:,} | {m['unpruned']:,} |" in text
