"""The distinct-styles statistics (qd.styles) on synthetic games."""

import math
from itertools import combinations

import numpy as np
import pytest
from scipy import stats

from base.stats import detectable, holm, mean_interval, welch_p
from qd.styles import (
    Paired,
    Sample,
    distinct_styles,
    duplicates,
    identification,
    largest_set,
    largest_sets,
    non_inferiority,
)

LEVELS = 12


def _samples(means, games, seed=0, sd=1.0, win=0.5, traces=False):
    """Synthetic genomes on common games: `games` games over LEVELS levels; feature x has mean
    means[i], y is noise; wins are Bernoulli(win[i])."""
    rng = np.random.default_rng(seed)
    out = []
    for i, m in enumerate(means):
        w = win[i] if isinstance(win, (list, tuple)) else win
        out.append(Sample(f"e{i}", (rng.random(games) < w).astype(float),
                          {"x": rng.normal(m, sd, games), "y": rng.normal(0, sd, games)},
                          blocks=[g % LEVELS for g in range(games)],
                          traces=[f"{i}-{g}" for g in range(games)] if traces else None))
    return out


def _copy(s, key):
    return Sample(key, list(s.wins), {f: list(v) for f, v in s.features.items()},
                  blocks=s.blocks, traces=s.traces)


def test_mean_interval_is_the_t_interval():
    v = [1.0, 2.0, 4.0, 7.0, float("nan")]
    m, lo, hi, n = mean_interval(v)
    ref = stats.t.interval(0.95, 3, loc=np.mean(v[:4]), scale=stats.sem(v[:4]))
    assert n == 4 and m == pytest.approx(3.5)
    assert (lo, hi) == pytest.approx(ref)
    assert math.isnan(mean_interval([3.0])[1])
    assert mean_interval([2.0, 2.0, 2.0])[1:3] == (2.0, 2.0)


def test_welch_edge_cases_and_reference():
    a, b = [1.0, 2.0, 3.0, 4.0], [2.0, 3.5, 5.0, 6.0, 7.0]
    assert welch_p(a, b) == pytest.approx(stats.ttest_ind(a, b, equal_var=False).pvalue)
    assert welch_p(a, b, "less") == pytest.approx(
        stats.ttest_ind(a, b, equal_var=False, alternative="less").pvalue)
    assert welch_p([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]) == pytest.approx(
        stats.ttest_1samp([1.0, 2.0, 3.0], 1.0).pvalue)
    assert welch_p([1.0], b) == 1.0
    assert welch_p([1.0, 1.0], [1.0, 1.0]) == 1.0
    assert welch_p([1.0, 1.0], [2.0, 2.0]) == 0.0
    assert welch_p([2.0, 2.0], [1.0, 1.0], "less") == 1.0
    assert welch_p([0.0, 0.0, 1.0, 0.0], [1.0, 1.0, 1.0, 0.0], "less") < \
        welch_p([0.0, 0.0, 1.0, 0.0], [1.0, 1.0, 1.0, 0.0])


def test_holm_steps_down():
    # m = 4: thresholds .0125, .0167, .025, .05
    assert holm([0.01, 0.04, 0.03, 0.005]).tolist() == [True, False, False, True]
    assert holm([0.01, 0.015, 0.02, 0.04]).tolist() == [True, True, True, True]
    assert holm([0.06, 0.001]).tolist() == [False, True]
    assert holm([0.03, 0.026]).tolist() == [False, False]
    assert holm([]).tolist() == []


def test_identical_genomes_give_one_style_and_are_duplicates():
    base = _samples([0.0], 96, seed=3, traces=True)[0]
    same = [_copy(base, f"e{i}") for i in range(5)]
    s = distinct_styles(same, ["x", "y"])
    assert s.count == 1 and all(n == 1 for n in s.counts.values())
    assert s.duplicates == [[f"e{i}" for i in range(5)]]
    assert not any(r["differs"] for r in s.pairs)
    # genomes that play different games are not duplicates, however alike their values
    other = _samples([0.0, 0.0], 96, seed=4, traces=True)
    assert duplicates(other) == []


def test_half_an_sd_apart_is_one_style_at_delta_1_and_two_at_delta_0():
    rng = np.random.default_rng(7)
    games = 600
    noise = rng.normal(0, 1, (2, games))
    blocks = [g % LEVELS for g in range(games)]
    a = Sample("a", [0.5] * games, {"x": noise[0]}, blocks=blocks)
    b = Sample("b", [0.5] * games, {"x": noise[1] + 0.5}, blocks=blocks)
    s = distinct_styles([a, b], ["x"], delta=1.0)
    assert s.counts["0"] == 2 and s.counts["1"] == 1
    assert s.count == 1
    assert distinct_styles([a, b], ["x"], delta=0.0).count == 2
    # the difference is reported in per-game sds
    sd = np.sqrt((noise[0].var(ddof=1) + noise[1].var(ddof=1)) / 2)
    assert s.sd["x"] == pytest.approx(sd)
    assert s.pairs[0]["difference"] == pytest.approx((noise[0].mean() - noise[1].mean() - 0.5) / sd)


