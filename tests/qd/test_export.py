"""Exporting elites as presets: the selection rules on hand-made numbers, the files a tiny run
gives, the validated win rate taking precedence, the elite's exact agent in the preset, style
export taking the distinct validated styles, and names made from the numbers printed beside
them, each naming the games it comes from."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from base.version import __version__
from games.api import results
from games.registry import get_game
from play.presets import load_preset, load_presets
from play.runner import AgentSpec, GameSpec, run_game
from playstyles.cli import main
from qd.config import load_config
from qd.export import corner_order, export_presets, pick_difficulty, pick_styles, style_name
from qd.features import Feature, features_of
from qd.validation import validate
from tests.plots.tiny_run import copy_run, tiny_run

TRIBES = features_of("tribes")


def test_pick_difficulty_spreads_over_win_rate():
    s = [0.1, 0.9, 0.5, 0.52, 0.3, 0.45]
    assert pick_difficulty(s, 3) == [0, 2, 1]  # targets 0.1, 0.5, 0.9
    assert pick_difficulty(s, 5) == [0, 4, 2, 3, 1]  # targets 0.1, 0.3, 0.5, 0.7, 0.9
    assert pick_difficulty(s, 1) == [1]  # one preset: the strongest
    assert pick_difficulty([0.5, 0.5, 0.5], 2) == [0, 1]  # ties still give distinct elites
    with pytest.raises(ValueError, match="count: 7 presets asked, only 6 elites"):
        pick_difficulty(s, 7)


def test_pick_styles_takes_corners_then_far_points():
    assert [c.tolist() for c in corner_order(2)] == [[0, 0], [1, 1], [0, 1], [1, 0]]
    pts = np.array([[5, 5], [0, 0], [10, 10], [0, 10], [10, 0], [1, 1]], float)
    q = [0.5] * 6
    assert pick_styles(pts, q, 2) == [1, 2]
    assert pick_styles(pts, q, 5) == [1, 2, 3, 4, 0]
    # two elites equally near a corner: the better one
    pts = np.array([[0, 1], [1, 0], [4, 4]], float)
    assert pick_styles(pts, [0.2, 0.9, 0.5], 1) == [1]


def test_style_names_by_position_in_the_inhabited_range():
    ranges = {"attacks": (0.0, 12.0), "ranged_minus_melee": (-3.0, 3.0)}
    assert style_name({"attacks": 11.0, "ranged_minus_melee": 2.5}, ranges, TRIBES) == \
        "many attacks, ranged support"
    assert style_name({"attacks": 1.0, "ranged_minus_melee": 0.0}, ranges, TRIBES) == \
        "few attacks, mixed army"
    assert style_name({"attacks": 6.0, "ranged_minus_melee": -3.0}, ranges, TRIBES) == \
        "some attacks, melee army"
    wordless = {"kills_per_turn": Feature("kills_per_turn", 0, 2, 1, lambda g: 0.0)}
    assert style_name({"kills_per_turn": 1.0}, {"kills_per_turn": (0, 2)}, wordless) == \
        "medium kills_per_turn"
    assert all(len(f.words) == 3 for f in TRIBES.values())


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return tiny_run(tmp_path_factory)


def test_difficulty_presets_from_a_run(run_dir, tmp_path):
    pf, path = export_presets(run_dir, "difficulty", 3, out=tmp_path / "p.json")
    assert path.exists() and load_presets(path).names == pf.names
    assert pf.names == ["level 1 (easiest)", "level 2", "level 3 (hardest)"]
    elites = pd.read_csv(run_dir / "elites.csv").set_index("cell")
    rates = [p.evidence["win_rate_evolved"] for p in pf.presets]
    assert rates == sorted(rates)
    assert rates[0] == elites["win_rate"].min() and rates[-1] == elites["win_rate"].max()
    cfg = load_config(run_dir / "config.yaml")
    for p in pf.presets:
        row = elites.loc[p.evidence["cell"]]
        assert p.agent == "pmcts_pu" and p.game == "tribes" and p.options == {"max_rounds": 4}
        assert p.params["budget"] == 8 and "seed" not in p.params
        assert {n: p.params["weights"][n] for n in cfg.genome_names} == \
            {n: float(row[n]) for n in cfg.genome_names}
        assert p.evidence["games_evolved"] == row["games"]
        assert p.evidence["features"]["research_slope"] == pytest.approx(row["research_slope_mean"])
        assert p.evidence["win_rate_source"] == "evolved"
        assert p.evidence["win_rate_validated"] is None
        assert p.description.startswith(f"evolution: won {100 * row['win_rate']:.0f}% of "
                                        f"{row['games']} games")
    data = json.loads(path.read_text())
    assert data["format"] == "playstyles-presets" and data["version"] == 1
    assert data["source"]["held_out_levels"] == [13, 14, 15]
    by = data["source"]["exported_by"]  # the code that exported it
    assert by["playstyles"] == __version__ and set(by) == {"playstyles", "commit",
                                                           "uncommitted_changes"}
    assert by["commit"] is None or len(by["commit"]) == 40
    assert all(p.evidence["run"] == "tiny" for p in pf.presets)


def test_preset_agent_makes_the_elites_decisions(run_dir, tmp_path):
    """The preset rebuilds the agent evolution played: same game, same moves."""
    pf, path = export_presets(run_dir, "difficulty", 2, out=tmp_path / "p.json")
    cfg = load_config(run_dir / "config.yaml")
    plan = cfg.plan()
    elites = pd.read_csv(run_dir / "elites.csv").set_index("cell")
    preset = load_presets(path).presets[-1]
    genome = np.array([elites.loc[preset.evidence["cell"], n] for n in cfg.genome_names])
    elite = plan.agent_for(genome)
    opp = AgentSpec.of("mcts", budget=8)
    base = dict(game="tribes", level=13, seed=21, agent_seeds=(5, 6), options=plan.options)
    a = run_game(GameSpec(agents=(elite, opp), **base))
    b = run_game(GameSpec(agents=(preset.spec(), opp), **base))
    assert a.events == b.events and a.decisions == b.decisions
    assert elite.build(5, "tribes").params() == preset.build(5).params()


def _own_loop(agents, level: int, seed: int, options) -> tuple[list, list]:
    """A game played the way a game's own loop calls its agents (docs/presets.md): every
    decision asked of the player to move; the actions and each player's result."""
    state = get_game("tribes").new_state(level, seed, **dict(options))
    actions = []
    while not state.is_terminal():
        a = agents[state.current_player].act(state)
        actions.append(a)
        state.apply(a)
    return actions, results(state)


