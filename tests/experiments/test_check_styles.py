"""experiments/check_styles.py recomputes the style statistics of docs/styles.md, and every
committed validation's summary agrees with it."""

from __future__ import annotations

import copy
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from experiments import check_styles as cs

RESULTS = Path(__file__).resolve().parents[2] / "experiments" / "results"


def _version(folder: Path) -> int:
    return json.loads((folder / "validation_summary.json").read_text()).get("version") or 0


COMMITTED = sorted(p.parent for p in RESULTS.glob("**/validation_games.csv")
                   if (p.parent / "validation_summary.json").exists() and _version(p.parent) >= 3)

LEVELS = [101, 102, 103, 104, 105, 106]
PER_LEVEL = 4
A, B, C, D = "0:0", "1:0", "2:0", "2:1"  # D plays exactly C's games
NULLS = ["null:zero", "null:w1"]


def _won(cell: str, g: int) -> float:
    """The control wins 2 of every level's 4 games; A the same ones; C and D one more; B one
    fewer, except on the last level (20.8 points below the control)."""
    k, level = g % PER_LEVEL, g // PER_LEVEL
    if cell in (CONTROL, A, *NULLS):
        return float(k < 2)
    if cell in (C, D):
        return float(k < 3)
    return float(k < (2 if level == len(LEVELS) - 1 else 1))


CONTROL = cs.CONTROL


