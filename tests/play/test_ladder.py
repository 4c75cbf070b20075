"""Ladders: the Wilson interval, the ordering verdict on hand-made win matrices (holding,
violated, not significant), the seat plan, and a small real round robin."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from base.stats import wilson_interval
from play.ladder import (
    HOLDS,
    NOT_SIGNIFICANT,
    VIOLATED,
    alternating_games,
    order_verdict,
    pair_table,
    run_ladder,
)
from play.presets import Preset, PresetFile, dump_presets, full_params, weight_controls
from playstyles.cli import main


def test_wilson_interval():
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.27753), abs=1e-5)
    assert wilson_interval(5, 10) == pytest.approx((0.23659, 0.76341), abs=1e-5)
    assert wilson_interval(10, 10) == pytest.approx((0.72247, 1.0), abs=1e-5)
    assert wilson_interval(45, 50) == pytest.approx((0.78640, 0.95653), abs=1e-5)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(3, 7)
    assert (1 - hi, 1 - lo) == pytest.approx(wilson_interval(4, 7))


def matrix(rates: dict[tuple[int, int], float], n: int, games: int):
    """score[i, j] for i beating j `rates[(i, j)]` of the time over `games` games."""
    score = np.zeros((n, n))
    count = np.zeros((n, n), dtype=int)
    for (i, j), p in rates.items():
        score[i, j], score[j, i] = p * games, (1 - p) * games
        count[i, j] = count[j, i] = games
    return score, count


LABELS = ["easy", "medium", "hard"]


def test_a_holding_order():
    score, n = matrix({(1, 0): 0.8, (2, 0): 0.9, (2, 1): 0.7}, 3, 100)
    v = order_verdict(LABELS, score, n)
    assert v.status == HOLDS and v.point_order_holds
    assert [(p.harder, p.easier, p.status) for p in v.pairs] == [
        ("medium", "easy", HOLDS), ("hard", "easy", HOLDS), ("hard", "medium", HOLDS)]
    assert v.pairs[2].rate == pytest.approx(0.7) and v.pairs[2].low > 0.5
    assert "the difficulty order holds: easy < medium < hard" in v.text()


def test_a_violated_order():
    score, n = matrix({(1, 0): 0.8, (2, 0): 0.9, (2, 1): 0.2}, 3, 100)
    v = order_verdict(LABELS, score, n)
    assert v.status == VIOLATED and not v.point_order_holds
    assert v.pairs[2].status == VIOLATED and v.pairs[2].high < 0.5
    assert "violated" in v.text()


def test_an_order_that_is_not_significant():
    # right direction everywhere, too few games to tell
    score, n = matrix({(1, 0): 0.6, (2, 0): 0.7, (2, 1): 0.6}, 3, 10)
    v = order_verdict(LABELS, score, n)
    assert v.status == NOT_SIGNIFICANT and v.point_order_holds
    assert all(p.low < 0.5 < p.high for p in v.pairs if p.status == NOT_SIGNIFICANT)
    assert "agree with the order" in v.text()
    # one pair reversed on the point estimate, but not significantly
    score, n = matrix({(1, 0): 0.9, (2, 0): 0.9, (2, 1): 0.4}, 3, 50)
    v = order_verdict(LABELS, score, n)
    assert v.status == NOT_SIGNIFICANT and not v.point_order_holds
    assert [p.status for p in v.pairs] == [HOLDS, HOLDS, NOT_SIGNIFICANT]


def test_draws_count_half_in_pairs():
    games = pd.DataFrame({"agent": ["A"] * 4, "opponent": ["B"] * 4,
                          "agent_seat": [0, 1, 0, 1], "winner": [0, 1, 1, None]})
    t = pair_table(games, ["A", "B"])
    a = t[t["agent"] == "A"].iloc[0]
    b = t[t["agent"] == "B"].iloc[0]
    assert (a["wins"], a["losses"], a["draws"], a["games"]) == (2, 1, 1, 4)
    assert a["win_rate"] == 0.625 and b["win_rate"] == 0.375
    assert (a["ci_low"], a["ci_high"]) == pytest.approx(wilson_interval(2.5, 4))


def test_seats_alternate_over_levels_and_passes():
    assert alternating_games(4, ["a", "b"]) == [("a", 0), ("b", 1), ("a", 1), ("b", 0)]
    plan = alternating_games(6, [1, 2, 3])
    for level in (1, 2, 3):
        assert sorted(s for lv, s in plan if lv == level) == [0, 1]
    assert [lv for lv, _ in alternating_games(5, [7, 8])] == [7, 8, 7, 8, 7]


def presets(tmp_path):
    ps = [Preset("level 1 (easiest)", "random", {}, "tribes"),
          Preset("level 2 (hardest)", "mcts", full_params("mcts", {"budget": 6}, "tribes"), "tribes")]
    pf = PresetFile("tribes", ps, "difficulty", {"max_rounds": 3},
                    {"held_out_levels": [11, 12]})
    return dump_presets(pf, tmp_path / "ladder.json")


def test_a_small_round_robin(tmp_path):
    path = presets(tmp_path)
    r = run_ladder(path, baselines=["mcts:label=baseline"], games=4, workers=0)
    assert r.out == tmp_path / "ladder-ladder"
    for name in ("games.csv", "summary.csv", "summary.md", "ladder_matrix.csv",
                 "ladder_pairs.csv", "ladder.json", "ladder.md"):
        assert (r.out / name).stat().st_size > 0, name
    assert not (r.out / "ladder.png").exists()  # the library returns data; the CLI draws
    assert r.labels == ["level 1 (easiest)", "level 2 (hardest)", "baseline"]
    games = pd.read_csv(r.out / "games.csv")
    assert len(games) == 3 * 4 and set(games["level"]) == {11, 12}
    assert (games["rounds"] <= 4).all()
    m = pd.read_csv(r.out / "ladder_matrix.csv").set_index("agent")
    pairs = pd.read_csv(r.out / "ladder_pairs.csv")
    for row in pairs.itertuples():
        assert m.loc[row.agent, row.opponent] == row.win_rate
        back = pairs[(pairs.agent == row.opponent) & (pairs.opponent == row.agent)].iloc[0]
        assert row.win_rate + back.win_rate == pytest.approx(1.0)
    # the baseline plays at the budget of the presets (those that have one)
    info = json.loads((r.out / "ladder.json").read_text())
    base = info["agents"][2]
    assert {k: base[k] for k in ("label", "name", "params")} == \
        {"label": "baseline", "name": "mcts", "params": {"budget": 6}}
    assert base["resolved"] == full_params("mcts", {"budget": 6}, "tribes")  # defaults too
    assert info["agents"][1]["resolved"] == full_params("mcts", {"budget": 6}, "tribes")
    assert info["verdict"]["order"] == ["level 1 (easiest)", "level 2 (hardest)"]
    assert len(info["verdict"]["pairs"]) == 1
    p = info["verdict"]["pairs"][0]
    assert p["games"] == 4 and p["rate"] == m.loc["level 2 (hardest)", "level 1 (easiest)"]
    # same seed, same games
    again = run_ladder(path, baselines=["mcts:label=baseline"], games=4, workers=0,
                       out=tmp_path / "again")
    b = pd.read_csv(again.out / "games.csv")
    cols = [c for c in games.columns if not c.endswith(("seconds", "think_s"))]
    pd.testing.assert_frame_equal(games[cols], b[cols])


def test_evolved_presets_meet_their_default_weight_control(tmp_path, capsys):
    weights = [{"ResearchFarms": 1.0, "SpawnRange": 0.0}, {"ResearchFarms": 0.0, "SpawnRange": 1.0}]
    ps = [Preset(f"style {i}", "pmcts_pu", full_params("pmcts_pu", {"budget": 6, "weights": w},
                                                       "tribes"), "tribes")
          for i, w in enumerate(weights)]
    pf = PresetFile("tribes", ps, "styles", {"max_rounds": 2}, {"held_out_levels": [11]})
    path = dump_presets(pf, tmp_path / "styles.json")
    controls = weight_controls([p.spec() for p in ps])
    assert [c.label for c in controls] == ["control"]
    assert dict(controls[0].params) == {k: v for k, v in ps[0].params.items() if k != "weights"}
    r = run_ladder(path, games=2, workers=0)
    assert r.labels == ["style 0", "style 1", "control"]
    games = pd.read_csv(r.out / "games.csv")
    assert len(games) == 3 * 2 and "control" in set(games["agent"]) | set(games["opponent"])
    info = json.loads((r.out / "ladder.json").read_text())
    assert info["agents"][2]["params"] == {k: v for k, v in ps[0].params.items()
                                           if k != "weights"}
    assert info["verdict"]["order"] == ["style 0", "style 1"]  # the control is a baseline
    assert main(["ladder", str(path), "--games", "2", "--workers", "0", "--quiet", "--out",
                 str(tmp_path / "plain"), "--no-control"]) == 0
    assert "control" not in pd.read_csv(tmp_path / "plain" / "ladder_matrix.csv")["agent"].tolist()
    # presets of other budgets: one control per budget; presets without weights need none
    other = Preset("style 2", "pmcts_pu", {**ps[0].params, "budget": 12}, "tribes")
    assert [c.label for c in weight_controls([p.spec() for p in [*ps, other]])] == \
        ["control (budget=6)", "control (budget=12)"]
    assert weight_controls([Preset("mcts", "mcts", {"budget": 6}, "tribes").spec()]) == []
    assert weight_controls([*(p.spec() for p in ps), controls[0]]) == []  # already there


def test_ladder_from_the_command_line(tmp_path, capsys):
    path = presets(tmp_path)
    assert main(["ladder", str(path), "--games", "2", "--levels", "seeds:11", "--rounds", "2",
                 "--workers", "0", "--quiet", "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "difficulty order" in out and "ladder_matrix.csv" in out
    assert set(pd.read_csv(tmp_path / "out" / "games.csv")["level"]) == {11}
    assert main(["ladder", str(path), "--baselines", "random", "random", "--workers", "0",
                 "--quiet"]) == 2  # two baselines with the same label


def test_bradley_terry_recovers_known_strengths_and_their_uncertainty():
    from base.stats import bradley_terry
    true = np.array([-200.0, 0.0, 200.0])
    rng = np.random.default_rng(3)
    inside = 0
    for rep in range(40):
        score, games = np.zeros((3, 3)), np.zeros((3, 3))
        for i in range(3):
            for j in range(i + 1, 3):
                p = 1 / (1 + 10 ** ((true[j] - true[i]) / 400))
                w = rng.binomial(200, p)
                score[i, j], score[j, i], games[i, j], games[j, i] = w, 200 - w, 200, 200
        r = bradley_terry(["a", "b", "c"], score, games)
        assert r.rating.mean() == pytest.approx(0.0, abs=1e-6)
        inside += int(((r.low <= true) & (true <= r.high)).all())
        if rep == 0:
            assert np.allclose(r.rating, true, atol=60)
            assert r.separated(["a", "b", "c"]) and not r.separated(["c", "b", "a"])
            assert (r.games == 400).all()
    assert inside >= 32  # 95% intervals for each of 3 agents: most repetitions cover all three
    # an agent that won every game still gets a finite rating (virtual draws)
    sweep = bradley_terry(["x", "y"], np.array([[0, 0], [10, 0]]), np.array([[0, 10], [10, 0]]))
    assert np.isfinite(sweep.rating).all() and sweep.rating[1] > sweep.rating[0]


def test_ladder_files_carry_the_ratings(tmp_path):
    path = presets(tmp_path)
    r = run_ladder(path, baselines=["random:label=baseline"], games=4, workers=0)
    info = json.loads((r.out / "ladder.json").read_text())
    ratings = pd.read_csv(r.out / "ladder_ratings.csv")
    assert ratings["agent"].tolist() == r.labels
    assert [x["agent"] for x in info["ratings"]] == r.labels
    assert abs(ratings["rating"].mean()) < 0.1
    assert (ratings["ci_low"] <= ratings["rating"]).all() and (ratings["games"] == 8).all()
    assert isinstance(info["ratings_separated"], bool)
    assert "rating (Bradley-Terry, Elo scale)" in (r.out / "ladder.md").read_text()


def test_calibrated_presets_carry_ratings_against_shared_baselines(tmp_path, capsys):
    from play.ladder import calibrate
    path = presets(tmp_path)
    pf, result = calibrate(path, baselines=["random:label=baseline"], games=4, workers=0)
    ratings = pd.read_csv(result.out / "ladder_ratings.csv").set_index("agent")
    pairs = pd.read_csv(result.out / "ladder_pairs.csv")
    for p in pf.presets:
        r = p.evidence["rating"]
        assert r["elo"] == pytest.approx(ratings.loc[p.name, "rating"], abs=0.06)
        assert r["ci95"][0] <= r["elo"] <= r["ci95"][1] and r["games"] == 8
        vs = pairs[(pairs.agent == p.name) & (pairs.opponent == "baseline")]["win_rate"]
        assert r["win_rate_vs"] == {"baseline": pytest.approx(float(vs.iloc[0]))}
    cal = pf.source["calibration"]
    assert cal["baselines"] == ["baseline"] and cal["games_per_pair"] == 4
    assert cal["separated"] == result.ratings.separated(pf.names)
    assert ("warnings" in pf.source) == (not cal["steps_shown"])
    assert len(cal["steps"]) == len(pf.presets) - 1
    with pytest.raises(ValueError, match="at least one shared baseline"):
        calibrate(path, baselines=[], workers=0)


def _ratings(values, half_width):
    from base.stats import Ratings
    r = np.asarray(values, dtype=float)
    w = np.broadcast_to(np.asarray(half_width, dtype=float), r.shape)
    return Ratings([f"a{k}" for k in range(len(r))], r, r - w, r + w, np.full(len(r), 10))


def _round_robin(rates, games):
    """score/games matrices where agent i scores rates[i][j] of `games` against j."""
    n = len(rates)
    score = np.array([[rates[i][j] * games if i != j else 0.0 for j in range(n)]
                      for i in range(n)])
    played = np.full((n, n), games) - np.eye(n, dtype=int) * games
    return score, played


def test_shown_chain_keeps_steps_a_one_sided_holm_test_shows():
    from play.ladder import adjacent_steps, shown_chain
    r = _ratings([-300, -120, -100, 0, 90, 300], 40)
    # agent i scores 0.5 + 0.1 * (i - j) against j (capped): neighbours a1/a2 are 0.6 apart
    # only in rating; their games: a2 scores 0.52 against a1, never shown at 100 games
    base = [[min(0.95, max(0.05, 0.5 + 0.12 * (i - j))) for j in range(6)] for i in range(6)]
    base[2][1], base[1][2] = 0.52, 0.48
    score, played = _round_robin(base, 100)
    three = shown_chain(r, r.labels, 3, score, played)
    assert len(three) == 3
    steps = adjacent_steps(three, *(m[np.ix_(*(2 * [[r.labels.index(x) for x in three]]))]
                                     for m in (score, played)))
    assert all(st.shown for st in steps)
    six = shown_chain(r, r.labels, 6, score, played)  # a1 < a2 is not shown: five at most
    assert len(six) == 5 and not {"a1", "a2"} <= set(six)
    # only the candidates named are considered, weakest first whatever the order given
    assert shown_chain(r, ["a5", "a0"], 2, score, played) == ["a0", "a5"]
    # too few games: no step is shown, the chain of one, and the step says what would show it
    few_score, few = _round_robin(base, 4)
    assert len(shown_chain(r, r.labels, 3, few_score, few)) == 1
    (st,) = adjacent_steps(["a", "b"], few_score[:2, :2], few[:2, :2])
    assert not st.shown and st.games_needed is not None and st.games_needed > 4
    assert f"about {st.games_needed} games per pair" in st.text()
    # a step the easier one wins: no number of games shows it
    (back,) = adjacent_steps(["b", "a"], score[np.ix_([1, 0], [1, 0])],
                             played[np.ix_([1, 0], [1, 0])])
    assert not back.shown and back.games_needed is None and "not ahead" in back.text()


def test_games_to_show_reaches_the_power_it_promises():
    from base.stats import ahead_p, games_to_show
    rng = np.random.default_rng(5)
    n = int(games_to_show(0.65, 0.05 / 3))
    shown = np.mean([ahead_p(rng.binomial(n, 0.65), n) <= 0.05 / 3 for _ in range(2000)])
    assert 0.75 <= shown <= 0.9  # 80% power, by the normal approximation
    assert games_to_show(0.5, 0.05) == float("inf")
    assert ahead_p(10, 10) < 0.001 < ahead_p(5, 10) and ahead_p(0, 0) == 1.0


def test_calibration_keeps_separated_candidates_and_rates_them_against_baselines_only(tmp_path):
    from play.ladder import calibrate
    path = presets(tmp_path)
    pf, result = calibrate(path, baselines=["random:label=baseline"], games=4, workers=0,
                           keep=1)
    assert len(result.labels) == 3 and len(pf.presets) == 1
    kept = pf.presets[0]
    assert kept.name in result.labels[:2]
    assert kept.evidence["rating"]["win_rate_vs"].keys() == {"baseline"}
    cal = pf.source["calibration"]
    assert cal["candidates"] == 2 and cal["baselines"] == ["baseline"]
    assert cal["separated"] is True  # one preset is trivially separated


def test_calibration_keeps_its_games_until_the_presets_are_written(tmp_path, monkeypatch):
    from play import ladder as lm
    from play.ladder import calibrate
    path = presets(tmp_path)
    kept = tmp_path / "ladder-ladder" / "games.journal"

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(lm, "dump_presets", broken)  # fails after every game was played
    with pytest.raises(OSError):
        calibrate(path, baselines=["random:label=baseline"], games=4, workers=0)
    assert kept.exists()
    monkeypatch.undo()
    missing = []
    real = lm.play_missing

    def spy(journal, **kwargs):
        missing.append(len(journal.missing))
        return real(journal, **kwargs)

    monkeypatch.setattr(lm, "play_missing", spy)
    with pytest.raises(ValueError, match="continue it with --resume"):
        calibrate(path, baselines=["random:label=baseline"], games=4, workers=0)
    pf, _ = calibrate(path, baselines=["random:label=baseline"], games=4, workers=0,
                      resume=True)
    assert missing == [0]  # nothing played again
    assert all("rating" in p.evidence for p in pf.presets) and not kept.exists()