def test_a_loaded_preset_plays_the_elites_game(run_dir, tmp_path):
    """`load_preset` from the exported file plays the same game, action for action and to
    the same result, as the elite's agent built from the run's plan, at the same calls."""
    pf, path = export_presets(run_dir, "difficulty", 2, out=tmp_path / "p.json")
    cfg = load_config(run_dir / "config.yaml")
    plan = cfg.plan()
    elites = pd.read_csv(run_dir / "elites.csv").set_index("cell")
    for k, preset in enumerate(pf.presets):
        genome = np.array([elites.loc[preset.evidence["cell"], n] for n in cfg.genome_names])
        elite = plan.agent_for(genome).build(5, "tribes")
        loaded = load_preset(path, preset.name, seed=5)
        assert loaded.options == dict(plan.options) and loaded.params()["budget"] == 8
        opponents = [AgentSpec.of("mcts", budget=8).build(6, "tribes") for _ in range(2)]
        a = _own_loop([elite, opponents[0]], 13 + k, 21, plan.options)
        b = _own_loop([loaded, opponents[1]], 13 + k, 21, plan.options)
        assert a == b and len(a[0]) > 10
        assert len(loaded.moves) > 5 and all(m.calls <= 8 for m in loaded.moves)


def test_validated_win_rates_take_precedence(run_dir, tmp_path):
    d = copy_run(run_dir, tmp_path / "run")
    v = validate(d, games=2, workers=0).table
    pf, _ = export_presets(d, "difficulty", 2)
    assert (d / "presets_difficulty.json").exists()
    rates = [p.evidence["win_rate_validated"] for p in pf.presets]
    assert rates[0] == v["win_rate_validated"].min() and rates[-1] == v["win_rate_validated"].max()
    for p in pf.presets:
        row = v.set_index("cell").loc[p.evidence["cell"]]
        assert p.evidence["win_rate_source"] == "validated"
        assert p.evidence["games_validated"] == 2
        assert p.evidence["win_rate_validated_ci"] == [row["win_rate_ci_low"],
                                                       row["win_rate_ci_high"]]
        assert p.evidence["validation_levels"] == [13, 14]
        assert "held-out levels" in p.description
    # styles are placed and named by their validated features too
    styles, _ = export_presets(d, "style", 2)
    for p in styles.presets:
        row = v.set_index("cell").loc[p.evidence["cell"]]
        assert p.evidence["win_rate_source"] == "validated"
        assert p.evidence["features_validated"]["tile_slope"] == pytest.approx(
            row["tile_slope_validated"])
        assert f"tile_slope {row['tile_slope_validated']:.3g}" in p.description
        assert p.description.startswith("held out (2 games on 2 held-out levels): ")
    # replays on the training levels (a re-estimate) are not called held-out
    validate(d, levels="train", games=2, workers=0)
    again, _ = export_presets(d, "difficulty", 2, force=True)  # the earlier file: --force
    assert all(p.description.startswith("replayed (2 fresh games on 2 training levels): ")
               and "held-out" not in p.description for p in again.presets)