def write_folder(folder: Path, quality: str = "win_rate", nulls: bool = True, seed: int = 7) -> Path:
    """4 elites, the control and (optionally) 2 null genomes, on 6 levels x 4 games: f1 sets A
    (and the control) at 0, C and D at 6 and B at 12 standard deviations; f2 and f3 are noise."""
    rng = np.random.default_rng(seed)
    centre = {A: 0.0, B: 12.0, C: 6.0, CONTROL: 0.0, "null:zero": 0.0, "null:w1": 12.0}
    genomes = [A, B, C, D, CONTROL] + (NULLS if nulls else [])
    rows, c_rows = [], {}
    for cell in genomes:
        for g in range(len(LEVELS) * PER_LEVEL):
            if cell == D:
                row = dict(c_rows[g], cell=D, index=3)
            else:
                won = _won(cell, g)
                row = {"cell": cell, "index": genomes.index(cell), "game": g, "level": LEVELS[g // PER_LEVEL],
                       "elite_won": won, "elite_score": 100.0 * won + 10.0 * (g % 3),
                       "trace": f"{cell}/{g}/{rng.integers(1 << 30):x}",
                       "f1": centre[cell] + rng.normal(), "f2": rng.normal(), "f3": rng.normal()}
                if cell == C:
                    c_rows[g] = row
            rows.append(row)
    table = pd.DataFrame(rows)
    table.loc[(table["cell"] == B) & (table["game"] == 5), "f2"] = np.nan  # an undefined value
    folder.mkdir(parents=True, exist_ok=True)
    table.to_csv(folder / "validation_games.csv", index=False)
    summary = {
        "version": 3, "features": ["f1", "f2"], "distinct_styles": 3, "distinct_styles_non_inferior": 2,
        "styles": {"delta": 1.0, "margin": 0.1, "alpha": 0.05, "quality": quality,
                   "games": len(LEVELS) * PER_LEVEL, "sd": {}, "counts": {"0": 3, "0.5": 3, "1": 3},
                   "styles": [C, A, B], "duplicates": [[C, D]],
                   "ties": {"count": 2, "share": {A: 1.0, B: 1.0, C: 0.5, D: 0.5}},
                   "differs_from_control": {C: True, A: False, B: True}, "non_inferiority": {},
                   "identification": {"accuracy": 1.0, "chance": 1 / 3, "per_style": {},
                                      "features": ["f1", "f2", "f3"], "games": 72},
                   "null": {"counts": {"0": 2, "0.5": 2, "1": 2}, "styles": NULLS,
                            "genomes": NULLS} if nulls else None}}
    (folder / "validation_summary.json").write_text(json.dumps(summary))
    return folder


def agreeing_summary(folder: Path) -> dict:
    """The folder's summary with every figure the check recomputes as it recomputes it."""
    r = cs.check(folder)
    summary = json.loads((folder / "validation_summary.json").read_text())
    st = summary["styles"]
    summary["distinct_styles"] = r["count"]
    summary["distinct_styles_non_inferior"] = r["non_inferior"]
    st.update(sd=r["sd"], counts=r["counts"], styles=r["styles"], ties=r["ties"],
              duplicates=r["duplicates"], differs_from_control=r["differs_from_control"],
              non_inferiority=r["non_inferiority"], identification=r["identification"],
              null=r["null"])
    return summary


@pytest.fixture
def folder(tmp_path):
    return write_folder(tmp_path / "run")


def test_the_known_properties_are_recomputed(folder):
    r = cs.check(folder)
    assert r["checked"]
    assert r["elites"] == [A, B, C, D]
    assert r["duplicates"] == [[C, D]]
    # A, B and C (or its duplicate D) lie several standard deviations apart: 3 styles at every delta
    assert r["counts"] == {"0": 3, "0.5": 3, "1": 3} and r["count"] == 3
    assert r["ties"] == {"count": 2, "share": {A: 1.0, B: 1.0, C: 0.5, D: 0.5}}
    # C and D tie on quality (same games): C appears first; strongest first: C, A, B
    assert r["styles"] == [C, A, B]
    assert r["differs_from_control"] == {C: True, A: False, B: True}
    ni = r["non_inferiority"]
    assert ni[A]["difference"] == 0 and ni[A]["lower"] == 0 and ni[A]["non_inferior"]
    assert ni[C]["non_inferior"] and ni[C]["difference"] == pytest.approx(0.25)
    assert ni[B]["difference"] == pytest.approx(-0.25 * 5 / 6)
    assert not ni[B]["non_inferior"] and ni[B]["lower"] < -0.1
    assert r["non_inferior"] == 2
    ident = r["identification"]
    assert ident["chance"] == pytest.approx(1 / 3) and ident["games"] == 72
    assert ident["accuracy"] > 0.95 and min(ident["per_style"].values()) > 0.9
    assert r["null"]["counts"] == {"0": 2, "0.5": 2, "1": 2}
    assert r["null"]["styles"] == NULLS  # the same quality: the order of appearance
    # the hand-made summary says all of that, not the floats: those (and only those) disagree
    assert r["disagreements"]
    allowed = ("sd[", "non_inferiority styles", "identification.accuracy", "identification.per_style styles")
    assert all(d.startswith(allowed)
               for d in r["disagreements"]), r["disagreements"]


def test_the_figures_follow_the_formulas(folder):
    r = cs.check(folder)
    table = pd.read_csv(folder / "validation_games.csv", dtype={"cell": str})
    # sd: the within-genome standard deviation pooled over every genome (null genomes too)
    for f in ("f1", "f2"):
        groups = [v.dropna().to_numpy() for _, v in table.groupby("cell")[f]]
        num = sum((len(v) - 1) * v.var(ddof=1) for v in groups)
        assert r["sd"][f] == pytest.approx(math.sqrt(num / sum(len(v) - 1 for v in groups)), rel=1e-12)
    # B against the control, blocked by level
    wins = table.pivot(index="game", columns="cell", values="elite_won")
    d = (wins[B] - wins[CONTROL]).to_numpy()
    blocks = d.reshape(len(LEVELS), PER_LEVEL).mean(axis=1)
    se = blocks.std(ddof=1) / math.sqrt(len(LEVELS))
    t = stats.t.ppf(0.95, len(LEVELS) - 1)
    ni = r["non_inferiority"][B]
    assert ni["lower"] == pytest.approx(blocks.mean() - t * se, rel=1e-12)
    assert ni["power"] == pytest.approx(1 - stats.t.cdf(t - 0.1 / se, len(LEVELS) - 1), rel=1e-12)
    z = stats.norm.ppf(0.95) + stats.norm.ppf(0.8)
    assert ni["games_needed"] == math.ceil((z * d.std(ddof=1) / 0.1) ** 2)
    assert ni["margin"] == 0.1


def test_a_summary_saying_the_same_agrees_and_every_altered_figure_is_named(folder, capsys):
    summary = agreeing_summary(folder)
    (folder / "validation_summary.json").write_text(json.dumps(summary))
    assert cs.check(folder)["disagreements"] == []
    assert cs.main([str(folder)]) == 0
    assert "agrees" in capsys.readouterr().out
    st = summary["styles"]
    alterations = {
        "distinct_styles": lambda s: s.update(distinct_styles=2),
        "counts[0.5]": lambda s: s["styles"]["counts"].update({"0.5": 2}),
        "styles": lambda s: s["styles"].update(styles=[A, C, B]),
        "ties.count": lambda s: s["styles"]["ties"].update(count=1),
        "duplicates": lambda s: s["styles"].update(duplicates=[]),
        "differs_from_control": lambda s: s["styles"]["differs_from_control"].update({A: True}),
        f"non_inferiority[{B}].lower": lambda s: s["styles"]["non_inferiority"][B].update(
            lower=st["non_inferiority"][B]["lower"] * (1 + 1e-6)),
        f"non_inferiority[{B}].non_inferior": lambda s: s["styles"]["non_inferiority"][B].update(
            non_inferior=True),
        f"non_inferiority[{B}].games_needed": lambda s: s["styles"]["non_inferiority"][B].update(
            games_needed=st["non_inferiority"][B]["games_needed"] + 1),
        "identification.accuracy": lambda s: s["styles"]["identification"].update(accuracy=0.5),
        "sd[f1]": lambda s: s["styles"]["sd"].update(f1=st["sd"]["f1"] * (1 + 1e-7)),
        "null.counts[1]": lambda s: s["styles"]["null"]["counts"].update({"1": 1}),
    }
    for name, alter in alterations.items():
        altered = copy.deepcopy(summary)
        alter(altered)
        (folder / "validation_summary.json").write_text(json.dumps(altered))
        found = cs.check(folder)["disagreements"]
        assert len(found) == 1 and found[0].startswith(name), (name, found)
    assert cs.main([str(folder)]) == 1
    assert "DISAGREES" in capsys.readouterr().out


def test_a_complemented_power_is_named_as_such(folder):
    summary = agreeing_summary(folder)
    ni = summary["styles"]["non_inferiority"][B]
    ni["power"] = 1 - ni["power"]
    (folder / "validation_summary.json").write_text(json.dumps(summary))
    found = cs.check(folder)["disagreements"]
    assert len(found) == 1 and "complement" in found[0]


def test_a_one_player_game_takes_its_margin_from_the_control_score(tmp_path):
    folder = write_folder(tmp_path / "solo", quality="score", nulls=False)
    r = cs.check(folder)
    table = pd.read_csv(folder / "validation_games.csv", dtype={"cell": str})
    control_mean = table.loc[table["cell"] == CONTROL, "elite_score"].mean()
    for s in r["styles"]:
        assert r["non_inferiority"][s]["margin"] == pytest.approx(0.1 * abs(control_mean), rel=1e-12)
    # B scores 100 less in 5 games of 24 than the control: far beyond 10% of ~60 points
    assert not r["non_inferiority"][B]["non_inferior"]
    assert r["non_inferiority"][A]["non_inferior"] and r["null"] is None


def test_a_summary_before_version_3_is_not_checked(folder, capsys):
    summary = json.loads((folder / "validation_summary.json").read_text())
    summary["version"] = 2
    summary["styles"]["counts"] = {"1": 99}
    (folder / "validation_summary.json").write_text(json.dumps(summary))
    r = cs.check(folder)
    assert r["checked"] is False and r["disagreements"] == []
    assert cs.main([str(folder)]) == 0
    assert "not checked" in capsys.readouterr().out


def test_the_blocked_test_at_delta_0_is_the_t_test_of_the_block_means():
    rng = np.random.default_rng(3)
    d = rng.normal(0.4, 1.0, size=30)
    block = np.repeat(np.arange(6), 5)
    d[[2, 11]] = np.nan  # games where one side is undefined are left out
    mean, se, n = cs.blocked(d, block)
    means = np.array([np.nanmean(d[block == b]) for b in range(6)])
    assert n == 6 and mean == pytest.approx(means.mean())
    assert cs.p_value(mean, se, n, 0.0) == pytest.approx(stats.ttest_1samp(means, 0.0).pvalue, rel=1e-10)
    # beyond delta 0: against |D| = h exactly, both tails
    h = 0.2
    expected = stats.t.sf((abs(mean) - h) / se, 5) + stats.t.sf((abs(mean) + h) / se, 5)
    assert cs.p_value(mean, se, n, h) == pytest.approx(expected, rel=1e-12)
    assert cs.p_value(mean, se, 1, 0.0) == 1.0  # one block: no test
    assert cs.p_value(0.3, 0.0, 4, 0.2) == 0.0 and cs.p_value(0.3, 0.0, 4, 0.3) == 1.0


def test_holm():
    assert cs.holm([0.01, 0.04, 0.03, 0.5], 0.05) == [True, False, False, False]
    assert cs.holm([0.01, 0.02, 0.03], 0.05) == [True, True, True]
    assert cs.holm([0.02, 0.02], 0.05) == [True, True]
    assert cs.holm([], 0.05) == []


@pytest.mark.parametrize("seed", range(20))
def test_the_maximum_cliques_are_every_largest_set(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 11))
    edges = {frozenset(p) for p in itertools.combinations(range(n), 2) if rng.random() < rng.random()}
    best, size = [], 0
    for k in range(n, 0, -1):
        best = [frozenset(s) for s in itertools.combinations(range(n), k)
                if all(frozenset(p) in edges for p in itertools.combinations(s, 2))]
        if best:
            size = k
            break
    found = cs.maximum_cliques(n, lambda i, j: frozenset((i, j)) in edges)
    assert sorted(map(sorted, found)) == sorted(map(sorted, best)) and len(found[0]) == size