def test_far_apart_genomes_count_at_delta_1():
    s = distinct_styles(_samples([0.0, 3.0, 6.0, 9.0, 12.0], 48, seed=1), ["x", "y"])
    assert s.count == 5 and s.counts["1"] == 5
    assert sorted(s.styles) == [f"e{i}" for i in range(5)]
    assert s.ties == 1 and s.share == {f"e{i}": 1.0 for i in range(5)}


def test_the_paired_test_against_delta():
    # a constant difference of exactly h is not beyond h; just above, it is (no spread)
    p = Paired.of([2.0] * 8, [0.0] * 8, list(range(8)))
    assert p.mean == 2.0 and p.se == 0.0
    assert p.p_beyond(2.0) == 1.0 and p.p_beyond(1.9) == 0.0
    # at h = 0 it is the two-sided one-sample t test on the block means
    rng = np.random.default_rng(0)
    a, b = rng.normal(0.3, 1, 40), rng.normal(0, 1, 40)
    blocks = [g % 8 for g in range(40)]
    means = [np.mean((a - b)[np.array(blocks) == k]) for k in range(8)]
    pr = Paired.of(a, b, blocks)
    assert pr.blocks == 8
    assert pr.p_beyond(0.0) == pytest.approx(stats.ttest_1samp(means, 0.0).pvalue)
    # beyond h > 0: the chance of |D| at least this large when the truth is h
    h = 0.1
    t1, t2 = (abs(pr.mean) - h) / pr.se, (abs(pr.mean) + h) / pr.se
    assert pr.p_beyond(h) == pytest.approx(stats.t.sf(t1, 7) + stats.t.sf(t2, 7))
    assert pr.p_beyond(h) > pr.p_beyond(0.0)
    # a single block gives no test
    assert Paired.of([1.0, 5.0], [0.0, 0.0], [3, 3]).p_beyond(0.0) == 1.0


def test_a_style_15_points_weaker_fails_non_inferiority():
    rng = np.random.default_rng(11)
    games = 400
    blocks = [g % 20 for g in range(games)]
    control = Sample("control", (rng.random(games) < 0.55).astype(float),
                     {"x": rng.normal(0, 1, games)}, blocks=blocks)
    weak = Sample("weak", (rng.random(games) < 0.40).astype(float),
                  {"x": rng.normal(0, 1, games)}, blocks=blocks)
    equal = Sample("equal", control.wins, {"x": rng.normal(5, 1, games)}, blocks=blocks)
    v = non_inferiority(weak, control, 0.10)
    assert v["non_inferior"] is False and v["lower"] < -0.10
    assert v["difference"] == pytest.approx(np.mean(weak.wins) - np.mean(control.wins))
    v = non_inferiority(equal, control, 0.10)
    assert v["non_inferior"] is True and v["lower"] == 0.0 and v["power"] == 1.0
    s = distinct_styles([weak, equal], ["x"], control=control)
    assert s.count == 2
    assert s.non_inferior == ["equal"]
    assert s.non_inferiority["weak"]["non_inferior"] is False
    assert s.differs_from_control == {"equal": True, "weak": False}
    # the games a style needs: fewer games than that leave the power below 80%
    few = [Sample(x.key, x.wins[:40], {"x": x.features["x"][:40]}, blocks=blocks[:40])
           for x in (weak, control)]
    v = non_inferiority(few[0], few[1], 0.10)
    z = stats.norm.ppf(0.95) + stats.norm.ppf(0.8)
    d = np.asarray(few[0].wins) - np.asarray(few[1].wins)
    assert v["games_needed"] == int(np.ceil((z * d.std(ddof=1) / 0.10) ** 2)) > 40
    assert v["power"] < 0.8


def test_a_one_player_margin_is_a_share_of_the_control_score():
    rng = np.random.default_rng(2)
    blocks = [g % 10 for g in range(200)]
    control = Sample("control", rng.normal(100, 10, 200), {"x": rng.normal(0, 1, 200)},
                     blocks=blocks)
    worse = Sample("worse", np.asarray(control.wins) - 20, {"x": rng.normal(4, 1, 200)},
                   blocks=blocks)
    close = Sample("close", np.asarray(control.wins) - 5, {"x": rng.normal(8, 1, 200)},
                   blocks=blocks)
    s = distinct_styles([worse, close], ["x"], control=control, quality="score")
    assert s.non_inferiority["close"]["margin"] == pytest.approx(0.1 * np.mean(control.wins))
    assert s.non_inferior == ["close"]