def test_style_presets_from_a_run(run_dir, tmp_path):
    pf, _ = export_presets(run_dir, "style", 2, out=tmp_path / "s.json")
    assert pf.kind == "style" and len(set(pf.names)) == 2
    words = {w for f in TRIBES.values() for w in f.words}
    for name in pf.names:
        parts = name.split(" (")[0].split(", ")
        assert len(parts) == 2 and set(parts) <= words
    cells = [p.evidence["grid_index"] for p in pf.presets]
    assert cells[0] != cells[1]
    # a name says what the numbers beside it say: each word is the third of the feature's
    # grid range its printed mean (elites.csv's, from evolution) falls in; the feature means
    # come with 95% intervals
    config = load_config(run_dir / "config.yaml")
    for p in pf.presets:
        assert p.description.startswith("evolution: ") and p.evidence["evolved_from"] == \
            "evolution"
        _assert_named_by_printed_values(p, config.features, "features")
        for f in config.features:
            lo, hi = p.evidence["features_ci95"][f.name]
            assert lo <= p.evidence["features"][f.name] <= hi
    # not validated: exported as before, with a one-line warning naming the command
    unchecked = [w for w in pf.source["warnings"] if "not been validated" in w]
    assert len(unchecked) == 1 and f"playstyles validate {run_dir}" in unchecked[0]


def test_reestimated_values_are_labelled_as_such(run_dir, tmp_path):
    """A run whose closing batch re-estimated its elites: every number exported says it comes
    from the fresh games, none that it comes from evolution."""
    import yaml
    d = copy_run(run_dir, tmp_path / "run")
    cfg = yaml.safe_load((d / "config.yaml").read_text())
    cfg["noise"] = {"method": "reestimate", "replays": 2}
    (d / "config.yaml").write_text(yaml.safe_dump(cfg))
    (d / "checkpoint.jsonl").unlink()  # it records the config the tiny run was made with
    metrics = pd.read_csv(d / "metrics.csv")
    closing = metrics.iloc[[-1]].assign(batch=len(metrics), batch_size=0)
    pd.concat([metrics, closing]).to_csv(d / "metrics.csv", index=False)
    games = pd.read_csv(d / "elites.csv")["games"]
    assert games.min() == games.max()  # the tiny run: one game per training level
    fresh = f"re-estimation ({games.min()} fresh games on training levels)"
    for kind in ("difficulty", "style"):
        pf, _ = export_presets(d, kind, 2, out=tmp_path / f"{kind}.json", min_games=1)
        assert pf.source["evolved_from"] == fresh and pf.source["validated_from"] is None
        assert ("spread over the re-estimated win rate" if kind == "difficulty" else
                f"named by the feature means from {fresh}") in pf.source["selection"]
        for p in pf.presets:
            assert p.description.startswith(f"{fresh}: ") and "evolution" not in p.description
            assert p.evidence["evolved_from"] == fresh
        assert load_presets(tmp_path / f"{kind}.json").names == pf.names