def test_the_tie_break_prefers_quality_then_ranks():
    genomes = ["a", "b", "c", "d"]
    differs = {frozenset(("a", "d")), frozenset(("b", "c"))}
    # two tied pairs of equal summed quality (0.5 + 0.4 and 0.6 + 0.3, equal up to rounding);
    # ranks: b 0, a 1, d 2, c 3: {b, c} ranks [0, 3], before {a, d}'s [1, 2]
    chosen = cs.choose(genomes, differs, {"a": 0.5, "b": 0.6, "c": 0.3, "d": 0.4})
    assert chosen["styles"] == ["b", "c"] and chosen["ties"] == 2
    assert chosen["share"] == {g: 0.5 for g in genomes}
    chosen = cs.choose(genomes, differs, {"a": 0.5, "b": 0.6, "c": 0.3, "d": 0.45})
    assert chosen["styles"] == ["a", "d"]  # the higher sum first, whatever the ranks
    # nothing differs: every genome alone ties; the strongest is chosen
    chosen = cs.choose(genomes, set(), {"a": 0.5, "b": 0.6, "c": 0.3, "d": 0.45})
    assert chosen["styles"] == ["b"] and chosen["ties"] == 4


@pytest.mark.parametrize("folder", COMMITTED, ids=[str(f.relative_to(RESULTS)) for f in COMMITTED])
def test_committed_validations_agree(folder):
    r = cs.check(folder)
    assert r["checked"]
    assert r["disagreements"] == []


