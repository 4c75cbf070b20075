"""The distinct-styles statistics (qd.styles) on synthetic games."""

import math
from itertools import combinations

import numpy as np
import pytest
from scipy import stats

from play.stats import detectable, holm, mean_interval, welch_p
from qd.styles import Sample, distinct_styles, largest_set


def _samples(means, games, seed=0, sd=1.0, win=0.5):
    rng = np.random.default_rng(seed)
    out = []
    for i, m in enumerate(means):
        w = win[i] if isinstance(win, (list, tuple)) else win
        out.append(Sample(f"e{i}", (rng.random(games) < w).astype(float),
                          {"x": rng.normal(m, sd, games), "y": rng.normal(0, sd, games)}))
    return out


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


def test_identical_genomes_give_one_style():
    s = distinct_styles(_samples([0.0] * 8, 40, seed=3), ["x", "y"])
    assert s.count == 1
    assert s.pairs and not any(r["differs"] for r in s.pairs)


def test_well_separated_genomes_give_all():
    s = distinct_styles(_samples([0.0, 3.0, 6.0, 9.0, 12.0], 20, seed=1), ["x", "y"])
    assert s.count == 5
    assert sorted(s.styles) == [f"e{i}" for i in range(5)]


def test_too_few_games_give_one_with_the_power_stated():
    s = distinct_styles(_samples([0.0, 1.0, 2.0], 3, seed=2), ["x"])
    assert s.count == 1
    assert s.games == 3
    # a difference of 1 sd is far below what 3 games per style can detect
    assert s.power["x"]["detectable"] > 2.0
    assert s.power["x"]["level"] == pytest.approx(0.05 / 3)


def test_of_two_alike_the_stronger_is_kept():
    # e0 and e1 alike, e2 apart; e1 wins most, so it is kept and e0 is left out
    s = distinct_styles(_samples([0.0, 0.0, 8.0], 30, seed=4, win=[0.2, 0.9, 0.5]), ["x"])
    assert s.styles == ["e1", "e2"]


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
    # every pair of a returned set differs, on random graphs, and none larger exists
    rng = np.random.default_rng(0)
    keys = [f"k{i}" for i in range(9)]
    for _ in range(20):
        pairs = {(a, b) for i, a in enumerate(keys) for b in keys[i + 1:] if rng.random() < 0.5}
        got = largest_set(keys, differs, {k: 0.0 for k in keys})
        assert all(differs(a, b) for i, a in enumerate(got) for b in got[i + 1:])
        bigger = [c for c in combinations(keys, len(got) + 1)
                  if all(differs(a, b) for a, b in combinations(c, 2))]
        assert not bigger


def test_control_differs_and_weaker():
    samples = _samples([0.0, 8.0], 60, seed=5, win=[0.2, 0.6])
    control = _samples([0.0], 60, seed=6, win=0.6)[0]
    s = distinct_styles(samples, ["x"], control=control)
    assert s.count == 2
    assert s.differs_from_control == {"e0": False, "e1": True}
    assert s.weaker_than_control["e0"] is True
    assert s.weaker_than_control["e1"] is False
    assert s.not_weaker == ["e1"]
    summ = s.summary()
    assert summ["distinct_styles"] == 2 and summ["distinct_styles_not_weaker"] == 1
    assert s.power["win_rate_vs_control"]["detectable"] < 0.3


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