def _assert_named_by_printed_values(preset, features, key: str) -> None:
    """Each word of the preset's name is the third of the feature's range (the grid range)
    that the value printed beside the name falls in."""
    words = preset.name.split(" (")[0].split(", ")
    assert len(words) == len(features)
    for f, word in zip(features, words):
        v = preset.evidence[key][f.name]
        assert f"{f.name} {v:.3g}" in preset.description
        t = (v - f.lo) / (f.hi - f.lo)
        third = 0 if t < 1 / 3 else 2 if t > 2 / 3 else 1
        assert word == f.describe(third), (word, f.name, v)
        if word == f.words[2]:
            assert v > f.lo + 2 * (f.hi - f.lo) / 3
        elif word == f.words[0]:
            assert v < f.lo + (f.hi - f.lo) / 3


def _with_styles(d, distinct):
    """Give the copy's validation.csv known styles: `distinct` cells in this order, #1 first."""
    v = pd.read_csv(d / "validation.csv")
    rank = {c: i + 1 for i, c in enumerate(distinct)}
    v["style"] = [rank.get(str(c), 0) for c in v["cell"]]
    v["distinct"] = v["style"] > 0
    v.to_csv(d / "validation.csv", index=False)
    return v


def test_style_export_takes_the_distinct_validated_styles(tmp_path_factory, tmp_path, capsys):
    d = copy_run(tiny_run(tmp_path_factory), tmp_path / "run")
    validate(d, games=4, workers=0)
    v = pd.read_csv(d / "validation.csv")
    assert len(v) >= 3
    cells = v["cell"].astype(str).tolist()
    chosen = [cells[2], cells[0]]  # two styles held up, in this order
    v = _with_styles(d, chosen).set_index(v["cell"].astype(str))
    config = load_config(d / "config.yaml")
    pf, _ = export_presets(d, "style", 3, out=tmp_path / "s.json", min_games=1)
    assert [p.evidence["cell"] for p in pf.presets] == chosen
    assert [p.evidence["style"] for p in pf.presets] == [1, 2]
    assert pf.source["warnings"] == [
        f"only 2 of the {len(v)} validated elites held up as distinct styles (held out (4 "
        f"games on 3 held-out levels)): 2 exported of the 3 asked (--all-elites chooses among "
        f"every elite)"]
    assert "distinct styles that held up" in pf.source["selection"]
    for p in pf.presets:
        row = v.loc[p.evidence["cell"]]
        assert p.evidence["win_rate_source"] == "validated"
        assert p.description.startswith("held out (4 games on 3 held-out levels): ")
        assert p.evidence["validated_from"] == "held out (4 games on 3 held-out levels)"
        # the held-out intervals: the win rate's Wilson interval and each feature's t interval
        low, high = row["win_rate_ci_low"], row["win_rate_ci_high"]
        assert p.evidence["win_rate_validated_ci"] == [low, high]
        assert f"({100 * low:.0f}-{100 * high:.0f}%)" in p.description
        for f in config.features:
            lo, hi = row[f"{f.name}_ci_low_validated"], row[f"{f.name}_ci_high_validated"]
            want = None if np.isnan(lo) else [lo, hi]
            assert p.evidence["features_validated_ci95"][f.name] == want
        # named by the held-out means printed beside the name
        _assert_named_by_printed_values(p, config.features, "features_validated")
    assert load_presets(tmp_path / "s.json").names == pf.names  # the file reads back
    # --all-elites: every validated elite is a candidate again
    assert main(["export", str(d), "--kind", "style", "--count", "3", "--all-elites",
                 "--min-games", "1", "-o", str(tmp_path / "a.json")]) == 0
    out = capsys.readouterr()
    every = load_presets(tmp_path / "a.json")
    assert len(every.presets) == 3 and "held up" not in out.err
    assert {p.evidence["style"] for p in every.presets} <= {0, 1, 2}
    for p in every.presets:
        _assert_named_by_printed_values(p, config.features, "features_validated")
    # the command line prints how many held up
    assert main(["export", str(d), "--kind", "style", "--count", "3", "--min-games", "1",
                 "-o", str(tmp_path / "c.json")]) == 0
    err = capsys.readouterr().err
    assert err.count("playstyles: warning:") == 1 and "only 2 of the" in err
    # none held up: a clear error, nothing written
    _with_styles(d, [])
    with pytest.raises(ValueError, match="none of the .* validated elites held up"):
        export_presets(d, "style", 2, out=tmp_path / "none.json")
    assert not (tmp_path / "none.json").exists()


