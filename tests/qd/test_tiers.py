"""`playstyles tiers`: each distinct style of a validated tiny run and the control at several
budgets on the validation's games; the tier at the run's own budget replays the validation;
one preset per style and tier that plays at its budget; errors name the field; an output
folder it did not write is never written into."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from play.presets import load_presets
from playstyles.cli import main
from qd.tiers import check_budgets, style_tiers, tier_identification, tier_name, tier_steps
from qd.validation import validate
from tests.plots.tiny_run import TINY_RUN, copy_run, tiny_run

BUDGETS = (2, TINY_RUN["agent"]["budget"], 30)


@pytest.fixture(scope="module")
def tiered(tmp_path_factory):
    run = copy_run(tiny_run(tmp_path_factory), tmp_path_factory.mktemp("tiers") / "run")
    validate(run, workers=0, delta=0.0)  # every separable elite a style
    return run, style_tiers(run, BUDGETS, workers=0)


def test_every_style_plays_every_tier_and_the_run_budget_replays_the_validation(tiered):
    run, result = tiered
    validation = pd.read_csv(run / "validation.csv", dtype={"cell": str})
    styles = validation[validation["distinct"]]
    table = result.table
    assert len(table) == len(styles) * len(BUDGETS)
    assert sorted(table["budget"].unique()) == sorted(BUDGETS)
    assert (table.groupby("budget")["tier"].first().to_list() == [1, 2, 3])
    own = table[table["budget"] == TINY_RUN["agent"]["budget"]].set_index("index")
    for r in styles.to_dict("records"):  # same games: the same numbers, to the last digit
        mine = own.loc[r["index"]]
        assert mine["win_rate_validated"] == r["win_rate_validated"]
        assert mine["research_slope_validated"] == r["research_slope_validated"]
        assert mine["run_style"] == r["style"]
    games = pd.read_csv(result.out / "tiers_games.csv")
    # game g has the same level and seat at every tier
    firsts = games[games["index"] >= 0].groupby(["tier", "game"])["level"].first().unstack(0)
    assert (firsts.nunique(axis=1) == 1).all()
    summary = json.loads((result.out / "tiers_summary.json").read_text())
    assert summary["budgets"] == sorted(BUDGETS)
    assert [t["budget"] for t in summary["tiers"]] == sorted(BUDGETS)
    assert not (result.out / "tiers.journal").exists()
    text = (result.out / "tiers.md").read_text()
    styles_part, ladder_part = text.split("## Each style's tiers as a difficulty ladder")
    assert styles_part.count("| #") == len(table)
    assert ladder_part.count("| #") == len(styles) * (len(BUDGETS) - 1)


def test_one_game_names_the_style_among_those_played_at_a_tier(tiered):
    _, result = tiered  # (the tiny run holds one style: nothing to tell apart)
    assert [t["identification"] for t in result.summary["tiers"]] == [None] * len(BUDGETS)

    def rows(forestry):  # two styles and the control on 8 levels, 2 games each
        out = []
        for index, cell in ((0, "a"), (1, "b"), (-1, "control")):
            for g in range(16):
                out.append({"index": index, "cell": cell, "game": g, "level": g // 2,
                            "elite_won": g % 2, "forestry": forestry(index, g),
                            "monuments": 0.0})
        return out
    apart = tier_identification("tribes", rows(lambda i, g: 4.0 * i + 0.1 * (g % 3)))
    assert apart["accuracy"] == 1.0 and apart["chance"] == 0.5 and apart["games"] == 32
    assert set(apart["per_style"]) == {"a", "b"}  # the control is no style of the run
    same = tier_identification("tribes", rows(lambda i, g: 0.1 * (g % 3)))
    assert same["accuracy"] < 0.75
    one = [r for r in rows(lambda i, g: 1.0) if r["index"] != 1]
    assert tier_identification("tribes", one) is None


def test_each_styles_steps_are_counted_from_its_paired_games(tiered):
    run, result = tiered
    steps = pd.read_csv(result.out / "tiers_steps.csv")
    games = pd.read_csv(result.out / "tiers_games.csv")
    n_styles = games["index"].nunique()  # the styles and the control
    assert len(steps) == n_styles * (len(BUDGETS) - 1)
    for r in steps.to_dict("records"):
        lo = games[(games["index"] == r["index"]) & (games["tier"] == r["from_tier"])]
        hi = games[(games["index"] == r["index"]) & (games["tier"] == r["to_tier"])]
        diff = hi.set_index("game")["elite_won"] - lo.set_index("game")["elite_won"]
        assert (r["better"], r["worse"], r["games"]) == ((diff > 0).sum(), (diff < 0).sum(),
                                                         len(diff))
    assert (steps["style"] == "control").sum() == len(BUDGETS) - 1
    summary = json.loads((result.out / "tiers_summary.json").read_text())
    for style, g in steps.groupby("style"):
        assert summary["ladders"][str(style)]["steps_shown"] == g["shown"].to_list()


def test_a_step_is_shown_by_the_sign_test_and_otherwise_says_what_would_show_it():
    rows = []
    for g in range(40):  # style 1: the higher tier wins every game the lower one lost
        rows += [{"tier": 1, "index": 0, "game": g, "elite_won": 0.0},
                 {"tier": 2, "index": 0, "game": g, "elite_won": 1.0 if g < 20 else 0.0},
                 {"tier": 1, "index": 1, "game": g, "elite_won": 1.0 if g % 2 else 0.0},
                 {"tier": 2, "index": 1, "game": g, "elite_won": 1.0 if g % 2 else 0.0},
                 {"tier": 1, "index": 2, "game": g, "elite_won": 1.0 if g < 4 else 0.0},
                 {"tier": 2, "index": 2, "game": g, "elite_won": 1.0 if 2 <= g < 8 else 0.0}]
    steps = tier_steps(rows, {0: 1, 1: 2, 2: 3}, [10, 30]).set_index("style")
    assert steps.loc[1, "shown"] and (steps.loc[1, "better"], steps.loc[1, "worse"]) == (20, 0)
    assert not steps.loc[2, "shown"] and pd.isna(steps.loc[2, "games_needed"])  # no change
    # style 3: 4 better, 2 worse of 40: not shown, more games than played would
    assert not steps.loc[3, "shown"] and steps.loc[3, "games_needed"] > 40


def test_one_preset_per_style_and_tier_plays_at_its_budget(tiered):
    run, result = tiered
    pf = load_presets(result.presets)
    assert len(pf.presets) == len(result.table)
    for p in pf.presets:
        ev = p.evidence
        assert p.params["budget"] == ev["budget"]
        assert p.name.endswith(tier_name(ev["tier"], ev["budget"]))
        row = result.table[(result.table["index"].astype(str) != "")
                           & (result.table["cell"].astype(str) == ev["cell"])
                           & (result.table["tier"] == ev["tier"])].iloc[0]
        assert ev["win_rate_validated"] == pytest.approx(row["win_rate_validated"])
        assert ev["holds"] == bool(row["holds"])
    # the same style at every tier: the same weights, only the budget differs
    by_cell: dict[str, list] = {}
    for p in pf.presets:
        by_cell.setdefault(p.evidence["cell"], []).append(p)
    for same in by_cell.values():
        weights = [{k: v for k, v in p.params.items() if k != "budget"} for p in same]
        assert all(w == weights[0] for w in weights)
        assert sorted(p.params["budget"] for p in same) == sorted(BUDGETS)


@pytest.mark.parametrize("budgets, words", [
    ([3, 3], "named twice"), ([0], "outside"), (["x"], "no whole number"),
    (list(range(1, 11)), "1 to 8 budgets"), ([], "1 to 8 budgets")])
def test_bad_budgets_are_one_error_naming_them(budgets, words):
    with pytest.raises(ValueError, match="budgets") as e:
        check_budgets(budgets)
    assert words in str(e.value)


def test_an_unvalidated_run_is_refused_with_what_to_do(tmp_path_factory):
    run = copy_run(tiny_run(tmp_path_factory), tmp_path_factory.mktemp("tiers2") / "run")
    with pytest.raises(ValueError, match="validate the run first"):
        style_tiers(run, [2, 4], workers=0)
    assert not (run / "tiers").exists()


def test_a_folder_it_did_not_write_is_refused(tiered, tmp_path, capsys):
    run, _ = tiered
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep")
    code = main(["tiers", str(run), "--budgets", "2", "--out", str(other), "--workers", "0",
                 "--quiet"])
    assert code == 2
    assert "notes.txt" in capsys.readouterr().err or (other / "notes.txt").read_text() == "keep"
    assert sorted(p.name for p in other.iterdir()) == ["notes.txt"]
    # its own earlier results: refused without --force, replaced with it
    code = main(["tiers", str(run), "--budgets", "2", "--workers", "0", "--quiet"])
    assert code == 2
    assert "--force" in capsys.readouterr().err