def test_identification_of_separated_styles_is_near_one_and_of_identical_near_chance():
    far = _samples([0.0, 6.0, 12.0], 96, seed=5)
    r = identification(far)
    assert r["accuracy"] > 0.95 and r["chance"] == pytest.approx(1 / 3)
    assert set(r["per_style"]) == {"e0", "e1", "e2"} and r["games"] == 3 * 96
    same = _samples([0.0, 0.0, 0.0, 0.0], 96, seed=6)
    r = identification(same)
    assert abs(r["accuracy"] - 0.25) < 0.1
    assert identification(far[:1]) is None


def test_of_two_alike_the_stronger_is_kept():
    # e0 and e1 alike, e2 apart; e1 wins most, so it is kept and e0 is left out
    s = distinct_styles(_samples([0.0, 0.0, 8.0], 48, seed=4, win=[0.2, 0.9, 0.5]), ["x"])
    assert s.styles == ["e1", "e2"]


def test_tied_largest_sets_are_counted_with_each_elites_share():
    # a-b and c-d differ; a differs from nobody else: {a, b} and {c, d} tie, and {b, c}
    pairs = {("a", "b"), ("c", "d"), ("b", "c")}

    def differs(x, y):
        return (x, y) in pairs or (y, x) in pairs

    strength = {"a": 0.9, "b": 0.5, "c": 0.4, "d": 0.3}
    c = largest_sets(["a", "b", "c", "d"], differs, strength)
    assert c.ties == 3 and c.chosen == ["a", "b"]
    assert c.share == pytest.approx({"a": 1 / 3, "b": 2 / 3, "c": 2 / 3, "d": 1 / 3})
    # equal strength: the set whose keys come first
    c = largest_sets(["a", "b", "c", "d"], differs, {k: 0.5 for k in "abcd"})
    assert c.chosen == ["a", "b"]


def test_largest_set_beats_the_greedy_walk():
    # a differs from nobody but is strongest; b, c, d differ pairwise
    pairs = {("b", "c"), ("b", "d"), ("c", "d")}

    def differs(x, y):
        return (x, y) in pairs or (y, x) in pairs

    strength = {"a": 0.9, "b": 0.5, "c": 0.4, "d": 0.3}
    assert largest_set(["a", "b", "c", "d"], differs, strength) == ["b", "c", "d"]
    # between two sets of equal size the stronger wins
    pairs = {("a", "b"), ("c", "d")}
    assert largest_set(["a", "b", "c", "d"], differs, strength) == ["a", "b"]
    # every pair of a returned set differs, on random graphs, and none larger exists; the
    # tie count is the number of sets that large
    rng = np.random.default_rng(0)
    keys = [f"k{i}" for i in range(9)]
    for _ in range(20):
        pairs = {(a, b) for i, a in enumerate(keys) for b in keys[i + 1:] if rng.random() < 0.5}
        c = largest_sets(keys, differs, {k: 0.0 for k in keys})
        got = c.chosen
        assert all(differs(a, b) for i, a in enumerate(got) for b in got[i + 1:])
        bigger = [x for x in combinations(keys, len(got) + 1)
                  if all(differs(a, b) for a, b in combinations(x, 2))]
        assert not bigger
        same = [x for x in combinations(keys, len(got))
                if all(differs(a, b) for a, b in combinations(x, 2))]
        assert c.ties == len(same)


def test_detectable_shrinks_with_games():
    assert detectable(1, 1, 10, 10, 0.05) > detectable(1, 1, 40, 40, 0.05)
    assert detectable(1, 1, 40, 40, 0.05) == pytest.approx(
        (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) * math.sqrt(2 / 40))
    assert detectable(1, 1, 1, 10, 0.05) == math.inf


def test_a_cut_search_keeps_the_greedy_set(monkeypatch):
    import qd.styles as S
    pairs = {("b", "c"), ("b", "d"), ("c", "d")}

    def differs(x, y):
        return (x, y) in pairs or (y, x) in pairs

    strength = {"a": 0.9, "b": 0.5, "c": 0.4, "d": 0.3}
    monkeypatch.setattr(S, "SEARCH_STEPS", 0)
    assert largest_set(["a", "b", "c", "d"], differs, strength) == ["a"]  # greedy: a first
    monkeypatch.setattr(S, "EXACT_LIMIT", 2)
    monkeypatch.setattr(S, "SEARCH_STEPS", 10 ** 6)
    assert largest_set(["a", "b", "c", "d"], differs, strength) == ["a"]