def test_style_export_from_an_old_validation_warns(tmp_path_factory, tmp_path):
    """A validation written before styles were counted: exported as before, with a warning
    to validate again."""
    import json as _json
    d = copy_run(tiny_run(tmp_path_factory), tmp_path / "run")
    validate(d, games=2, workers=0)
    v = pd.read_csv(d / "validation.csv")
    v.drop(columns=["style", "distinct", "differs_from_control", "non_inferior"]) \
        .to_csv(d / "validation.csv", index=False)
    s = _json.loads((d / "validation_summary.json").read_text())
    for k in ("distinct_styles", "distinct_styles_non_inferior", "styles", "control"):
        s.pop(k)
    (d / "validation_summary.json").write_text(_json.dumps(s))
    pf, _ = export_presets(d, "style", 2, out=tmp_path / "s.json", min_games=1)
    assert len(pf.presets) == 2
    assert [w for w in pf.source["warnings"] if "did not count distinct styles" in w and
            "validate again" in w]
    assert all("style" not in p.evidence for p in pf.presets)


def test_export_errors_and_cli(run_dir, tmp_path, capsys):
    n = len(pd.read_csv(run_dir / "elites.csv"))
    with pytest.raises(ValueError, match=f"only {n} elites"):
        export_presets(run_dir, "difficulty", n + 1, out=tmp_path / "x.json")
    with pytest.raises(ValueError, match="kind: 'colour' unknown"):
        export_presets(run_dir, "colour", 1, out=tmp_path / "x.json")
    with pytest.raises(ValueError, match="names: 1 given for 2 presets"):
        export_presets(run_dir, "difficulty", 2, out=tmp_path / "x.json", names=["a"])
    out = tmp_path / "named.json"
    assert main(["export", str(run_dir), "--kind", "difficulty", "--count", "2", "-o", str(out),
                 "--names", "rookie", "veteran"]) == 0
    assert load_presets(out).names == ["rookie", "veteran"]
    assert "2 presets written" in capsys.readouterr().out


def test_presets_on_few_games_are_flagged_and_can_be_played(tmp_path_factory, tmp_path, capsys):
    d = copy_run(tiny_run(tmp_path_factory), tmp_path / "run")
    games = dict(zip(pd.read_csv(d / "elites.csv")["cell"].astype(str),
                     pd.read_csv(d / "elites.csv")["games"]))
    pf, _ = export_presets(d, "difficulty", 2, out=tmp_path / "a.json")
    warnings = pf.source["warnings"]
    assert len(warnings) == 2 and all("fewer than 20" in w for w in warnings)
    assert f"rests on {games[pf.presets[0].evidence['cell']]} games" in warnings[0]
    assert "warnings" in json.loads((tmp_path / "a.json").read_text())["source"]
    pf, _ = export_presets(d, "difficulty", 2, out=tmp_path / "b.json", min_games=1)
    assert "warnings" not in pf.source
    # the command line prints the warnings
    assert main(["export", str(d), "--count", "2", "-o", str(tmp_path / "c.json")]) == 0
    assert capsys.readouterr().err.count("playstyles: warning:") == 2
    # --play-missing validates the chosen elites first, then chooses from validated estimates
    pf, _ = export_presets(d, "difficulty", 2, out=tmp_path / "d.json", min_games=3,
                           play_missing=True, workers=0)
    v = pd.read_csv(d / "validation.csv")
    assert len(v) == 2 and (v["games_validated"] == 3).all()
    assert all(p.evidence["win_rate_source"] == "validated" for p in pf.presets)
    assert "warnings" not in pf.source
    # with a validation there, playing would replace it: a clear error instead
    with pytest.raises(ValueError, match="validation would be replaced"):
        export_presets(d, "difficulty", 2, out=tmp_path / "e.json", min_games=5,
                       play_missing=True, workers=0)