def test_committed_validations_exist_or_none_is_version_3():
    if not COMMITTED:
        pytest.skip("no committed validation has version 3 yet")
    assert all(_version(f) >= 3 for f in COMMITTED)


# The targets of "styles you can see" (docs/qd.md), recomputed from the committed per-game
# tables by experiments/check_styles.py, which imports nothing of qd.
QUICKSTART = RESULTS / "quickstart"
USE_CASE = [RESULTS / "mixtures", RESULTS / "mixtures" / "seed2", RESULTS / "mixtures" / "seed3"]


def test_the_quickstart_shows_three_styles_a_standard_deviation_apart():
    r = cs.check(QUICKSTART)
    assert r["checked"] and r["delta"] == 1.0
    assert r["count"] >= 3


@pytest.mark.parametrize("folder", USE_CASE, ids=[f.name for f in USE_CASE])
def test_the_use_case_meets_its_targets_at_every_run_seed(folder):
    r = cs.check(folder)
    assert r["checked"] and r["delta"] == 1.0 and r["margin"] == 0.1
    assert r["count"] >= 8  # styles pairwise at least 1 sd apart, paired, Holm
    assert r["identification"]["accuracy"] >= 0.5  # one game names the style
    assert r["non_inferior"] >= 5  # within 10 points of the control
    assert r["count"] >= 2 * r["null"]["counts"]["1"]  # twice the fixed genomes' count
    levels = pd.read_csv(folder / "validation_games.csv")["level"]
    assert levels.min() >= 94000 and levels.nunique() == 90  # fresh levels, one game each