def test_export_with_calibration(tmp_path_factory, tmp_path, capsys):
    d = copy_run(tiny_run(tmp_path_factory), tmp_path / "run")
    out = tmp_path / "p.json"
    assert main(["export", str(d), "--count", "2", "-o", str(out), "--calibrate", "random",
                 "--games", "2", "--workers", "0", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert text.count("  rating ") == 2 and "win rate against random" in text
    pf = load_presets(out)
    assert all("rating" in p.evidence for p in pf.presets)
    assert pf.source["calibration"]["baselines"] == ["random"]
    assert (tmp_path / "p-ladder" / "ladder_ratings.csv").exists()


def test_difficulty_candidates_at_several_budgets_keep_separated_presets(
        tmp_path_factory, tmp_path, capsys):
    d = copy_run(tiny_run(tmp_path_factory), tmp_path / "run")
    out = tmp_path / "p.json"
    assert main(["export", str(d), "--count", "2", "--candidates", "2", "--budgets", "1", "20",
                 "-o", str(out), "--calibrate", "random", "--games", "2", "--workers", "0",
                 "--quiet"]) == 0
    capsys.readouterr()
    pf = load_presets(out)
    ladder = pd.read_csv(tmp_path / "p-ladder" / "ladder_ratings.csv")
    candidates = [a for a in ladder["agent"] if a != "random"]
    assert len(candidates) == 4 and all(" at 1 calls" in a or " at 20 calls" in a
                                        for a in candidates)
    assert pf.source["calibration"]["candidates"] == 4
    assert "4 candidates (2 elites x budgets [1, 20]), 2 asked, the ones kept being those " \
        "whose order the calibration shows" in pf.source["selection"]
    assert 1 <= len(pf.presets) <= 2
    assert pf.names[0] == ("level 1 (easiest)" if len(pf.presets) == 2 else "level 1")
    rating = ladder.set_index("agent")
    kept = [p.evidence["candidate"] for p in pf.presets]
    assert set(kept) <= set(candidates)
    lows = [rating.loc[c, "ci_low"] for c in kept]
    highs = [rating.loc[c, "ci_high"] for c in kept]
    elo = [rating.loc[c, "rating"] for c in kept]
    assert elo == sorted(elo) and len(lows) == len(highs)  # weakest first
    cal = pf.source["calibration"]
    assert cal["steps_shown"] and len(cal["steps"]) == len(kept) - 1  # every step shown
    for p in pf.presets:
        assert p.params["budget"] == p.evidence["budget"] in (1, 20)
        assert f"plays at {p.evidence['budget']} calls" in p.description
        assert set(p.evidence["rating"]["win_rate_vs"]) == {"random"}
        assert p.evidence["rating"]["elo"] == pytest.approx(
            rating.loc[p.evidence["candidate"], "rating"], abs=0.06)
    # warnings name kept presets only, by their new names
    for w in pf.source.get("warnings", []):
        assert not any(w.startswith(c + ":") for c in candidates)
    if len(pf.presets) < 2:
        assert any("only 1 of the 2 presets" in w for w in pf.source["warnings"])


def test_difficulty_candidates_need_calibration_and_sane_values(run_dir, tmp_path):
    x = tmp_path / "x.json"
    with pytest.raises(ValueError, match="calibrate: choosing 2 presets among 3 candidate"):
        export_presets(run_dir, "difficulty", 2, out=x, candidates=3)
    with pytest.raises(ValueError, match="x 2 budgets needs their ratings"):
        export_presets(run_dir, "difficulty", 2, out=x, budgets=[5, 10])
    with pytest.raises(ValueError, match=r"candidates: 1 elites give fewer than count \(2\)"):
        export_presets(run_dir, "difficulty", 2, out=x, candidates=1, calibrate=["random"])
    with pytest.raises(ValueError, match=r"1 elites x 2 budgets give fewer than count \(3\)"):
        export_presets(run_dir, "difficulty", 3, out=x, budgets=[5, 10], calibrate=["random"])
    with pytest.raises(ValueError, match="budgets: distinct positive"):
        export_presets(run_dir, "difficulty", 1, out=x, budgets=[5, 5], calibrate=["random"])
    with pytest.raises(ValueError, match="only for --kind difficulty"):
        export_presets(run_dir, "style", 1, out=x, budgets=[5], calibrate=["random"])
    assert not x.exists()  # nothing written, nothing played


def test_export_resume_names_a_missing_calibration(run_dir, tmp_path, capsys):
    out = tmp_path / "p.json"
    assert main(["export", str(run_dir), "--count", "1", "-o", str(out), "--calibrate", "random",
                 "--games", "2", "--workers", "0", "--quiet", "--resume"]) == 2
    err = capsys.readouterr().err
    assert "--resume" in err and "holds no interrupted ladder" in err


def test_export_of_named_cells_gives_each_elite_as_a_preset(tmp_path, capsys):
    """`--cells` (the line the archive explorer shows): exactly the elites named, in the order
    given, each with its genome and named by its style; the file of one preset is used as
    `preset:FILE`."""
    from pathlib import Path

    from play.specs import split_spec
    src = Path(__file__).resolve().parents[2] / "experiments" / "results" / "quickstart_counts"
    d = copy_run(src, tmp_path / "quickstart")
    elites = pd.read_csv(d / "elites.csv").set_index("cell")
    cfg = load_config(d / "config.yaml")
    out = tmp_path / "elite.json"
    assert main(["export", str(d), "--cells", "1.7:0:0.62", "-o", str(out)]) == 0
    assert "1 presets written" in capsys.readouterr().out
    (preset,) = load_presets(out).presets
    assert preset.evidence["cell"] == "1.7:0:0.62" and preset.evidence["win_rate_source"] == \
        "validated"
    assert {n: preset.params["weights"][n] for n in cfg.genome_names} == \
        {n: float(elites.loc["1.7:0:0.62", n]) for n in cfg.genome_names}
    assert preset.name == "some buildings, few defenders, steady research"
    name, params = split_spec(f"preset:{out}")
    assert name == "pmcts_pu" and params["weights"] == preset.params["weights"]
    two, _ = export_presets(d, cells=["3.4:0:0.3", "0:0:0.3"], out=tmp_path / "two.json")
    assert [p.evidence["cell"] for p in two.presets] == ["3.4:0:0.3", "0:0:0.3"]
    with pytest.raises(ValueError, match=r"cells: 9:9:9 is not an elite's cell in elites.csv"):
        export_presets(d, cells=["9:9:9"], out=tmp_path / "x.json")
    with pytest.raises(ValueError, match="cells: 0:0:0.30 is named twice"):
        export_presets(d, cells=["0:0:0.3", "0:0:0.30"], out=tmp_path / "x.json")
    with pytest.raises(ValueError, match="no candidates or budgets"):
        export_presets(d, cells=["0:0:0.3"], budgets=[10], out=tmp_path / "x.json")


def test_export_refuses_a_game_the_workers_lack_before_writing_presets(tmp_path_factory,
                                                                      tmp_path, monkeypatch):
    import qd.export
    from play.shipping import PluginUnreachable
    d = copy_run(tiny_run(tmp_path_factory), tmp_path / "run")
    asked = []

    def refuse(games, address=None, workers=None):
        asked.append((list(games), workers))
        raise PluginUnreachable("the workers cannot play it")

    monkeypatch.setattr(qd.export, "check_playable", refuse)
    out = tmp_path / "p.json"
    with pytest.raises(PluginUnreachable):
        export_presets(d, "difficulty", 2, out=out, calibrate=["random"], games=2, workers=2)
    with pytest.raises(PluginUnreachable):
        export_presets(d, "difficulty", 2, out=out, play_missing=True, workers=2)
    assert asked == [(["tribes"], 2), (["tribes"], 2)]
    assert not out.exists() and not (tmp_path / "p-ladder").exists()
    # nothing to play, nothing to check: the presets are written
    export_presets(d, "difficulty", 2, out=out, workers=2)
    assert out.exists() and len(asked) == 2
